extension InboxStateMachine {
    // MARK: What comes back: batches and history

    /// A batch came back from the disk; nil when the thread pool refused it (the process is stopping).
    mutating func batchFinished(_ batch: Batch, _ outcome: BatchOutcome?) -> [Action] {
        self.batchesInFlight -= 1
        guard let outcome else {
            // Untouched: they wait in the inbox for the next start.
            for name in batch.names { self.update(name) { entry, machine in entry.place = machine.queued(name) } }
            if case .stopping = self.lifecycle {} else { self.lifecycle = .halted }
            return self.proceed()
        }
        // (Appended in place: an array for each entry's report, joined to the others, was a fifth of the machine's
        // instructions in a rebuild.)
        var actions: [Action] = []
        actions.reserveCapacity(outcome.results.count + 2)
        for (name, result) in outcome.results {
            self.record(name, result, tag: batch.tag, into: &actions)
        }
        if let (name, error) = outcome.failure {
            actions += self.writeFailed(name, error, unprocessed: outcome.unprocessed)
        } else {
            if !outcome.results.isEmpty, self.writes.succeeded() { actions.append(.report(.writingWorksAgain)) }
            // A batch that stopped at its bytes (`BatchOutcome.unprocessed`): what it did not reach waits its turn.
            for name in outcome.unprocessed {
                guard case .inBatch(let again) = self.entries[name]?.place else { continue }
                self.update(name) { entry, machine in
                    entry.place = again.map { machine.place(name, again: $0) } ?? machine.queued(name)
                }
            }
        }
        // A name the batch said nothing about is not held any more (or is looked at again if it was written again).
        for name in batch.names {
            guard case .inBatch(let again) = self.entries[name]?.place else { continue }
            self.update(name) { entry, machine in entry.place = again.map { machine.place(name, again: $0) } }
        }
        actions.append(contentsOf: self.proceed())
        self.stampedSinceGivenBack += outcome.results.count
        if let after = self.configuration.givesBackMemoryAfter, self.stampedSinceGivenBack >= after, self.isIdle {
            self.stampedSinceGivenBack = 0
            actions.append(.giveBackMemory)
        }
        self.batchesSinceMerged += 1
        if let after = self.configuration.mergesIndexAfter, self.batchesSinceMerged >= after, self.isIdle {
            self.batchesSinceMerged = 0
            actions.append(.mergeIndex)
        }
        return actions
    }

