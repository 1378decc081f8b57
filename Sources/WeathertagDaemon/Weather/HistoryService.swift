import FoundationEssentials
import Logging
import WeathertagCore

/// The weather of a back-dated entry's own time (`history.enabled`), from the weather source `history.source` names
/// (a `HistorySource`: Open-Meteo's archive by default, OpenWeather's timemachine, or any source that can answer for
/// the past). The same for every source:
///
/// - where: the entry's own position (its front matter), else the first provider that knows the past (`fixed`), as
///   `privacy` lets it leave;
/// - what is kept: each answer's hours in a `HistoryStore` (the state database) by source, place cell (about 1 km)
///   and span, so nothing is asked twice; the last answers read stay decoded;
/// - how often: one request at a time, within one `CallBudget` of the source's `HistoryLimits` that outlives restarts
///   (a failed request is refunded), behind one `SourceGate` per outage (its `Retry-After` obeyed);
/// - what cannot be had: an hour before the source's archive, a request the source refused (a 400: final, with its
///   reason), a key it refused (said once; nothing more is asked until the configuration is reloaded), a gap in a
///   kept answer (asked again after `gapRetry`, never filled with invented weather).
package actor HistoryService {
    /// What a request comes to.
    package enum Answer: Sendable {
        case tag(WeatherTag)
        case failed(HistoryFailure)
    }

    /// For `/v1/status`: what history has cost and what is left.
    package struct Snapshot: Sendable, Equatable {
        /// The source's type (`open-meteo`).
        package var source: String
        /// Requests made by this process.
        package var requests: Int
        /// Calls left of the tightest window that matters: the day's or the month's (weighted as the source
        /// weighs them).
        package var budgetLeft: Double?
    }

    private let source: any HistorySource
    private let limits: HistoryLimits
    private let units: Units
    private let lang: String
    /// From an answer to the tag shown: the step current weather shares.
    private let composer: TagComposer
    private let chain: LocationChain
    private let store: any HistoryStore
    private let logger: Logger
    private let privacy: PrivacyPolicy
    private let now: @Sendable () -> Date
    /// This machine's zone, and a place's name and zone where the towns index or a GeoNames folder knows them: what
    /// an entry's own clock is compared with before it is lent this machine's place (`BorrowedPlace`), and what
    /// names the place of a back-dated stamp, as of a current one.
    private let machineZone: Zone
    private let placeName: @Sendable (Position) async -> PlaceName?
    /// Loaded from the store on first use, so that a restart remembers what was spent.
    private var budget: CallBudget?
    /// The source's word that it will not answer with this key (a 401).
    private var refusal: String?
    /// The source's right to be asked: one backoff per outage (its `Retry-After` obeyed), not per waiting entry.
    /// Shut, entries wait for it without asking; kept hours are read meanwhile.
    private var gate: SourceGate
    /// Gaps in kept answers (an hour without weather), by place cell and day, and when they were last asked about:
    /// asked again after `gapRetry`, never filled with invented weather.
    private var gaps: [String: Date] = [:]
    package static let gapRetry: Duration = .seconds(6 * 3600)
    private var requests = 0
    /// The last answers read, decoded (a year of hours is read once, not once per entry).
    private var decoded: [(cell: String, hours: any HistoryHours)] = []
    /// One fetch at a time: entries wait for it and then read what it kept (the budget paces fetches anyway, and a
    /// year's answer is a megabyte to read).
    private var fetching: Task<Void, Never>?

    package init(
        source: any HistorySource,
        maximumCallsPerDay: Int?,
        units: Units,
        lang: String,
        chain: LocationChain,
        store: any HistoryStore,
        logger: Logger,
        privacy: PrivacyPolicy = .exact,
        machineZone: Zone = .current,
        placeName: @escaping @Sendable (Position) async -> PlaceName? = { _ in nil },
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.machineZone = machineZone
        self.placeName = placeName
        self.source = source
        self.limits = source.historyLimits(maximumPerDay: maximumCallsPerDay)
        self.units = units
        self.lang = lang
        self.chain = chain
        self.store = store
        self.logger = logger
        self.privacy = privacy
        self.composer = TagComposer(privacy: privacy, lang: lang)
        self.now = now
        self.gate = SourceGate(
            source: source.type, maximumPerMinute: .max, backoff: Backoff(base: .seconds(2), ceiling: .seconds(300)))
    }

    /// What history has spent and what is left, as the store remembers it from earlier runs too (read at the first
    /// question, so that `status` right after a restart says what the database holds).
    package func snapshot() async -> Snapshot {
        let now = self.now()
        let budget = await self.loadBudget(now: now)
        return Snapshot(source: self.source.type, requests: self.requests, budgetLeft: budget.left(now: now))
    }

    /// The spends of the last 30 days, from the store, once.
    @discardableResult
    private func loadBudget(now: Date) async -> CallBudget {
        if let budget { return budget }
        let spent = await self.store.spends(source: self.source.type, since: now.addingTimeInterval(-30 * 86_400))
        // Places fetched at once all get here first: only the first load counts, or each would spend against a
        // budget without the others' spends.
        if let budget { return budget }
        let loaded = CallBudget(limits: self.limits.calls, spent: spent)
        self.budget = loaded
        return loaded
    }

    package func tag(for request: HistoryRequest) async -> Answer {
        if let refusal { return .failed(.unavailable(.refused(refusal))) }
        let moment = request.moment
        let found: (position: Position, borrowed: Bool)
        switch await self.position(for: request, at: moment) {
        case .success(let answer): found = answer
        case .failure(let failure): return .failed(failure.failure)
        }
        var position = found.position
        position.takenAt = moment
        // The services and the kept answers see no more than `privacy` allows; the block shows what it allows.
        let place = self.privacy.requestPosition(position)
        let hour = Int((moment.timeIntervalSince1970 / 3600).rounded(.down))
        if let why = self.source.unavailable(hour: hour) { return .failed(.unavailable(.refused(why))) }
        do {
            var weather = try await self.weather(at: place, hour: hour, moment: moment)
            // A place lent by this machine whose zone was not known before: the answer names it.
            if found.borrowed,
                let elsewhere = BorrowedPlace.contradiction(
                    request.time, machineZone: self.machineZone, place: position.name,
                    placeZone: weather.zone.flatMap(Zone.named) ?? weather.utcOffset.map { .fixed(secondsFromGMT: $0) })
            {
                return .failed(.unavailable(.elsewhere(elsewhere)))
            }
            weather.source = self.source.type
            // No icon: the source's codes name no image kept for the past.
            let answer = TagComposer.Answer(weather: weather, fetchedAt: self.now(), kind: .historical)
            return .tag(self.composer.tag(answer, at: position, place: await self.placeName(position), iconFile: nil))
        } catch let failure as Failure {
            return .failed(failure.failure)
        } catch let error as WeatherError {
            return .failed(self.failed(error))
        } catch {
            return .failed(self.failed(WeatherError(kind: .unreachable, message: "\(error)", cause: error)))
        }
    }

    /// A failure that is not a retry after the backoff.
    private struct Failure: Error {
        var failure: HistoryFailure
    }

    private static let noPosition = Failure(failure: .unavailable(.noPosition))

    /// The weather of `hour` at `place`: from what is kept, else after one fetch (the running one, or one planned
    /// now), else the reason it waits.
    private func weather(at place: RequestPosition, hour: Int, moment: Date) async throws -> Weather {
        let cell = place.cell
        var fetched = false
        while true {
            if let hours = await self.hours(cell: cell, hour: hour) {
                if let weather = hours.weather(hour: hour, units: self.units, lang: self.lang) { return weather }
                // A gap in what was kept: asked again for that day later, never filled in.
                guard !fetched, try await self.askAgainForGap(at: place, hour: hour) else {
                    throw self.gapFailure(hour: hour, cell: cell)
                }
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
                throw WeatherError(
                    kind: .notFound, message: "\(self.source.name) has no hours yet for that time here")
            }
            if let shut = self.shut(now: self.now()) { throw shut }
            let task = Task<Result<Void, any Error>, Never> {
                do {
                    let kept = await self.store.spans(source: self.source.type, cell: cell)
                    guard let fetch = self.source.plan(hour: hour, moment: moment, now: self.now(), kept: kept) else {
                        throw WeatherError(kind: .notFound, message: "the entry's time is not past yet")
                    }
                    try await self.spending(fetch, at: place)
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

    /// Asks for `fetch` within the budget: the weight is spent before the request and given back if it fails (the
    /// service counts no call it did not answer); only answered requests are kept as spent across restarts.
    private func spending(_ fetch: any HistoryFetch, at place: RequestPosition) async throws {
        let spentAt = try await self.admit(fetch)
        let hours: (any HistoryHours)?
        self.requests += 1
        do {
            hours = try await self.source.history(fetch, at: place, now: self.now())
        } catch {
            self.budget?.refund(weight: fetch.weight, at: spentAt)
            switch error.kind {
            case .requestRefused:
                throw Failure(failure: .unavailable(.refused(error.message)))
            case .unauthorized:
                self.refusal = error.message
                self.logger.error("no weather for back-dated entries", metadata: ["reason": "\(error.message)"])
                throw Failure(failure: .unavailable(.refused(error.message)))
            default:
                throw error
            }
        }
        self.answered()
        await self.store.record(CallBudget.Spend(at: spentAt, weight: fetch.weight), source: self.source.type)
        guard let hours else { return }
        self.logger.info(
            "kept a source's hours",
            metadata: [
                "source": "\(self.source.type)", "cell": "\(place.cell)", "fetch": "\(fetch)",
                "weight": "\(fetch.weight)", "hours": "\(hours.span.count)",
            ])
        await self.store.keep(hours: hours.encoded, source: self.source.type, cell: place.cell, span: hours.span)
        self.remember(place.cell, hours)
        // The answer and its parse are freed: give the pages back rather than keep them for the next.
        ProcessMemory.trim()
    }

    /// Spends the fetch's weight and returns when, or fails with how long to wait (the entry waits safely).
    private func admit(_ fetch: any HistoryFetch) async throws -> Date {
        let now = self.now()
        var budget = await self.loadBudget(now: now)
        let wait = budget.admit(weight: fetch.weight, now: now)
        self.budget = budget
        if let wait {
            let error = WeatherError(
                kind: .rateLimited(retryAfter: wait),
                message: "holding back: \(self.limits.name) are spent for now; asked again in "
                    + "\(Int(wait.seconds.rounded(.up))) s")
            throw Failure(failure: .later(wait, error))
        }
        return now
    }

    /// A gap at `hour` in the kept answer: the first time it is found, and again each `gapRetry` after, its day is
    /// asked for again (true: asked, look again); otherwise false, and the entry waits.
    private func askAgainForGap(at place: RequestPosition, hour: Int) async throws -> Bool {
        let now = self.now()
        let key = "\(place.cell)#\(hour / 24)"
        // Found now: asked again later, not at once (the answer is fresh).
        guard let asked = self.gaps[key] else {
            self.gaps[key] = now
            return false
        }
        guard now.timeIntervalSince(asked) >= Self.gapRetry.seconds, self.shut(now: now) == nil,
            let fetch = self.source.planAgain(hour: hour, now: now)
        else { return false }
        self.gaps[key] = now
        try await self.spending(fetch, at: place)
        return true
    }

    private func gapFailure(hour: Int, cell: String) -> Failure {
        let key = "\(cell)#\(hour / 24)"
        if self.gaps[key] == nil { self.gaps[key] = self.now() }
        let asked = self.gaps[key] ?? self.now()
        let wait = max(Self.gapRetry.seconds - self.now().timeIntervalSince(asked), 1)
        let error = WeatherError(
            kind: .notFound,
            message: "\(self.source.name)'s answer has a gap at that hour here (no weather); its day is asked again "
                + "in \(Int((wait / 3600).rounded(.up))) h, and nothing is invented meanwhile")
        return Failure(failure: .later(.seconds(Int64(wait.rounded(.up))), error))
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

    /// The source answered: its gate opens (and the log says so once after an outage).
    private func answered() {
        if self.gate.succeeded() {
            self.logger.notice("history answers again", metadata: ["source": "\(self.gate.source)"])
        }
    }

    /// The hours kept for `cell` that hold `hour`: decoded ones first, else read from the store.
    private func hours(cell: String, hour: Int) async -> (any HistoryHours)? {
        if let kept = self.decoded.last(where: { $0.cell == cell && $0.hours.span.contains(hour) }) {
            return kept.hours
        }
        guard let body = await self.store.hours(source: self.source.type, cell: cell, hour: hour),
            let hours = self.source.hours(kept: body), hours.span.contains(hour)
        else { return nil }
        self.remember(cell, hours)
        return hours
    }

    /// Keeps the last four answers read (a year of hours is about 420 KB).
    private func remember(_ cell: String, _ hours: any HistoryHours) {
        self.decoded.append((cell, hours))
        if self.decoded.count > 4 { self.decoded.removeFirst() }
    }

    /// The entry's own position, else where the providers that know the past say the machine was then.
    /// Where the entry was written: its own position; else, for an entry that names its own offset, a provider
    /// that knows where its author was, then this machine's place if the entry's clock does not contradict it
    /// (`borrowed`: checked again against the answer's zone when the place's zone is not known here); else the
    /// providers in their order.
    private func position(
        for request: HistoryRequest, at moment: Date
    ) async -> Result<(position: Position, borrowed: Bool), Failure> {
        if let own = request.position { return .success((own, false)) }
        guard request.time.namesItsOffset else {
            guard let position = await self.chain.locate(at: moment) else { return .failure(Self.noPosition) }
            return .success((position, false))
        }
        if let author = await self.chain.locate(at: moment, followingTheAuthor: true) {
            return .success((author, false))
        }
        guard let lent = await self.chain.locate(at: moment) else { return .failure(Self.noPosition) }
        let zone = await self.placeName(lent)?.zone.flatMap(Zone.named)
        if let elsewhere = BorrowedPlace.contradiction(
            request.time, machineZone: self.machineZone, place: lent.name, placeZone: zone)
        {
            // Known to contradict: told now. Not known: the answer's zone decides.
            if zone != nil { return .failure(Failure(failure: .unavailable(.elsewhere(elsewhere)))) }
            return .success((lent, true))
        }
        return .success((lent, false))
    }
}
