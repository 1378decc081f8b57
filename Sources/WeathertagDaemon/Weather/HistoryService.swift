import Foundation
import Logging
import WeathertagCore

/// The weather of a back-dated entry's own time, from OpenWeather's One Call 3.0 timemachine (`history.enabled`).
///
/// Where: the entry's own position (its front matter), else the first provider that knows the past (`fixed`).
/// Each answer is kept per place (about 1 km) and hour in a `HistoryStore` (the state database), so one place and
/// hour is asked once; calls are counted per local day, across restarts, and stop at `history.max_calls_per_day`. A 401 means the key
/// has no One Call 3.0 subscription: said once, and nothing more is asked until the configuration is reloaded;
/// current weather is not touched.
public actor HistoryService {
    /// What a request comes to.
    public enum Answer: Sendable {
        case tag(WeatherTag)
        case failed(HistoryFailure)
    }

    private let configuration: HistoryConfiguration
    private let client: OpenWeatherClient
    private let chain: LocationChain
    private let store: any HistoryStore
    private let logger: Logger
    private let privacy: PrivacyPolicy
    private let now: @Sendable () -> Date
    private var budget: HistoryBudget
    /// OpenWeather's word that the key cannot ask for history (a 401).
    private var refusal: String?
    private var backoff = Backoff(base: .seconds(5), ceiling: .seconds(3600))

    public init(
        configuration: HistoryConfiguration,
        client: OpenWeatherClient,
        chain: LocationChain,
        store: any HistoryStore,
        logger: Logger,
        privacy: PrivacyPolicy = .exact,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.privacy = privacy
        self.configuration = configuration
        self.budget = HistoryBudget(maximumPerDay: configuration.maximumCallsPerDay)
        self.client = client
        self.chain = chain
        self.store = store
        self.logger = logger
        self.now = now
    }

    public func tag(for request: HistoryRequest) async -> Answer {
        if let refusal { return .failed(.unavailable(.refused(refusal))) }
        let moment = request.moment
        guard var position = await self.position(for: request, at: moment) else {
            return .failed(.unavailable(.noPosition))
        }
        position.takenAt = moment
        // OpenWeather and the kept answers see no more than `privacy` allows; the block shows what it allows.
        let request = self.privacy.requestPosition(position)
        let cell = request.cell
        let hour = Int((moment.timeIntervalSince1970 / 3600).rounded(.down))
        let body: [UInt8]
        if let kept = await self.store.answer(cell: cell, hour: hour) {
            body = kept
        } else {
            // What earlier processes counted today, asked once a day.
            let now = self.now()
            let today = HistoryBudget.day(of: now, calendar: .current)
            let counted = self.budget.day == today ? 0 : await self.store.calls(day: today)
            if let wait = self.budget.admit(now: now, calendar: .current, countedBefore: { _ in counted }) {
                let error = WeatherError(
                    kind: .rateLimited(retryAfter: nil),
                    message: "the \(self.budget.maximumPerDay) history calls of today "
                        + "(history.max_calls_per_day) are spent; asked again tomorrow")
                return .failed(.later(wait, error))
            }
            await self.store.countCall(day: self.budget.day)
            do {
                body = try await self.client.timemachineAnswer(at: request, time: moment)
            } catch {
                if case .invalidAPIKey = error.kind {
                    self.refusal = error.message
                    self.logger.error("no weather for back-dated entries", metadata: ["reason": "\(error.message)"])
                    return .failed(.unavailable(.refused(error.message)))
                }
                return self.later(error)
            }
            self.backoff.reset()
            await self.store.keep(body, cell: cell, hour: hour)
        }
        do {
            let weather = try OpenWeatherAPI.decodeTimemachine(
                HTTPResponse(status: 200, body: body), units: self.client.configuration.units)
            let tag = WeatherTag(
                weather: weather, position: position, iconFile: nil, fetchedAt: self.now(), kind: .historical)
            return .tag(self.privacy.shown(tag))
        } catch {
            return self.later(error)
        }
    }

    private func later(_ error: WeatherError) -> Answer {
        .failed(.later(self.backoff.next(), error))
    }

    /// The entry's own position, else where the providers that know the past say the machine was then.
    private func position(for request: HistoryRequest, at moment: Date) async -> Position? {
        if let own = request.position { return own }
        return await self.chain.locate(at: moment)
    }
}
