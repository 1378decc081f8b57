/// The inbox's policy: which entries to stamp, when, with which weather, and what each result means. Pure: events
/// go in through `receive(_:)`, actions come out, and time is read from an injected clock. `InboxService` performs
/// the actions against the filesystem, the weather sources and the logs; `FileStamper` (the `stamp` command) drives
/// the same machine, so batching, waiting and retrying exist once.
///
/// Each entry the machine holds has one `EntryState` in one map (`entries`): it is in one place at a time because the
/// type says so. The orders (the queue, history's turn, …) are indexes over that map, each place carrying its ticket
/// in its order, so an index can never put an entry anywhere its state does not say. Everything pauses while there
/// is no weather or the disk refuses writes, each with its own backoff.
public struct InboxStateMachine<C: Clock>: Sendable where C.Duration == Duration, C: Sendable {
    public let configuration: Configuration
    private let clock: C

    /// Every entry the machine holds or remembers something about, by name.
    private var entries: [String: EntryState] = [:]
    /// The orders of the places that have one; an entry's ticket in its place says it is still there.
    private var queue = TicketOrder()
    private var weatherOrder = TicketOrder()
    private var historicalOrder = TicketOrder()
    /// History's sub-machine: whose turn it is to be asked, and how many asks are out.
    private var history: HistoryTurns
    private var nextTicket = 0
    /// How many entries are in each kind of place, kept by `update` (the shell reads them after every event).
    private var counts = Counts()

    private var batchesInFlight = 0
    /// The tag stamped with last and when it came: reused for `tagReuse`, so entries arriving together share it.
    private var tag: (tag: WeatherTag, at: C.Instant)?
    private var fetchingWeather = false
    private var listing: Listing = .idle
    /// Nothing is stamped before this (no weather, or writes failing), and why.
    private var pause: (until: C.Instant, cause: PauseCause)?
    private var weatherBackoff: Backoff
    private var writeBackoff: Backoff
    /// The write error being waited out, and what stays the same when it comes again (reported once per kind).
    private var writeFailure: (error: any Error, kind: FailureKind)?
    /// The earliest wake-up asked for and not yet heard.
    private var wakeUpAt: C.Instant?
    private var stopRequested = false
    /// The thread pool refused work: the process is stopping, start nothing more.
    private var halted = false
    /// Whether settled versions are kept: from the configuration, and from the moment polling starts.
    private var remembersSettled: Bool
    /// Why weather could not be had, the last time it was asked for (cleared when it comes).
    private var weatherError: (any Error)?
    /// Names arrived and not yet handed to the diary index, and when they are due (`noticeDelay`).
    private var unnoticed: [String] = []
    private var noticeDue: C.Instant?
    /// The store's look-over at start-up (`checksIntegrity`): nothing is listed or stamped while it runs.
    private var checkingIntegrity = false

    private enum Listing { case idle, running, runningAndAskedAgain }
    private enum PauseCause { case weather, writes }

    public init(configuration: Configuration, clock: C) {
        self.configuration = configuration
        self.clock = clock
        self.remembersSettled = configuration.remembersSettled
        self.weatherBackoff = configuration.weatherBackoff
        self.writeBackoff = configuration.writeBackoff
        self.history = HistoryTurns(limit: configuration.historyInFlight)
    }

    // MARK: The one entry point

