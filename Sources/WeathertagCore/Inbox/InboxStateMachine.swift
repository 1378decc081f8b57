/// The inbox's policy: which entries to stamp, when, with which weather, and what each result means. Pure: events
/// go in as method calls, actions come out, and time is read from an injected clock. `InboxService` performs the
/// actions against the filesystem, OpenWeather and the logs; `FileStamper` (the `stamp` command) drives the same
/// machine, so batching, waiting and retrying exist once.
///
/// An entry is in one place at a time: the queue (to stamp now), `deferred` (to look at again later: settling after
/// a write, or after it changed under a stamp), `locked` (an editor has it open), a batch in flight, or nowhere
/// (settled until it changes). Everything pauses while there is no weather or the disk refuses writes, each with
/// its own backoff.
public struct InboxStateMachine<C: Clock>: Sendable where C.Duration == Duration, C: Sendable {
    public let configuration: Configuration
    private let clock: C

    private var queue = EntryQueue()
    /// Entries to look at again from a given time: settling (no write for `settle`), or changed while being
    /// stamped.
    private var deferred: [String: C.Instant] = [:]
    /// Entries an editor has open, and its lock file; the file's going brings them back as an arrival.
    private var locked: [String: EditorLock] = [:]
    /// The lock each entry was last reported waiting for, until it is stamped: a save while the editor stays open
    /// is looked at again, but not logged again.
    private var lockReported: [String: EditorLock] = [:]
    private var batchesInFlight = 0
    private var entriesInFlight = 0
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
    /// Whether `settled` is kept: from the configuration, and from the moment polling starts.
    private var remembersSettled: Bool
    /// Entries that need nothing until they change (stamped, already stamped, left alone), by version, for
    /// rescans to skip after one `lstat`. Kept only with `remembersSettled`.
    public private(set) var settled: [String: FileVersion] = [:]
    /// The reason each entry was last left alone for, so that a rescan does not report it again.
    private var reported: [String: LeftAloneReason] = [:]
    /// How often each entry changed under us in a row.
    private var changedAttempts: [String: Int] = [:]
    /// Back-dated entries whose weather of their time is being asked for.
    private var awaitingHistory: [String: HistoryRequest] = [:]
    /// Of those, the ones asked about now (at most `configuration.historyInFlight`), and the rest in turn.
    private var historyAsked: Set<String> = []
    private var historyTurn: [String] = []
    /// Current entries read while there was no current weather: they wait for it (back-dated ones went on to
    /// history without it).
    private var awaitingWeather: [String] = []
    /// Entries dated a little ahead of now, deferred until their time (and what they are dated).
    private var datedAhead: [String: EntryTime] = [:]
    /// Back-dated entries with the weather of their time, to stamp (they need no current weather).
    private var historical: [(name: String, tag: WeatherTag)] = []
    /// The history failure each entry was last reported waiting for, so that it is logged once.
    private var historyReported: [String: (error: any Error, kind: FailureKind)] = [:]

    /// Why weather could not be had, the last time it was asked for (cleared when it comes).
    private var weatherError: (any Error)?

    private enum Listing { case idle, running, runningAndAskedAgain }

    /// Names arrived and not yet handed to the diary index, and when they are due (`noticeDelay`).
    private var unnoticed: [String] = []
    private var noticeDue: C.Instant?
    /// The store's look-over at start-up (`checksIntegrity`): nothing is listed or stamped while it runs.
    private var checkingIntegrity = false

    private enum PauseCause { case weather, writes }

    public init(configuration: Configuration, clock: C) {
        self.configuration = configuration
        self.clock = clock
        self.remembersSettled = configuration.remembersSettled
        self.weatherBackoff = configuration.weatherBackoff
        self.writeBackoff = configuration.writeBackoff
    }

    // MARK: State read by the shell

    /// Entries seen and not yet done: queued, deferred, held by an editor or in a batch.
    public var waiting: Int {
        self.queue.count + self.deferred.count + self.locked.count + self.entriesInFlight + self.awaitingHistory.count
            + self.historical.count + self.awaitingWeather.count
    }