    /// The weather of a back-dated entry's time came: it is stamped with it.
    mutating func historyArrived(_ name: String, _ tag: WeatherTag) -> [Action] {
        self.history.answered()
        guard case .awaitingHistory = self.entries[name]?.place else { return self.askHistory() + self.proceed() }
        self.update(name) { entry, machine in
            entry.historyFailure = nil
            entry.place = .historical(tag, ticket: machine.ticket(for: name, in: .historical))
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
    mutating func historyFailed(_ name: String, _ failure: HistoryFailure) -> [Action] {
        self.history.answered()
        guard case .awaitingHistory(let request, _) = self.entries[name]?.place else {
            return self.askHistory() + self.proceed()
        }
        switch failure {
        case .unavailable(let why):
            var told: Report?
            self.update(name) { entry, machine in
                entry.historyFailure = nil
                entry.place = nil
                told = machine.leftAlone(&entry, name, .backdated(request.time, why))
            }
            // The index has it waiting for history (its batch said so): it learns the answer.
            return [.index(name, .of(.backdated(request.time, why)))] + (told.map { [.report($0)] } ?? [])
                + self.askHistory() + self.proceed()
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

    /// What one entry's result means: counted, reported, settled, or looked at again.
    mutating func record(_ name: String, _ result: EntryResult, tag: WeatherTag?, into actions: inout [Action]) {
        var told: Report?
        self.update(name) { entry, machine in
            let again: Again?
            if case .inBatch(let pending) = entry.place { again = pending } else { again = nil }
            Self.forgetWhatNoLongerHolds(&entry, after: result)
            // Where it goes for this result; a write that came while it was in the batch has it read again.
            let place: EntryState.Place?
            (place, told) = machine.place(name, &entry, after: result, tag: tag)
            entry.place = machine.merge(name, place, again)
        }
        if let told {
            // Left alone by the machine after a result that said otherwise (dated ahead, changing): the index has
            // what the batch wrote, and learns what holds.
            if case .entry(_, .leftAlone(let reason, _), _) = told, LaneState.of(result) != .of(reason) {
                actions.append(.index(name, .of(reason)))
            }
            actions.append(.report(told))
        }
        actions.append(contentsOf: self.askHistory())
    }

    /// What an entry's result ends: a lock, a history failure or a date it was told waiting for, a run of changes.
    private static func forgetWhatNoLongerHolds(_ entry: inout EntryState, after result: EntryResult) {
        if result != .changedWhileStamping { entry.changedAttempts = 0 }
        switch result {
        case .stamped, .restored, .alreadyStamped, .leftAlone, .vanished:
            entry.reportedLock = nil
            entry.historyFailure = nil
        case .inUse, .locked, .changedWhileStamping, .wantsHistory, .datedAhead, .needsWeather, .noWeather,
            .failed:
            break
        }
        if case .datedAhead = result {} else { entry.datedAhead = nil }
    }

    /// Where an entry goes for its result (nil: not held), and what is told about it.
    private mutating func place(
        _ name: String, _ entry: inout EntryState, after result: EntryResult, tag: WeatherTag?
    ) -> (EntryState.Place?, Report?) {
        switch result {
        case .needsWeather:
            if !self.weather.isPaused, self.weather.last != nil {
                // Weather came while it was read: it goes round again with it.
                return (self.queued(name), nil)
            }
            if self.configuration.waitsForWeather {
                return (.awaitingWeather(ticket: self.ticket(for: name, in: .weather)), nil)
            }
            let error = self.weather.error ?? WeatherError(kind: .unreachable, message: "no current weather")
            return (nil, .entry(name, .noWeather(error), Telling()))
        case .datedAhead(let time, _) where !self.configuration.waitsForDatedEntries:
            return (nil, self.leftAlone(&entry, name, .future(time, withinADay: true)))
        case .datedAhead(let time, let wait):
            // Today east of here: stamped when its time comes here (a new write brings it sooner).
            let firstTime = entry.datedAhead != time
            entry.datedAhead = time
            return (
                .deferred(until: self.clock.now.advanced(by: wait)),
                .entry(name, result, Telling(firstTime: firstTime, retryIn: wait))
            )
        case .wantsHistory(let request):
            self.history.join(name)
            return (.awaitingHistory(request, asked: false), nil)
        case .stamped(let version), .restored(let version):
            self.settle(&entry, version)
            entry.leftAlone = nil
            if case .stamped = result, tag == nil { return (nil, nil) }
            return (nil, .entry(name, result, Telling(tag: tag)))
        case .alreadyStamped(let version):
            self.settle(&entry, version)
            return (nil, .entry(name, result, Telling()))
        case .leftAlone(let reason, let version):
            self.settle(&entry, version)
            return (nil, self.leftAlone(&entry, name, reason, version))
        case .inUse:
            // Its writer's close brings it back.
            return (nil, .entry(name, result, Telling()))
        case .locked(let lock):
            // The lock file's going brings it back (the watcher reports it as an arrival of the entry).
            let firstTime = entry.reportedLock != lock
            entry.reportedLock = lock
            return (.locked(lock), .entry(name, result, Telling(firstTime: firstTime)))
        case .changedWhileStamping:
            entry.changedAttempts += 1
            guard entry.changedAttempts <= self.configuration.maximumChangedAttempts else {
                return (nil, self.leftAlone(&entry, name, .keepsChanging))
            }
            let delay = self.configuration.changedRetryBase * (1 << entry.changedAttempts)
            return (
                .deferred(until: self.clock.now.advanced(by: delay)),
                .entry(name, result, Telling(retryIn: delay, attempt: entry.changedAttempts))
            )
        case .vanished:
            entry.leftAlone = nil
            self.settle(&entry, nil)
            return (nil, .entry(name, result, Telling()))
        case .noWeather, .failed:
            // The machine's own results: a batch never gives them.
            return (nil, .entry(name, result, Telling()))
        }
    }

    /// Where an entry goes after its batch: where its result puts it, unless it was written again meanwhile and
    /// that brings it sooner (a lock it was found under no longer holds, weather or history it waited for is asked
    /// again by reading it again).
    mutating func merge(_ name: String, _ place: EntryState.Place?, _ again: Again?) -> EntryState.Place? {
        guard let again else { return place }
        if case .deferred(let until) = place, case .at(let due) = again {
            return .deferred(until: min(until, due))
        }
        return self.place(name, again: again)
    }

    mutating func place(_ name: String, again: Again) -> EntryState.Place {
        switch again {
        case .now: return self.queued(name)
        case .at(let due): return .deferred(until: due)
        }
    }

    func leftAlone(
        _ entry: inout EntryState, _ name: String, _ reason: LeftAloneReason, _ version: FileVersion? = nil
    ) -> Report {
        let firstTime = entry.leftAlone != reason
        entry.leftAlone = reason
        return .entry(name, .leftAlone(reason, version), Telling(firstTime: firstTime))
    }

    func settle(_ entry: inout EntryState, _ version: FileVersion?) {
        entry.settled = self.remembersSettled ? version : nil
    }

    /// Writing failed (disk full, read-only filesystem): the entries are untouched. The daemon waits and retries
    /// them all; the `stamp` command reports the file and goes on.
    mutating func writeFailed(_ name: String, _ error: any Error, unprocessed: [String]) -> [Action] {
        guard self.configuration.retriesFailedWrites else {
            self.update(name) { entry, _ in entry.place = nil }
            for other in unprocessed { self.update(other) { entry, machine in entry.place = machine.queued(other) } }
            return [.report(.entry(name, .failed(error), Telling()))]
        }
        // The failed one first, then those not tried after it, as they were.
        for other in [name] + unprocessed {
            self.update(other) { entry, machine in entry.place = machine.queued(other) }
        }
        let (delay, firstTime) = self.writes.failed(error, at: self.clock.now)
        return [.report(.entry(name, .failed(error), Telling(firstTime: firstTime, retryIn: delay)))]
    }
}