    /// Takes one input and returns what the shell must do.
    public mutating func receive(_ input: Input) -> [Action] {
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
            self.stopRequested = true
            return self.proceed()
        }
    }

    // MARK: State read by the shell

    /// Entries seen and not yet done: queued, deferred, held by an editor, in a batch, or waiting for weather.
    public var waiting: Int { self.counts.held }

    /// Back-dated entries waiting for the weather of their time: asked about, answered and not yet stamped, or
    /// held back until history can be asked again (a budget spent, a service failing).
    public var waitingForHistory: Int { self.counts.history }

    /// Nothing held and nothing in flight.
    public var isIdle: Bool { self.counts.held == 0 && self.batchesInFlight == 0 }

    /// Entries that need nothing until they change (stamped, already stamped, left alone), by version, for rescans
    /// to skip after one `lstat`; kept while polling (`remembersSettled`).
    public var settled: [String: FileVersion] { self.entries.compactMapValues(\.settled) }

    /// Why an entry the machine holds is not stamped yet, as its lane says it (`why`, `GET /v1/entries`); nil for
    /// one it does not hold (done, in a batch right now, or never seen).
    public func waitingReason(_ name: String) -> LaneState? {
        guard let entry = self.entries[name] else { return nil }
        // History's answer for good (no position, a place its clock contradicts): told here, since no batch
        // wrote it to the index, which still says it waits for history.
        if entry.place == nil, let reason = entry.leftAlone, case .backdated = reason { return .of(reason) }
        guard let place = entry.place else { return nil }
        let historyDetail = entry.historyFailure.map { "\($0.error)" }
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
            return LaneState(.waiting, .noWeather, detail: self.weatherError.map { "\($0)" })
        case .inBatch:
            return nil
        case .queued:
            switch self.pause?.cause {
            case .writes: return LaneState(.waiting, .diskRefused, detail: self.writeFailure.map { "\($0.error)" })
            case .weather: return LaneState(.waiting, .noWeather, detail: self.weatherError.map { "\($0)" })
            case nil:
                return self.tag == nil
                    ? LaneState(.waiting, .noWeather, detail: self.weatherError.map { "\($0)" }) : .queued
            }
        }
    }

    // MARK: Events

    /// The service starts: list everything (the watch is already in place, so nothing is missed in between).
    private mutating func start() -> [Action] {
        guard self.configuration.checksIntegrity else { return self.rescanRequested() }
        self.checkingIntegrity = true
        return [.checkIntegrity]
    }

    /// The store was looked over (and replaced if it was damaged): the first listing fills it from the files.
    private mutating func integrityChecked() -> [Action] {
        guard self.checkingIntegrity else { return self.proceed() }
        self.checkingIntegrity = false
        return self.rescanRequested() + self.proceed()
    }

    /// Names were written and closed, or moved in, or their editor's lock file went. Their settled versions no
    /// longer hold, and wherever they waited they are read again (written again: not held for weather or history
    /// as they were). With a settle time, each waits until no write has reached it for that long; one an editor had
    /// open waits at least `lockGrace`.
    private mutating func namesArrived(_ names: [String]) -> [Action] {
        let now = self.clock.now
        if let delay = self.configuration.noticeDelay, !names.isEmpty {
            if self.noticeDue == nil { self.noticeDue = now.advanced(by: delay) }
            self.unnoticed += names
        }
        for name in names {
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
        return []
    }

    /// Look at everything: at start, on a poll, after a queue overflow, after the folder came back.
    private mutating func rescanRequested() -> [Action] {
        switch self.listing {
        case .idle:
            // During the start-up look-over, the first listing comes when it is done (`integrityChecked`).
            guard !self.stopRequested, !self.checkingIntegrity else { return [] }
            self.listing = .running
            return [.list(skippingUnchanged: self.remembersSettled ? self.settled : [:])]
        case .running, .runningAndAskedAgain:
            self.listing = .runningAndAskedAgain
            return []
        }
    }

    /// A listing came back: the names that may need work, and every name present (nil when unknown). A candidate
    /// is looked at unless it already waits for something (a time, weather, history); a locked one too: where
    /// nothing reports its lock file's going (a network filesystem), the poll is what finds the editor gone.
    private mutating func listed(candidates: [String], present: Set<String>?) -> [Action] {
        var actions: [Action] = []
        let again = self.listing == .runningAndAskedAgain
        self.listing = .idle
        for name in candidates {
            self.update(name) { entry, machine in
                switch entry.place {
                case nil, .locked: entry.place = machine.queued(name)
                case .inBatch: entry.place = .inBatch(again: .now)
                case .queued, .deferred, .awaitingWeather, .awaitingHistory, .historical: break
                }
            }
        }
        if let present, self.remembersSettled {
            // Names first, then the changes: changing the map while walking it would copy it whole.
            let gone = self.entries.compactMap { name, entry in
                entry.settled != nil && !present.contains(name) ? name : nil
            }
            for name in gone { self.update(name) { entry, _ in entry.settled = nil } }
        }
        if again { actions += self.rescanRequested() }
        return actions + self.proceed()
    }

    /// The weather service answered: what waited for it goes on, in the order it came.
    private mutating func weatherArrived(_ tag: WeatherTag) -> [Action] {
        self.fetchingWeather = false
        self.tag = (tag, self.clock.now)
        self.weatherError = nil
        self.weatherBackoff.reset()
        if self.pause?.cause == .weather { self.pause = nil }
        for name in self.drain(\.weatherOrder, { if case .awaitingWeather($0) = $1 { true } else { false } }) {
            self.update(name) { entry, machine in entry.place = machine.queued(name) }
        }
        return self.proceed()
    }

    /// The weather service could not give a tag. `retryAfter` is the service's own backoff when it has one (the
    /// next call may go out then); without one the machine backs off itself.
    private mutating func weatherFailed(_ error: any Error, retryAfter: Duration?) -> [Action] {
        self.fetchingWeather = false
        let delay = retryAfter ?? self.weatherBackoff.next()
        self.pause = (self.clock.now.advanced(by: delay), .weather)
        self.weatherError = error
        guard self.configuration.waitsForWeather else {
            // Nothing waits (`weathertag stamp`): what needs weather is reported, the rest is sorted without it.
            var reports: [Action] = []
            for name in self.drain(\.weatherOrder, { if case .awaitingWeather($0) = $1 { true } else { false } }) {
                self.update(name) { entry, _ in entry.place = nil }
                reports.append(.report(.noWeather(name, error: error)))
            }
            return reports + self.proceed()
        }
        let report = Report.waitingForWeather(waiting: self.waiting, retryIn: delay, error: error)
        return [.report(report)] + self.proceed()
    }

    /// A batch came back from the disk; nil when the thread pool refused it (the process is stopping).
    private mutating func batchFinished(_ batch: Batch, _ outcome: BatchOutcome?) -> [Action] {
        self.batchesInFlight -= 1
        guard let outcome else {
            // Untouched: they wait in the inbox for the next start.
            for name in batch.names { self.update(name) { entry, machine in entry.place = machine.queued(name) } }
            self.halted = true
            return self.proceed()
        }
        var actions: [Action] = []
        for (name, result) in outcome.results {
            actions += self.record(name, result, tag: batch.tag)
        }
        if let (name, error) = outcome.failure {
            actions += self.writeFailed(name, error, unprocessed: outcome.unprocessed)
        } else if self.writeFailure != nil, !outcome.results.isEmpty {
            self.writeFailure = nil
            self.writeBackoff.reset()
            actions.append(.report(.writingWorksAgain))
        }
        // A name the batch said nothing about is not held any more (or is looked at again if it was written again).
        for name in batch.names {
            guard case .inBatch(let again) = self.entries[name]?.place else { continue }
            self.update(name) { entry, machine in entry.place = again.map { machine.place(name, again: $0) } }
        }
        return actions + self.proceed()
    }

    /// The weather of a back-dated entry's time came: it is stamped with it.
    private mutating func historyArrived(_ name: String, _ tag: WeatherTag) -> [Action] {
        self.history.answered()
        guard case .awaitingHistory = self.entries[name]?.place else { return self.askHistory() + self.proceed() }
        self.update(name) { entry, machine in
            entry.historyFailure = nil
            entry.place = .historical(tag, ticket: machine.ticket(for: name, in: \.historicalOrder))
        }
        // History answers again: what waits for it after an outage is looked at now, not at its backoff's end.
        if self.counts.deferredForHistory > 0 {
            let waiting = self.entries.compactMap { name, entry -> String? in
                guard case .deferred = entry.place, entry.historyFailure != nil else { return nil }
                return name
            }
            for name in waiting { self.update(name) { entry, machine in entry.place = machine.queued(name) } }
        }
        return self.askHistory() + self.proceed()
    }

    /// The weather of a back-dated entry's time cannot be had: for good (it is left alone until it changes), or
    /// for now (it is looked at again later).
    private mutating func historyFailed(_ name: String, _ failure: HistoryFailure) -> [Action] {
        self.history.answered()
        guard case .awaitingHistory(let request, _) = self.entries[name]?.place else {
            return self.askHistory() + self.proceed()
        }
        switch failure {
        case .unavailable(let why):
            var told: Action?
            self.update(name) { entry, machine in
                entry.historyFailure = nil
                entry.place = nil
                told = machine.leftAlone(&entry, name, .backdated(request.time, why))
            }
            return [told].compactMap { $0 } + self.askHistory() + self.proceed()
        case .later(let delay, let error):
            let kind = FailureKind(error)
            var firstTime = false
            self.update(name) { entry, machine in
                firstTime = entry.historyFailure?.kind != kind
                entry.historyFailure = (error, kind)
                entry.place = .deferred(until: machine.clock.now.advanced(by: delay))
            }
            return [.report(.waitingForHistory(name, retryIn: delay, error: error, firstTime: firstTime))]
                + self.askHistory() + self.proceed()
        }
    }

    /// A wake-up asked for with `.wakeUp(at:)` came (or any earlier one): take what is due.
    private mutating func wokeUp() -> [Action] {
        let now = self.clock.now
        if let wakeUpAt, wakeUpAt <= now { self.wakeUpAt = nil }
        if let pause, pause.until <= now { self.pause = nil }
        if self.counts.deferred > 0 {
            let due = self.entries.compactMap { name, entry -> String? in
                guard case .deferred(let until) = entry.place, until <= now else { return nil }
                return name
            }
            for name in due { self.update(name) { entry, machine in entry.place = machine.queued(name) } }
        }
        var actions: [Action] = []
        if let noticeDue, noticeDue <= now, !self.stopRequested {
            actions.append(.notice(self.unnoticed))
            self.unnoticed = []
            self.noticeDue = nil
        }
        return actions + self.proceed()
    }

    /// Some folders could not be watched (inotify's watches ran out): they must be polled. Unless the shell
    /// polls already (`remembersSettled` says it does), it starts; rescans become frequent, so settled entries are
    /// remembered from now on to skip them.
    private mutating func watchesExhausted() -> [Action] {
        guard !self.remembersSettled else { return [] }
        self.remembersSettled = true
        return [.startPolling]
    }

    // MARK: Decisions

    /// Starts what can start now, and asks to be woken for what must wait.
    private mutating func proceed() -> [Action] {
        var actions: [Action] = []
        if self.stopRequested {
            if self.batchesInFlight == 0 { actions.append(.finish) }
            return actions
        }
        let now = self.clock.now
        // Back-dated entries with the weather of their time need no current weather: only writes must work.
        while !self.halted, !self.checkingIntegrity, self.pause?.cause != .writes,
            self.batchesInFlight < self.configuration.batchesInFlight,
            let (name, tag) = self.nextHistorical()
        {
            self.update(name) { entry, _ in entry.place = .inBatch(again: nil) }
            self.batchesInFlight += 1
            actions.append(.stamp(Batch(names: [name], tag: tag, historical: true)))
        }
        while !self.halted, !self.checkingIntegrity, self.pause?.cause != .writes,
            self.pause == nil || self.configuration.sortsWithoutWeather,
            self.batchesInFlight < self.configuration.batchesInFlight,
            self.counts.queued > 0
        {
            // A long burst does not stamp its last entries with the weather of its first.
            let fresh = self.tag.flatMap { now < $0.at.advanced(by: self.configuration.tagReuse) ? $0.tag : nil }
            let tag: WeatherTag?
            if let fresh, self.pause == nil {
                tag = fresh
            } else if self.pause?.cause == .weather, self.configuration.sortsWithoutWeather {
                // No weather to be had now: the batch sorts out what needs none (history never waits on it).
                tag = nil
            } else {
                if !self.fetchingWeather {
                    self.fetchingWeather = true
                    actions.append(.fetchWeather)
                }
                break
            }
            let names = self.drain(\.queue, limit: self.configuration.batchSize) {
                if case .queued($0) = $1 { true } else { false }
            }
            for name in names { self.update(name) { entry, _ in entry.place = .inBatch(again: nil) } }
            self.batchesInFlight += 1
            actions.append(.stamp(Batch(names: names, tag: tag)))
        }
        // Entries that wait for current weather ask for it again once its pause is over.
        if self.counts.awaitingWeather > 0, self.pause == nil, !self.fetchingWeather, !self.halted {
            self.fetchingWeather = true
            actions.append(.fetchWeather)
        }
        if let next = self.nextDeadline(), self.wakeUpAt.map({ next < $0 }) ?? true {
            self.wakeUpAt = next
            actions.append(.wakeUp(at: next))
        }
        return actions
    }

    private func nextDeadline() -> C.Instant? {
        var deadline = [self.pause?.until, self.noticeDue].compactMap { $0 }.min()
        if self.counts.deferred > 0 {
            for entry in self.entries.values {
                guard case .deferred(let until) = entry.place else { continue }
                if deadline.map({ until < $0 }) ?? true { deadline = until }
            }
        }
        return deadline
    }

    /// Asks about the next back-dated entries in turn, up to `configuration.historyInFlight` at a time: a diary of
    /// thousands moved in at once does not hold thousands of questions (and their tasks) open.
    private mutating func askHistory() -> [Action] {
        var actions: [Action] = []
        while self.history.hasRoom, let name = self.history.next() {
            guard case .awaitingHistory(let request, asked: false) = self.entries[name]?.place else { continue }
            self.history.asking()
            self.update(name) { entry, _ in entry.place = .awaitingHistory(request, asked: true) }
            actions.append(.fetchHistory(name, request))
        }
        return actions
    }

    /// What one entry's result means: counted, reported, settled, or looked at again.
    private mutating func record(_ name: String, _ result: EntryResult, tag: WeatherTag?) -> [Action] {
        var actions: [Action] = []
        self.update(name) { entry, machine in
            let again: Again?
            if case .inBatch(let pending) = entry.place { again = pending } else { again = nil }
            if result != .changedWhileStamping { entry.changedAttempts = 0 }
            switch result {
            case .stamped, .restored, .alreadyStamped, .leftAlone, .vanished:
                entry.reportedLock = nil
                entry.historyFailure = nil
            case .inUse, .locked, .changedWhileStamping, .wantsHistory, .datedAhead, .needsWeather: break
            }
            if case .datedAhead = result {} else { entry.datedAhead = nil }
            // Where it goes for this result; a write that came while it was in the batch has it read again.
            var place: EntryState.Place?
            switch result {
            case .needsWeather:
                if machine.pause?.cause != .weather, machine.tag != nil {
                    // Weather came while it was read: it goes round again with it.
                    place = machine.queued(name)
                } else if machine.configuration.waitsForWeather {
                    place = .awaitingWeather(ticket: machine.ticket(for: name, in: \.weatherOrder))
                } else {
                    let error = machine.weatherError ?? WeatherError(kind: .unreachable, message: "no current weather")
                    actions.append(.report(.noWeather(name, error: error)))
                }
            case .datedAhead(let time, _) where !machine.configuration.waitsForDatedEntries:
                actions.append(machine.leftAlone(&entry, name, .future(time, withinADay: true)))
            case .datedAhead(let time, let wait):
                // Today east of here: stamped when its time comes here (a new write brings it sooner).
                let firstTime = entry.datedAhead != time
                entry.datedAhead = time
                place = .deferred(until: machine.clock.now.advanced(by: wait))
                actions.append(.report(.datedAhead(name, time, retryIn: wait, firstTime: firstTime)))
            case .wantsHistory(let request):
                place = .awaitingHistory(request, asked: false)
                machine.history.join(name)
            case .stamped(let version):
                machine.settle(&entry, version)
                entry.leftAlone = nil
                if let tag { actions.append(.report(.stamped(name, tag))) }
            case .restored(let version):
                machine.settle(&entry, version)
                entry.leftAlone = nil
                actions.append(.report(.restored(name)))
            case .alreadyStamped(let version):
                machine.settle(&entry, version)
                actions.append(.report(.alreadyStamped(name)))
            case .leftAlone(let reason, let version):
                machine.settle(&entry, version)
                actions.append(machine.leftAlone(&entry, name, reason))
            case .inUse:
                // Its writer's close brings it back.
                actions.append(.report(.inUse(name)))
            case .locked(let lock):
                // The lock file's going brings it back (the watcher reports it as an arrival of the entry).
                let firstTime = entry.reportedLock != lock
                entry.reportedLock = lock
                place = .locked(lock)
                actions.append(.report(.lockedByEditor(name, lock, firstTime: firstTime)))
            case .changedWhileStamping:
                entry.changedAttempts += 1
                guard entry.changedAttempts <= machine.configuration.maximumChangedAttempts else {
                    actions.append(machine.leftAlone(&entry, name, .keepsChanging))
                    break
                }
                let delay = machine.configuration.changedRetryBase * (1 << entry.changedAttempts)
                place = .deferred(until: machine.clock.now.advanced(by: delay))
                actions.append(
                    .report(.changedWhileStamping(name, attempt: entry.changedAttempts, retryIn: delay)))
            case .vanished:
                entry.leftAlone = nil
                machine.settle(&entry, nil)
                actions.append(.report(.vanished(name)))
            }
            entry.place = machine.merge(name, place, again)
        }
        return actions + self.askHistory()
    }

    /// Where an entry goes after its batch: where its result puts it, unless it was written again meanwhile and
    /// that brings it sooner (a lock it was found under no longer holds, weather or history it waited for is asked
    /// again by reading it again).
    private mutating func merge(_ name: String, _ place: EntryState.Place?, _ again: Again?) -> EntryState.Place? {
        guard let again else { return place }
        if case .deferred(let until) = place, case .at(let due) = again {
            return .deferred(until: min(until, due))
        }
        return self.place(name, again: again)
    }

    private mutating func place(_ name: String, again: Again) -> EntryState.Place {
        switch again {
        case .now: return self.queued(name)
        case .at(let due): return .deferred(until: due)
        }
    }

    private func leftAlone(_ entry: inout EntryState, _ name: String, _ reason: LeftAloneReason) -> Action {
        let firstTime = entry.leftAlone != reason
        entry.leftAlone = reason
        return .report(.leftAlone(name, reason, firstTime: firstTime))
    }

    private func settle(_ entry: inout EntryState, _ version: FileVersion?) {
        entry.settled = self.remembersSettled ? version : nil
    }

    /// Writing failed (disk full, read-only filesystem): the entries are untouched. The daemon waits and retries
    /// them all; the `stamp` command reports the file and goes on.
    private mutating func writeFailed(_ name: String, _ error: any Error, unprocessed: [String]) -> [Action] {
        guard self.configuration.retriesFailedWrites else {
            self.update(name) { entry, _ in entry.place = nil }
            for other in unprocessed { self.update(other) { entry, machine in entry.place = machine.queued(other) } }
            return [.report(.cannotWrite(name, error: error, retryIn: nil, firstTime: true))]
        }
        // The failed one first, then those not tried after it, as they were.
        for other in [name] + unprocessed {
            self.update(other) { entry, machine in entry.place = machine.queued(other) }
        }
        let delay = self.writeBackoff.next()
        self.pause = (self.clock.now.advanced(by: delay), .writes)
        let kind = FailureKind(error)
        let firstTime = self.writeFailure?.kind != kind
        self.writeFailure = (error, kind)
        return [.report(.cannotWrite(name, error: error, retryIn: delay, firstTime: firstTime))]
    }

    // MARK: The map and its orders

    /// Changes one entry, keeping the counts of places in step; an entry that holds nothing any more is forgotten.
    private mutating func update(_ name: String, _ body: (inout EntryState, inout Self) -> Void) {
        var entry = self.entries.removeValue(forKey: name) ?? EntryState()
        self.counts.remove(entry)
        body(&entry, &self)
        self.counts.add(entry)
        if !entry.isEmpty { self.entries[name] = entry }
    }

    /// `name`'s place at the back of the queue.
    private mutating func queued(_ name: String) -> EntryState.Place {
        .queued(ticket: self.ticket(for: name, in: \.queue))
    }

    /// A new ticket for `name` at the back of `order`.
    private mutating func ticket(for name: String, in order: WritableKeyPath<Self, TicketOrder>) -> Int {
        self.nextTicket += 1
        self[keyPath: order].append(name, ticket: self.nextTicket)
        return self.nextTicket
    }

    /// The names whose place still holds their ticket, in order, taken out of `order` (at most `limit`).
    private mutating func drain(
        _ order: WritableKeyPath<Self, TicketOrder>, limit: Int = .max, _ holds: (Int, EntryState.Place) -> Bool
    ) -> [String] {
        var names: [String] = []
        while names.count < limit, let (name, ticket) = self[keyPath: order].popFirst() {
            guard let place = self.entries[name]?.place, holds(ticket, place) else { continue }
            names.append(name)
        }
        return names
    }

    private mutating func nextHistorical() -> (String, WeatherTag)? {
        while let (name, ticket) = self.historicalOrder.popFirst() {
            guard case .historical(let tag, ticket) = self.entries[name]?.place else { continue }
            return (name, tag)
        }
        return nil
    }
}