    /// Back-dated entries waiting for the weather of their time: asked about, answered and not yet stamped, or
    /// held back until history can be asked again (a budget spent, a service failing).
    public var waitingForHistory: Int {
        self.awaitingHistory.count + self.historical.count
            + self.historyReported.keys.filter { self.deferred[$0] != nil }.count
    }

    /// Nothing queued, deferred or in flight.
    public var isIdle: Bool { self.waiting == 0 && self.batchesInFlight == 0 }

    /// Why an entry the machine holds is not stamped yet, as its lane says it (`why`, `GET /v1/entries`); nil for
    /// one it does not hold (done, in a batch right now, or never seen).
    public func waitingReason(_ name: String) -> LaneState? {
        if let lock = self.locked[name] { return .held(by: lock) }
        if self.awaitingHistory[name] != nil || self.historical.contains(where: { $0.name == name })
            || (self.deferred[name] != nil && self.historyReported[name] != nil)
        {
            return LaneState(
                .backdated, "waiting_for_history", detail: self.historyReported[name].map { "\($0.error)" })
        }
        if self.deferred[name] != nil, let time = self.datedAhead[name] { return .datedAhead(time) }
        if self.deferred[name] != nil {
            return (self.changedAttempts[name] ?? 0) > 0
                ? LaneState(.waiting, "changing", detail: "it changed while it was being stamped")
                : LaneState(.waiting, "settling")
        }
        if self.awaitingWeather.contains(name) {
            return LaneState(.waiting, "no_weather", detail: self.weatherError.map { "\($0)" })
        }
        guard self.queue.contains(name) else { return nil }
        switch self.pause?.cause {
        case .writes: return LaneState(.waiting, "disk_refused", detail: self.writeFailure.map { "\($0.error)" })
        case .weather: return LaneState(.waiting, "no_weather", detail: self.weatherError.map { "\($0)" })
        case nil:
            return self.tag == nil
                ? LaneState(.waiting, "no_weather", detail: self.weatherError.map { "\($0)" }) : .queued
        }
    }

    // MARK: Events

    /// The service starts: list everything (the watch is already in place, so nothing is missed in between).
    public mutating func start() -> [Action] {
        guard self.configuration.checksIntegrity else { return self.rescanRequested() }
        self.checkingIntegrity = true
        return [.checkIntegrity]
    }

    /// The store was looked over (and replaced if it was damaged): the first listing fills it from the files.
    public mutating func integrityChecked() -> [Action] {
        guard self.checkingIntegrity else { return self.proceed() }
        self.checkingIntegrity = false
        return self.rescanRequested() + self.proceed()
    }

    /// Names were written and closed, or moved in, or their editor's lock file went. Their settled versions no
    /// longer hold. With a settle time, each waits until no write has reached it for that long; one an editor had
    /// open waits at least `lockGrace`.
    public mutating func namesArrived(_ names: [String]) -> [Action] {
        let now = self.clock.now
        if let delay = self.configuration.noticeDelay, !names.isEmpty {
            if self.noticeDue == nil { self.noticeDue = now.advanced(by: delay) }
            self.unnoticed += names
        }
        // Written again: read again, not held for weather as it was (one place at a time).
        if !self.awaitingWeather.isEmpty {
            let arrived = Set(names)
            self.awaitingWeather.removeAll { arrived.contains($0) }
        }
        for name in names {
            if self.remembersSettled { self.settled[name] = nil }
            let wait =
                self.locked.removeValue(forKey: name) == nil
                ? self.configuration.settle : max(self.configuration.settle, self.configuration.lockGrace)
            let due = now.advanced(by: wait)
            if let deferred = self.deferred[name] {
                // A deferred entry is looked at when its time comes, not before; a new write moves that time on.
                if wait > .zero, deferred < due { self.deferred[name] = due }
            } else if wait > .zero {
                self.deferred[name] = due
            } else {
                self.queue.insert(name)
            }
        }
        return self.proceed()
    }

