/// The inbox's policy: which entries to stamp, when, with which weather, and what each result means. Pure: events
/// go in through `receive(_:)`, actions come out, and time is read from an injected clock. `InboxService` performs
/// the actions against the filesystem, the weather sources and the logs; `FileStamper` (the `stamp` command) drives
/// the same machine, so batching, waiting and retrying exist once.
///
/// Each entry the machine holds has one `EntryState` in one map (`entries`): it is in one place at a time because the
/// type says so. The orders (the queue, history's turn, …) are indexes over that map, each place carrying its ticket
/// in its order, so an index can never put an entry anywhere its state does not say. Everything pauses while there
/// is no weather or the disk refuses writes, each with its own backoff.
package struct InboxStateMachine<C: Clock>: Sendable where C.Duration == Duration, C: Sendable {
    package let configuration: Configuration
    let clock: C

    /// Every entry the machine holds or remembers something about, by name.
    var entries: [String: EntryState] = [:]
    /// Names past `intakeLimit`, not in the map yet: they wait for their turn only.
    var intake = Intake()
    /// The orders of the places that have one (`Line`); an entry's ticket in its place says it is still there.
    var queue = TicketOrder()
    var weatherOrder = TicketOrder()
    var historicalOrder = TicketOrder()
    /// History's sub-machine: whose turn it is to be asked, and how many asks are out.
    var history: HistoryTurns
    var nextTicket = 0
    /// How many entries are in each kind of place, kept by `update` (the shell reads them after every event).
    var counts = Counts()

    var batchesInFlight = 0
    /// Entries through batches since the memory was last given back (`.giveBackMemory`).
    var stampedSinceGivenBack = 0
    /// Batches through since the index's text was last merged (`.mergeIndex`).
    var batchesSinceMerged = 0
    /// Names a long listing queued before any weather came, not yet sent in a batch: they may be read without
    /// waiting for the first weather (`readsBeforeTheFirstWeather`). An allowance, not a place: arrivals never add
    /// to it, and it ends with the first weather.
    var listedBeforeWeather = 0
    /// Where the machine itself is: its look-over, running, halted, stopping.
    var lifecycle = Lifecycle.running
    /// Whether a listing runs, and whether another was asked for meanwhile.
    var listing = Listing.idle
    var weather: CurrentWeather
    var writes: Writes
    var notices = Notices()
    /// The earliest wake-up asked for and not yet heard.
    var wakeUpAt: C.Instant?
    /// Whether settled versions are kept: from the configuration, and from the moment polling starts.
    var remembersSettled: Bool

    enum Listing { case idle, running, runningAndAskedAgain }

    package init(configuration: Configuration, clock: C) {
        self.configuration = configuration
        self.clock = clock
        self.remembersSettled = configuration.pollInterval != nil
        self.weather = CurrentWeather(backoff: configuration.weatherBackoff)
        self.writes = Writes(backoff: configuration.writeBackoff)
        self.history = HistoryTurns(limit: configuration.historyInFlight)
    }

    // MARK: The one entry point

    /// Takes one input and returns what the shell must do.
    ///
    /// Compiled for the daemon's clock too (`@_specialize`): the machine is generic over its clock and lives in
    /// another module than its shell, which therefore ran it unspecialized, every copy of an entry's state through
    /// the runtime's value witnesses and generic metadata looked up at each call: a tenth of a burst's instructions.
    @_specialize(exported:true,where C == ContinuousClock)
    package mutating func receive(_ input: Input) -> [Action] {
        switch input {
        case .start: return self.start()
        case .arrived(let names): return self.namesArrived(names) + self.proceed()
        case .rescan: return self.rescanRequested()
        case .watchesExhausted: return self.watchesExhausted()
        case .listed(let candidates, let present): return self.listed(candidates: candidates, present: present)
        case .weatherArrived(let tag): return self.weatherArrived(tag)
        case .weatherFailed(let error, let retryAfter): return self.weatherFailed(error, retryAfter: retryAfter)
        case .historyArrived(let name, let tag): return self.historyArrived(name, tag)
        case .historyFailed(let name, let failure): return self.historyFailed(name, failure)
        case .batchFinished(let batch, let outcome, let arrived):
            return self.namesArrived(arrived) + self.batchFinished(batch, outcome)
        case .wokeUp: return self.wokeUp()
        case .integrityChecked: return self.integrityChecked()
        case .stop:
            self.lifecycle = .stopping
            return self.proceed()
        }
    }

    // MARK: State read by the shell

    /// Entries seen and not yet done: queued (or not taken in yet), deferred, held by an editor, in a batch, or
    /// waiting for weather.
    package var waiting: Int { self.counts.held + self.intake.count }

    /// Back-dated entries waiting for the weather of their time: asked about, answered and not yet stamped, or
    /// held back until history can be asked again (a budget spent, a service failing).
    package var waitingForHistory: Int { self.counts.history }

    /// Nothing held and nothing in flight.
    package var isIdle: Bool { self.counts.held == 0 && self.batchesInFlight == 0 && self.intake.isEmpty }

    /// Entries that need nothing until they change (stamped, already stamped, left alone), by version, for rescans
    /// to skip after one `lstat`; kept while polling (`remembersSettled`).
    package var settled: [String: FileVersion] { self.entries.compactMapValues(\.settled) }

    /// Why an entry the machine holds is not stamped yet, as its lane says it (`why`, `GET /v1/entries`); nil for
    /// one it does not hold (done, in a batch right now, or never seen).
    package func waitingReason(_ name: String) -> LaneState? {
        self.heldReason(name) ?? (self.intake.waiting(among: [name]).isEmpty ? nil : self.queuedReason)
    }

    /// Why an entry the map holds is not stamped yet (`waitingReason`, without looking in the intake).
    func heldReason(_ name: String) -> LaneState? {
        guard let entry = self.entries[name] else { return nil }
        // History's answer for good (no position, a place its clock contradicts): told here, since no batch
        // wrote it to the index, which still says it waits for history.
        if entry.place == nil, let reason = entry.leftAlone, case .backdated = reason { return .of(reason) }
        guard let place = entry.place else { return nil }
        let historyDetail = entry.historyFailure.map { Said(verbatim: "\($0.error)") }
        switch place {
        case .locked(let lock): return .held(by: lock)
        case .awaitingHistory, .historical:
            return LaneState(.backdated, .waitingForHistory, detail: historyDetail)
        case .deferred:
            if entry.historyFailure != nil {
                return LaneState(.backdated, .waitingForHistory, detail: historyDetail)
            }
            if let time = entry.datedAhead { return .datedAhead(time) }
            return entry.changedAttempts > 0
                ? .changing : LaneState(.waiting, .settling)
        case .awaitingWeather:
            return LaneState(.waiting, .noWeather, detail: self.weather.error.map { Said(verbatim: "\($0)") })
        case .inBatch:
            return nil
        case .queued:
            return self.queuedReason
        }
    }

    /// Why an entry waiting for its turn (queued, or in the intake) waits.
    var queuedReason: LaneState {
        if self.writes.isPaused {
            return LaneState(.waiting, .diskRefused, detail: self.writes.error.map { Said(verbatim: "\($0)") })
        }
        // (What a long listing found is read before the first weather comes: it waits for its turn only.)
        if self.weather.isPaused || (self.weather.last == nil && !self.readsBeforeTheFirstWeather) {
            return LaneState(.waiting, .noWeather, detail: self.weather.error.map { Said(verbatim: "\($0)") })
        }
        return .queued
    }

    // MARK: Events

    /// The service starts: list everything (the watch is already in place, so nothing is missed in between).
    mutating func start() -> [Action] {
        let polling = self.configuration.pollInterval.map { [Action.startPolling(every: $0)] } ?? []
        guard self.configuration.checksIntegrity else { return polling + self.rescanRequested() }
        self.lifecycle = .checkingIntegrity
        return polling + [.checkIntegrity]
    }

    /// The store was looked over (and replaced if it was damaged): the first listing fills it from the files.
    mutating func integrityChecked() -> [Action] {
        guard case .checkingIntegrity = self.lifecycle else { return self.proceed() }
        self.lifecycle = .running
        return self.rescanRequested() + self.proceed()
    }

    /// Names were written and closed, or moved in, or their editor's lock file went. Their settled versions no
    /// longer hold, and wherever they waited they are read again (written again: not held for weather or history
    /// as they were). With a settle time, each waits until no write has reached it for that long; one an editor had
    /// open waits at least `lockGrace`. Past `intakeLimit`, a name the map does not hold waits in the intake.
    mutating func namesArrived(_ names: [String]) -> [Action] {
        let now = self.clock.now
        var takenIn: [String] = []
        takenIn.reserveCapacity(min(names.count, self.configuration.intakeLimit))
        for name in names {
            guard self.takesInArrivals || self.holds(name) else {
                self.intake.arrived.append(name)
                continue
            }
            self.arrive(name, at: now)
            takenIn.append(name)
        }
        if let delay = self.configuration.noticeDelay { self.notices.arrived(takenIn, at: now, delay: delay) }
        return []
    }

    /// One name arrived (`namesArrived`), or is taken in from the intake as it would have been then.
    mutating func arrive(_ name: String, at now: C.Instant) {
        self.update(name) { entry, machine in
            entry.settled = nil
            var wait = machine.configuration.settle
            if case .locked = entry.place { wait = max(wait, machine.configuration.lockGrace) }
            let due = now.advanced(by: wait)
            switch entry.place {
            case .deferred(let until):
                // A deferred entry is looked at when its time comes, not before; a new write moves that time on.
                if wait > .zero, until < due { entry.place = .deferred(until: due) }
            case .inBatch(let again):
                // Looked at again once its batch is back: the latest write's settle time, or at once.
                entry.place = .inBatch(again: wait > .zero ? .at(max(again?.instant ?? due, due)) : .now)
            case .queued where wait == .zero:
                // Queued already: it keeps its turn.
                break
            default:
                entry.place = wait > .zero ? .deferred(until: due) : machine.queued(name)
            }
        }
    }

    /// Look at everything: at start, on a poll, after a queue overflow, after the folder came back.
    mutating func rescanRequested() -> [Action] {
        switch self.listing {
        case .idle:
            // During the start-up look-over, the first listing comes when it is done (`integrityChecked`).
            switch self.lifecycle {
            case .checkingIntegrity, .stopping: return []
            case .running, .halted: break
            }
            self.listing = .running
            return [.list(skippingUnchanged: self.remembersSettled ? self.settled : [:])]
        case .running, .runningAndAskedAgain:
            self.listing = .runningAndAskedAgain
            return []
        }
    }

    /// A listing came back: the names that may need work, and every name present (nil when unknown). A candidate
    /// is looked at unless it already waits for something (a time, weather, history); a locked one too: where
    /// nothing reports its lock file's going (a network filesystem), the poll is what finds the editor gone. Past
    /// `intakeLimit`, the candidates the map does not hold wait in the intake, each once with what the last listing
    /// left there.
    mutating func listed(candidates: [String], present: Set<String>?) -> [Action] {
        var actions: [Action] = []
        let again = self.listing == .runningAndAskedAgain
        self.listing = .idle
        let queuedBefore = self.counts.queued
        let limit = self.configuration.intakeLimit
        var takenIn: [String] = []
        takenIn.reserveCapacity(min(candidates.count, limit))
        var rest = NameLine()
        for name in candidates {
            guard self.counts.moving < limit || self.holds(name) else {
                rest.append(name)
                continue
            }
            self.list(name)
            takenIn.append(name)
        }
        // What the last listing left is kept with it, once: a folder this one could not read keeps its entries.
        self.intake.listed = self.intake.listed.isEmpty ? rest : NameLine.merging(self.intake.listed, rest)
        let queued = self.counts.queued - queuedBefore
        if self.weather.last == nil, queued >= self.configuration.longQueueBatchSize {
            self.listedBeforeWeather += queued
        }
        if let present, self.remembersSettled {
            // Names first, then the changes: changing the map while walking it would copy it whole.
            let gone = self.entries.compactMap { name, entry in
                entry.settled != nil && !present.contains(name) ? name : nil
            }
            for name in gone { self.update(name) { entry, _ in entry.settled = nil } }
        }
        // With an index, the candidates are handed to it as arrivals are, `noticeDelay` after the listing, and only
        // those that wait for something besides their turn then (`wokeUp`): the rest have, or will have, their rows
        // from their batches.
        if let delay = self.configuration.noticeDelay, self.lifecycle != .stopping {
            self.notices.arrived(takenIn, at: self.clock.now, delay: delay)
        }
        if again { actions += self.rescanRequested() }
        return actions + self.proceed()
    }

    /// One candidate of a listing (`listed`), or taken in from the intake as it would have been then.
    mutating func list(_ name: String) {
        self.update(name) { entry, machine in
            switch entry.place {
            case nil, .locked: entry.place = machine.queued(name)
            case .inBatch: entry.place = .inBatch(again: .now)
            case .queued, .deferred, .awaitingWeather, .awaitingHistory, .historical: break
            }
        }
    }

    /// The weather service answered: what waited for it goes on, in the order it came.
    mutating func weatherArrived(_ tag: WeatherTag) -> [Action] {
        self.weather.arrived(tag, at: self.clock.now)
        for name in self.drain(.weather, { if case .awaitingWeather($0) = $1 { true } else { false } }) {
            self.update(name) { entry, machine in entry.place = machine.queued(name) }
        }
        return self.proceed()
    }

    /// The weather service could not give a tag. `retryAfter` is the service's own backoff when it has one (the
    /// next call may go out then); without one the machine backs off itself.
    mutating func weatherFailed(_ error: any Error, retryAfter: Duration?) -> [Action] {
        let delay = self.weather.failed(error, retryAfter: retryAfter, at: self.clock.now)
        guard self.configuration.waitsForWeather else {
            // Nothing waits (`weathertag stamp`): what needs weather is reported, the rest is sorted without it.
            var reports: [Action] = []
            for name in self.drain(.weather, { if case .awaitingWeather($0) = $1 { true } else { false } }) {
                self.update(name) { entry, _ in entry.place = nil }
                reports.append(.report(.entry(name, .noWeather(error), Telling())))
            }
            return reports + self.proceed()
        }
        let report = Report.waitingForWeather(waiting: self.waiting, retryIn: delay, error: error)
        return [.report(report)] + self.proceed()
    }

    /// A wake-up asked for with `.wakeUp(at:)` came (or any earlier one): take what is due.
    mutating func wokeUp() -> [Action] {
        let now = self.clock.now
        if let wakeUpAt, wakeUpAt <= now { self.wakeUpAt = nil }
        self.weather.wokeUp(at: now)
        self.writes.wokeUp(at: now)
        if self.counts.deferred > 0 {
            let due = self.entries.compactMap { name, entry -> String? in
                guard case .deferred(let until) = entry.place, until <= now else { return nil }
                return name
            }
            for name in due { self.update(name) { entry, machine in entry.place = machine.queued(name) } }
        }
        var actions: [Action] = []
        if self.lifecycle != .stopping, let names = self.notices.take(at: now) {
            let waiting = self.waitingBesidesTheirTurn(names)
            if !waiting.isEmpty { actions.append(.notice(waiting)) }
        }
        return actions + self.proceed()
    }

    /// Some folders could not be watched (inotify's watches ran out): they must be polled. Unless the shell
    /// polls already (`remembersSettled` says it does), it starts; rescans become frequent, so settled entries are
    /// remembered from now on to skip them.
    mutating func watchesExhausted() -> [Action] {
        guard !self.remembersSettled else { return [] }
        self.remembersSettled = true
        return [.startPolling(every: InboxConfiguration.fallbackPollInterval)]
    }

}
