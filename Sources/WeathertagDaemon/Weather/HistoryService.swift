import FoundationEssentials
import Logging
import WeathertagCore

/// The weather of a back-dated entry's own time (`history.enabled`), from Open-Meteo (`history.source`
/// `open-meteo`, the default: no key, a whole year of a place's hours per request) or OpenWeather's One Call 3.0
/// timemachine (`openweather`: a subscription, one call per entry).
///
/// Where: the entry's own position (its front matter), else the first provider that knows the past (`fixed`). Every
/// answer is kept in a `HistoryStore` (the state database) by place cell (about 1 km) and hour, or span of hours,
/// so nothing is asked twice; requests are counted across restarts against a budget: Open-Meteo's free limits,
/// weighted as they weigh them (`OpenMeteoBudget`), or the timemachine's calls a day (`HistoryBudget`). A 401 from
/// OpenWeather means the key has no subscription: said once, and nothing more is asked until the configuration is
/// reloaded; current weather is not touched.
public actor HistoryService {
    /// What a request comes to.
    public enum Answer: Sendable {
        case tag(WeatherTag)
        case failed(HistoryFailure)
    }

    /// Who is asked about the past.
    public enum Backend: Sendable {
        case openMeteo(OpenMeteoConfiguration, http: any HTTPClient, countCall: @Sendable () -> Void)
        case openWeather(OpenWeatherClient)
    }

    /// For `/v1/status`: what history has cost and what is left.
    public struct Snapshot: Sendable, Equatable {
        public var source: String
        /// Requests made by this process.
        public var requests: Int
        /// Open-Meteo: weighted calls left of the day's budget (the tighter of the day's and the month's); the
        /// timemachine: calls left today.
        public var budgetLeft: Double?
    }

    private let configuration: HistoryConfiguration
    private let backend: Backend
    private let units: Units
    private let lang: String
    private let chain: LocationChain
    private let store: any HistoryStore
    private let logger: Logger
    private let privacy: PrivacyPolicy
    private let now: @Sendable () -> Date
    private var budget: HistoryBudget
    /// Loaded from the store on first use, so that a restart remembers what was spent.
    private var openMeteoBudget: OpenMeteoBudget?
    private let openMeteoLimits: OpenMeteoLimits
    /// OpenWeather's word that the key cannot ask for history (a 401).
    private var refusal: String?
    /// The source's right to be asked: one backoff per outage (its `Retry-After` obeyed), not per waiting entry.
    /// Shut, entries wait for it without asking; kept hours are read meanwhile.
    private var gate: SourceGate
    /// Gaps in kept answers (a `null` hour), by place cell and day, and when they were last asked about: asked
    /// again after `gapRetry`, never filled with invented weather.
    private var gaps: [String: Date] = [:]
    public static let gapRetry: Duration = .seconds(6 * 3600)
    private var requests = 0
    /// The last bulk answers read, decoded (a year of hours is read once, not once per entry).
    private var decoded: [(cell: String, hours: HourlySeries)] = []
    /// One fetch at a time: entries wait for it and then read what it kept (the budget paces fetches anyway, and a
    /// year's answer is a megabyte to decode).
    private var fetching: Task<Void, Never>?

    public init(
        configuration: HistoryConfiguration,
        backend: Backend,
        units: Units,
        lang: String,
        chain: LocationChain,
        store: any HistoryStore,
        logger: Logger,
        privacy: PrivacyPolicy = .exact,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.privacy = privacy
        self.configuration = configuration
        self.backend = backend
        self.units = units
        self.lang = lang
        self.budget = HistoryBudget(maximumPerDay: configuration.maximumCallsPerDay ?? 900)
        // Half of each free limit, or what the configuration says; no window allows more than the day.
        var limits = OpenMeteoLimits.free.share
        if case .openMeteo(let service, _, _) = backend, let perMinute = service.maximumCallsPerMinute {
            limits.perMinute = Double(perMinute)
        }
        if let perDay = configuration.maximumCallsPerDay { limits.perDay = Double(perDay) }
        limits.perHour = min(limits.perHour, limits.perDay)
        limits.perMinute = min(limits.perMinute, limits.perDay)
        self.openMeteoLimits = limits
        let source: String
        switch backend {
        case .openMeteo: source = "open-meteo"
        case .openWeather: source = "openweather"
        }
        self.gate = SourceGate(
            source: source, maximumPerMinute: .max, backoff: Backoff(base: .seconds(2), ceiling: .seconds(300)))
        self.chain = chain
        self.store = store
        self.logger = logger
        self.now = now
    }

    /// What history has spent and what is left, as the store remembers it from earlier runs too (read at the first
    /// question, so that `status` right after a restart says what the database holds).
    public func snapshot() async -> Snapshot {
        let now = self.now()
        switch self.backend {
        case .openMeteo:
            await self.loadBudget(now: now)
            return Snapshot(
                source: "open-meteo", requests: self.requests,
                budgetLeft: (self.openMeteoBudget ?? OpenMeteoBudget(limits: self.openMeteoLimits)).left(now: now))
        case .openWeather:
            let today = HistoryBudget.day(of: now, calendar: .current)
            let used = self.budget.day == today ? self.budget.used : await self.store.calls(day: today)
            return Snapshot(
                source: "openweather", requests: self.requests,
                budgetLeft: Double(max(0, self.budget.maximumPerDay - used)))
        }
    }

    /// The spends of the last 30 days, from the store, once.
    private func loadBudget(now: Date) async {
        guard self.openMeteoBudget == nil else { return }
        let spent = await self.store.spends(since: now.addingTimeInterval(-30 * 86_400))
        // Places fetched at once all get here first: only the first load counts, or each would spend against a
        // budget without the others' spends.
        if self.openMeteoBudget == nil {
            self.openMeteoBudget = OpenMeteoBudget(limits: self.openMeteoLimits, spent: spent)
        }
    }

    /// Why the source may not be asked now, and for how long: its gate is shut after a failure.
    private func shut(now: Date) -> Failure? {
        guard let next = self.gate.nextAttemptAt, now < next, let error = self.gate.lastError else { return nil }
        let wait = Duration.milliseconds(Int64((next.timeIntervalSince(now) * 1000).rounded(.up)))
        return Failure(failure: .later(wait, error))
    }

    /// A request failed: the gate shuts for the outage's backoff (at least what the service asked for), and the
    /// entry waits until it opens.
    private func failed(_ error: WeatherError) -> HistoryFailure {
        let now = self.now()
        if self.gate.failed(error, now: now) {
            self.logger.warning(
                "history cannot be had for now",
                metadata: ["source": "\(self.gate.source)", "error": "\(error.message)"])
        }
        let next = self.gate.nextAttemptAt ?? now
        return .later(.milliseconds(Int64((next.timeIntervalSince(now) * 1000).rounded(.up))), error)
    }

    public func tag(for request: HistoryRequest) async -> Answer {
        if let refusal { return .failed(.unavailable(.refused(refusal))) }
        let moment = request.moment
        guard var position = await self.position(for: request, at: moment) else {
            return .failed(.unavailable(.noPosition))
        }
        position.takenAt = moment
        // The services and the kept answers see no more than `privacy` allows; the block shows what it allows.
        let request = self.privacy.requestPosition(position)
        let hour = Int((moment.timeIntervalSince1970 / 3600).rounded(.down))
        if case .openMeteo = self.backend, let why = OpenMeteoHistory.unavailable(hour: hour) {
            return .failed(.unavailable(.refused(why)))
        }
        do {
            var weather: Weather
            switch self.backend {
            case .openMeteo(let service, let http, let countCall):
                weather = try await self.openMeteoWeather(
                    at: request, hour: hour, service: service, http: http, countCall: countCall)
                weather.source = "open-meteo"
            case .openWeather(let client):
                weather = try await self.timemachineWeather(at: request, hour: hour, moment: moment, client: client)
                weather.source = "openweather"
            }
            let tag = WeatherTag(
                weather: weather, position: position, iconFile: nil, fetchedAt: self.now(), kind: .historical)
            return .tag(self.privacy.shown(tag))
        } catch let failure as Failure {
            return .failed(failure.failure)
        } catch let error as WeatherError {
            return .failed(self.failed(error))
        } catch {
            return .failed(self.failed(WeatherError(kind: .unreachable, message: "\(error)", cause: error)))
        }
    }

    /// The source answered: its gate opens (and the log says so once after an outage).
    private func answered() {
        if self.gate.succeeded() {
            self.logger.notice("history answers again", metadata: ["source": "\(self.gate.source)"])
        }
    }

    /// A failure that is not a retry after the backoff.
    private struct Failure: Error {
        var failure: HistoryFailure
    }

    // MARK: Open-Meteo

    private func openMeteoWeather(
        at request: RequestPosition, hour: Int, service: OpenMeteoConfiguration, http: any HTTPClient,
        countCall: @escaping @Sendable () -> Void
    ) async throws -> Weather {
        let cell = request.cell
        var fetched = false
        while true {
            if let hours = await self.hours(cell: cell, hour: hour) {
                if let weather = hours.weather(hour: hour, units: self.units, lang: self.lang) { return weather }
                // A gap in what was kept: asked again for that day later, never filled in.
                guard !fetched,
                    try await self.askAgainForGap(
                        at: request, hour: hour, service: service, http: http,
                        countCall: countCall)
                else { throw self.gapFailure(hour: hour, cell: cell) }
                fetched = true
                continue
            }
            // One fetch at a time: wait for the running one, then look again (it may have brought this hour).
            // Nothing suspends between this look and taking the slot below.
            if let running = self.fetching {
                await running.value
                continue
            }
            guard !fetched else {
                throw WeatherError(kind: .notFound, message: "Open-Meteo has no hours yet for that time here")
            }
            if let shut = self.shut(now: self.now()) { throw shut }
            let task = Task<Result<Void, any Error>, Never> {
                do {
                    try await self.plannedFetch(
                        at: request, hour: hour, service: service, http: http, countCall: countCall)
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            let slot = Task { _ = await task.value }
            self.fetching = slot
            let result = await task.value
            if self.fetching == slot { self.fetching = nil }
            try result.get()
            fetched = true
        }
    }

    /// Plans what to ask for so that `hour` is answered, spends its weight, and asks.
    private func plannedFetch(
        at request: RequestPosition, hour: Int, service: OpenMeteoConfiguration, http: any HTTPClient,
        countCall: @escaping @Sendable () -> Void
    ) async throws {
        let cell = request.cell
        let kept = await self.store.spans(cell: cell)
        guard let fetch = OpenMeteoHistory.plan(hour: hour, now: self.now(), kept: kept) else {
            throw WeatherError(kind: .notFound, message: "the entry's time is not past yet")
        }
        try await self.spending(fetch, at: request, service: service, http: http, countCall: countCall)
    }

    /// Asks for `fetch` within the budget: the weight is spent before the request and given back if it fails (the
    /// service counts no call it did not answer); only answered requests are kept as spent across restarts.
    private func spending(
        _ fetch: OpenMeteoHistory.Fetch, at request: RequestPosition, service: OpenMeteoConfiguration,
        http: any HTTPClient, countCall: @escaping @Sendable () -> Void
    ) async throws {
        let spentAt = try await self.admit(fetch)
        let url = OpenMeteoHistory.url(
            fetch, archiveURL: service.archiveURL, forecastURL: service.baseURL, at: request, units: self.units)
        do {
            try await self.fetch(
                url, fetch, cell: request.cell, http: http, timeout: service.timeout, countCall: countCall)
        } catch {
            self.openMeteoBudget?.refund(weight: fetch.weight, at: spentAt)
            throw error
        }
        self.answered()
        await self.store.record(OpenMeteoBudget.Spend(at: spentAt, weight: fetch.weight))
    }

    /// A gap at `hour` in the kept answer: the first time it is found, and again each `gapRetry` after, its day is
    /// asked for again (true: asked, look again); otherwise false, and the entry waits.
    private func askAgainForGap(
        at request: RequestPosition, hour: Int, service: OpenMeteoConfiguration, http: any HTTPClient,
        countCall: @escaping @Sendable () -> Void
    ) async throws -> Bool {
        let now = self.now()
        let key = "\(request.cell)#\(hour / 24)"
        // Found now: asked again later, not at once (the answer is fresh).
        guard let asked = self.gaps[key] else {
            self.gaps[key] = now
            return false
        }
        guard now.timeIntervalSince(asked) >= Self.gapRetry.seconds, self.shut(now: now) == nil,
            let fetch = OpenMeteoHistory.planDay(hour: hour, now: now)
        else { return false }
        self.gaps[key] = now
        try await self.spending(fetch, at: request, service: service, http: http, countCall: countCall)
        return true
    }

    private func gapFailure(hour: Int, cell: String) -> Failure {
        let key = "\(cell)#\(hour / 24)"
        if self.gaps[key] == nil { self.gaps[key] = self.now() }
        let asked = self.gaps[key] ?? self.now()
        let wait = max(Self.gapRetry.seconds - self.now().timeIntervalSince(asked), 1)
        let error = WeatherError(
            kind: .notFound,
            message: "Open-Meteo's answer has a gap at that hour here (no weather); its day is asked again in "
                + "\(Int((wait / 3600).rounded(.up))) h, and nothing is invented meanwhile")
        return Failure(failure: .later(.seconds(Int64(wait.rounded(.up))), error))
    }

    /// Spends the fetch's weight and returns when, or fails with how long to wait (the entry waits safely).
    private func admit(_ fetch: OpenMeteoHistory.Fetch) async throws -> Date {
        let now = self.now()
        await self.loadBudget(now: now)
        if let wait = self.openMeteoBudget?.admit(weight: fetch.weight, now: now) {
            let error = WeatherError(
                kind: .rateLimited(retryAfter: wait),
                message: "holding back: Open-Meteo's free limits (history's half of them) are spent for now; "
                    + "asked again in \(Int(wait.seconds.rounded(.up))) s")
            throw Failure(failure: .later(wait, error))
        }
        return now
    }

    /// One request; its hours are kept under their span.
    private func fetch(
        _ url: String, _ fetch: OpenMeteoHistory.Fetch, cell: String, http: any HTTPClient, timeout: Duration,
        countCall: @Sendable () -> Void
    ) async throws {
        countCall()
        self.requests += 1
        let response: HTTPResponse
        do {
            response = try await http.get(HTTPRequest(url: url, timeout: timeout))
        } catch {
            throw WeatherError(kind: .unreachable, message: "Open-Meteo unreachable: \(error)", cause: error)
        }
        if let error = OpenMeteoAPI.error(for: response, now: self.now()) {
            // A 400 is Open-Meteo's word on this request (a date it has no data for, a parameter out of range): final
            // for the entry, with its reason, and not the source's outage.
            if response.status == 400 { throw Failure(failure: .unavailable(.refused(error.message))) }
            throw error
        }
        var hours = try OpenMeteoHistory.decode(response.body)
        // The forecast API's hours after now are forecasts, not what happened: not kept as history.
        if fetch.service == .forecast {
            guard let past = hours.ending(at: Int(self.now().timeIntervalSince1970 / 3600) - 1) else { return }
            hours = past
        }
        self.logger.info(
            "kept Open-Meteo's hours",
            metadata: ["cell": "\(cell)", "fetch": "\(fetch)", "weight": "\(fetch.weight)", "hours": "\(hours.count)"])
        await self.store.keep(period: hours.encoded, cell: cell, span: hours.span)
        self.remember(cell, hours)
        // The answer's megabyte and its parse are freed: give the pages back rather than keep them for the next.
        ProcessMemory.trim()
    }

    /// The hours kept for `cell` that hold `hour`: decoded ones first, else read from the store.
    private func hours(cell: String, hour: Int) async -> HourlySeries? {
        if let kept = self.decoded.last(where: { $0.cell == cell && $0.hours.span.contains(hour) }) {
            return kept.hours
        }
        guard let body = await self.store.period(cell: cell, hour: hour),
            let hours = HourlySeries(encoded: body), hours.span.contains(hour)
        else { return nil }
        self.remember(cell, hours)
        return hours
    }

    /// Keeps the last four series read (a year of hours is about 420 KB).
    private func remember(_ cell: String, _ hours: HourlySeries) {
        self.decoded.append((cell, hours))
        if self.decoded.count > 4 { self.decoded.removeFirst() }
    }

    // MARK: OpenWeather's timemachine

    private func timemachineWeather(
        at request: RequestPosition, hour: Int, moment: Date, client: OpenWeatherClient
    ) async throws -> Weather {
        let cell = request.cell
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
                throw Failure(failure: .later(wait, error))
            }
            if let shut = self.shut(now: now) { throw shut }
            await self.store.countCall(day: self.budget.day)
            self.requests += 1
            do {
                body = try await client.timemachineAnswer(at: request, time: moment)
                self.answered()
            } catch {
                if case .invalidAPIKey = error.kind {
                    self.refusal = error.message
                    self.logger.error("no weather for back-dated entries", metadata: ["reason": "\(error.message)"])
                    throw Failure(failure: .unavailable(.refused(error.message)))
                }
                throw error
            }
            await self.store.keep(body, cell: cell, hour: hour)
        }
        return try OpenWeatherAPI.decodeTimemachine(
            HTTPResponse(status: 200, body: body), units: client.configuration.units)
    }

    /// The entry's own position, else where the providers that know the past say the machine was then.
    private func position(for request: HistoryRequest, at moment: Date) async -> Position? {
        if let own = request.position { return own }
        return await self.chain.locate(at: moment)
    }
}