    /// Look at everything: at start, on a poll, after a queue overflow, after the folder came back.
    public mutating func rescanRequested() -> [Action] {
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

    /// A listing came back: the names that may need work, and every name present (nil when unknown).
    public mutating func listed(candidates: [String], present: Set<String>?) -> [Action] {
        var actions: [Action] = []
        let again = self.listing == .runningAndAskedAgain
        self.listing = .idle
        for name in candidates where self.deferred[name] == nil {
            // A locked entry is looked at again: where nothing reports its lock file's going (a network
            // filesystem), the poll is what finds the editor gone.
            self.locked[name] = nil
            self.queue.insert(name)
        }
        if let present, self.remembersSettled {
            self.settled = self.settled.filter { present.contains($0.key) }
        }
        if again { actions += self.rescanRequested() }
        return actions + self.proceed()
    }

    /// The weather service answered.
    public mutating func weatherArrived(_ tag: WeatherTag) -> [Action] {
        self.fetchingWeather = false
        self.tag = (tag, self.clock.now)
        self.weatherError = nil
        self.weatherBackoff.reset()
        if self.pause?.cause == .weather { self.pause = nil }
        self.queue.insert(contentsOf: self.awaitingWeather)
        self.awaitingWeather = []
        return self.proceed()
    }

    /// The weather service could not give a tag. `retryAfter` is OpenWeather's own backoff when it has one (the
    /// next call may go out then); without one the machine backs off itself.
    public mutating func weatherFailed(_ error: any Error, retryAfter: Duration?) -> [Action] {
        self.fetchingWeather = false
        let delay = retryAfter ?? self.weatherBackoff.next()
        self.pause = (self.clock.now.advanced(by: delay), .weather)
        self.weatherError = error
        guard self.configuration.waitsForWeather else {
            // Nothing waits (`weathertag stamp`): what needs weather is reported, the rest is sorted without it.
            let reports = self.awaitingWeather.map { Action.report(.noWeather($0, error: error)) }
            self.awaitingWeather = []
            return reports + self.proceed()
        }
        let report = Report.waitingForWeather(waiting: self.waiting, retryIn: delay, error: error)
        return [.report(report)] + self.proceed()
    }

    /// A batch came back from the disk; nil when the thread pool refused it (the process is stopping).
    public mutating func batchFinished(_ batch: Batch, _ outcome: BatchOutcome?) -> [Action] {
        self.batchesInFlight -= 1
        self.entriesInFlight -= batch.names.count
        guard let outcome else {
            // Untouched: they wait in the inbox for the next start.
            self.queue.insert(contentsOf: batch.names)
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
        return actions + self.proceed()
    }

    /// The weather of a back-dated entry's time came: it is stamped with it.
    public mutating func historyArrived(_ name: String, _ tag: WeatherTag) -> [Action] {
        self.historyAsked.remove(name)
        guard self.awaitingHistory.removeValue(forKey: name) != nil else { return self.askHistory() + self.proceed() }
        self.historyReported[name] = nil
        self.historical.append((name, tag))
        // History answers again: what waits for it after an outage is looked at now, not at its backoff's end.
        for (waiting, _) in self.historyReported where self.deferred[waiting] != nil {
            self.deferred[waiting] = nil
            self.queue.insert(waiting)
        }
        return self.askHistory() + self.proceed()
    }

    /// Asks about the next back-dated entries in turn, up to `configuration.historyInFlight` at a time: a diary of
    /// thousands moved in at once does not hold thousands of questions (and their tasks) open.
    private mutating func askHistory() -> [Action] {
        var actions: [Action] = []
        while self.historyAsked.count < self.configuration.historyInFlight, !self.historyTurn.isEmpty {
            let name = self.historyTurn.removeFirst()
            guard let request = self.awaitingHistory[name], !self.historyAsked.contains(name) else { continue }
            self.historyAsked.insert(name)
            actions.append(.fetchHistory(name, request))
        }
        return actions
    }

    /// The weather of a back-dated entry's time cannot be had: for good (it is left alone until it changes), or
    /// for now (it is looked at again later).
    public mutating func historyFailed(_ name: String, _ failure: HistoryFailure) -> [Action] {
        self.historyAsked.remove(name)
        guard let request = self.awaitingHistory.removeValue(forKey: name) else {
            return self.askHistory() + self.proceed()
        }
        switch failure {
        case .unavailable(let why):
            self.historyReported[name] = nil
            return [self.leftAlone(name, .backdated(request.time, why))] + self.askHistory() + self.proceed()
        case .later(let delay, let error):
            self.deferred[name] = self.clock.now.advanced(by: delay)
            let kind = FailureKind(error)
            let firstTime = self.historyReported[name]?.kind != kind
            self.historyReported[name] = (error, kind)
            return [.report(.waitingForHistory(name, retryIn: delay, error: error, firstTime: firstTime))]
                + self.askHistory() + self.proceed()
        }
    }

    /// A wake-up asked for with `.wakeUp(at:)` came (or any earlier one): take what is due.
    public mutating func wokeUp() -> [Action] {
        let now = self.clock.now
        if let wakeUpAt, wakeUpAt <= now { self.wakeUpAt = nil }
        if let pause, pause.until <= now { self.pause = nil }
        for (name, due) in self.deferred where due <= now {
            self.deferred[name] = nil
            self.queue.insert(name)
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
    public mutating func watchesExhausted() -> [Action] {
        guard !self.remembersSettled else { return [] }
        self.remembersSettled = true
        return [.startPolling]
    }

    /// Stop gracefully: batches in flight finish, nothing new starts; `.finish` once nothing is in flight.
    public mutating func stop() -> [Action] {
        self.stopRequested = true
        return self.proceed()
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
            self.batchesInFlight < self.configuration.batchesInFlight, !self.historical.isEmpty
        {
            let (name, tag) = self.historical.removeFirst()
            self.batchesInFlight += 1
            self.entriesInFlight += 1
            actions.append(.stamp(Batch(names: [name], tag: tag, historical: true)))
        }
        while !self.halted, !self.checkingIntegrity, self.pause?.cause != .writes,
            self.pause == nil || self.configuration.sortsWithoutWeather,
            self.batchesInFlight < self.configuration.batchesInFlight,
            !self.queue.isEmpty
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
            var names: [String] = []
            while names.count < self.configuration.batchSize, let name = self.queue.popFirst() { names.append(name) }
            self.batchesInFlight += 1
            self.entriesInFlight += names.count
            actions.append(.stamp(Batch(names: names, tag: tag)))
        }
        // Entries that wait for current weather ask for it again once its pause is over.
        if !self.awaitingWeather.isEmpty, self.pause == nil, !self.fetchingWeather, !self.halted {
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
        let candidates = [self.pause?.until, self.deferred.values.min(), self.noticeDue].compactMap { $0 }
        return candidates.min()
    }

    /// What one entry's result means: counted, reported, settled, or looked at again.
    private mutating func record(_ name: String, _ result: EntryResult, tag: WeatherTag?) -> [Action] {
        if result != .changedWhileStamping { self.changedAttempts[name] = nil }
        switch result {
        case .stamped, .restored, .alreadyStamped, .leftAlone, .vanished: self.lockReported[name] = nil
        case .inUse, .locked, .changedWhileStamping, .wantsHistory, .datedAhead, .needsWeather: break
        }
        if case .locked = result {} else { self.locked[name] = nil }
        if case .wantsHistory = result {} else { self.awaitingHistory[name] = nil }
        if case .datedAhead = result {} else { self.datedAhead[name] = nil }
        switch result {
        case .needsWeather:
            guard self.pause?.cause == .weather || self.tag == nil else {
                // Weather came while it was read: it goes round again with it.
                self.queue.insert(name)
                return []
            }
            guard self.configuration.waitsForWeather else {
                let error = self.weatherError ?? WeatherError(kind: .unreachable, message: "no current weather")
                return [.report(.noWeather(name, error: error))]
            }
            if !self.awaitingWeather.contains(name) { self.awaitingWeather.append(name) }
            return []
        case .datedAhead(let time, _) where !self.configuration.waitsForDatedEntries:
            return [self.leftAlone(name, .future(time, withinADay: true))]
        case .datedAhead(let time, let wait):
            // Today east of here: stamped when its time comes here (a new write brings it sooner).
            let firstTime = self.datedAhead[name] != time
            self.datedAhead[name] = time
            self.deferred[name] = self.clock.now.advanced(by: wait)
            return [.report(.datedAhead(name, time, retryIn: wait, firstTime: firstTime))]
        case .wantsHistory(let request):
            let known = self.awaitingHistory[name] != nil
            self.awaitingHistory[name] = request
            guard !known else { return [] }
            self.historyTurn.append(name)
            return self.askHistory()
        case .stamped(let version):
            self.settle(name, version)
            self.reported[name] = nil
            return tag.map { [.report(.stamped(name, $0))] } ?? []
        case .restored(let version):
            self.settle(name, version)
            self.reported[name] = nil
            return [.report(.restored(name))]
        case .alreadyStamped(let version):
            self.settle(name, version)
            return [.report(.alreadyStamped(name))]
        case .leftAlone(let reason, let version):
            self.settle(name, version)
            return [self.leftAlone(name, reason)]
        case .inUse:
            // Its writer's close brings it back.
            return [.report(.inUse(name))]
        case .locked(let lock):
            // The lock file's going brings it back (the watcher reports it as an arrival of the entry).
            let firstTime = self.lockReported[name] != lock
            self.lockReported[name] = lock
            // Back in the queue already (its lock went while the batch was out): it is looked at again anyway.
            if !self.queue.contains(name), self.deferred[name] == nil { self.locked[name] = lock }
            return [.report(.lockedByEditor(name, lock, firstTime: firstTime))]
        case .changedWhileStamping:
            let attempts = self.changedAttempts[name, default: 0] + 1
            self.changedAttempts[name] = attempts
            guard attempts <= self.configuration.maximumChangedAttempts else {
                return [self.leftAlone(name, .keepsChanging)]
            }
            let delay = self.configuration.changedRetryBase * (1 << attempts)
            self.deferred[name] = self.clock.now.advanced(by: delay)
            return [.report(.changedWhileStamping(name, attempt: attempts, retryIn: delay))]
        case .vanished:
            self.reported[name] = nil
            self.settle(name, nil)
            return [.report(.vanished(name))]
        }
    }

    private mutating func leftAlone(_ name: String, _ reason: LeftAloneReason) -> Action {
        let firstTime = self.reported[name] != reason
        self.reported[name] = reason
        return .report(.leftAlone(name, reason, firstTime: firstTime))
    }

    private mutating func settle(_ name: String, _ version: FileVersion?) {
        if self.remembersSettled { self.settled[name] = version }
    }

    /// Writing failed (disk full, read-only filesystem): the entries are untouched. The daemon waits and retries
    /// them all; the `stamp` command reports the file and goes on.
    private mutating func writeFailed(_ name: String, _ error: any Error, unprocessed: [String]) -> [Action] {
        guard self.configuration.retriesFailedWrites else {
            self.queue.insert(contentsOf: unprocessed)
            return [.report(.cannotWrite(name, error: error, retryIn: nil, firstTime: true))]
        }
        self.queue.insert(name)
        self.queue.insert(contentsOf: unprocessed)
        let delay = self.writeBackoff.next()
        self.pause = (self.clock.now.advanced(by: delay), .writes)
        let kind = FailureKind(error)
        let firstTime = self.writeFailure?.kind != kind
        self.writeFailure = (error, kind)
        return [.report(.cannotWrite(name, error: error, retryIn: delay, firstTime: firstTime))]
    }
}
