extension InboxStateMachine {
    // MARK: Decisions

    /// Starts what can start now, and asks to be woken for what must wait.
    mutating func proceed() -> [Action] {
        if case .stopping = self.lifecycle { return self.batchesInFlight == 0 ? [.finish] : [] }
        self.takeInFromIntake()
        var actions = self.stampHistorical()
        actions += self.stampQueued()
        // Entries that wait for current weather ask for it again once its backoff is over.
        if self.counts.awaitingWeather > 0, self.lifecycle.starts, !self.weather.isPaused, !self.writes.isPaused,
            self.weather.fetch()
        {
            actions.append(.fetchWeather)
        }
        if let next = self.nextDeadline(), self.wakeUpAt.map({ next < $0 }) ?? true {
            self.wakeUpAt = next
            actions.append(.wakeUp(at: next))
        }
        return actions
    }

    /// Batches may go to the disk: running, writes not waiting out a failure, and room for one more.
    private var hasRoomForABatch: Bool {
        self.lifecycle.starts && !self.writes.isPaused && self.batchesInFlight < self.configuration.batchesInFlight
    }

    /// Back-dated entries with the weather of their time need no current weather: only writes must work.
    mutating func stampHistorical() -> [Action] {
        var actions: [Action] = []
        while self.hasRoomForABatch, let (name, tag) = self.nextHistorical() {
            self.update(name) { entry, _ in entry.place = .inBatch(again: nil) }
            self.batchesInFlight += 1
            actions.append(.stamp(Batch(names: [name], tag: tag, historical: true)))
        }
        return actions
    }

    /// The queue in batches, with current weather that is fresh, or without any while none can be had
    /// (`sortsWithoutWeather`); otherwise weather is asked for and the queue waits for it, except what a long listing
    /// found before the first weather (`readsBeforeTheFirstWeather`).
    mutating func stampQueued() -> [Action] {
        var actions: [Action] = []
        let sortsWithout = self.configuration.sortsWithoutWeather
        while self.hasRoomForABatch, self.counts.queued > 0, !self.weather.isPaused || sortsWithout {
            // A long burst does not stamp its last entries with the weather of its first.
            let tag: WeatherTag?
            if let fresh = self.weather.fresh(at: self.clock.now, reuse: self.configuration.tagReuse) {
                tag = fresh
            } else if self.weather.isPaused {
                // No weather to be had now: the batch sorts out what needs none (history never waits on it).
                tag = nil
            } else if self.readsBeforeTheFirstWeather {
                if self.weather.fetch() { actions.append(.fetchWeather) }
                tag = nil
            } else {
                if self.weather.fetch() { actions.append(.fetchWeather) }
                break
            }
            let names = self.drain(.queue, limit: self.batchLimit) {
                if case .queued($0) = $1 { true } else { false }
            }
            if tag == nil { self.listedBeforeWeather = max(0, self.listedBeforeWeather - names.count) }
            for name in names { self.update(name) { entry, _ in entry.place = .inBatch(again: nil) } }
            self.batchesInFlight += 1
            actions.append(.stamp(Batch(names: names, tag: tag)))
        }
        return actions
    }

    /// Whether the queue is read while the first weather of this run is asked for, without it: what a long listing
    /// found before any weather came (`longQueueBatchSize` names or more: a diary whose index or memory is filled
    /// again at start-up, a diary moved in while the daemon was stopped) is stamped entries, back-dated ones and
    /// entries left alone, none of which needs current weather, and waiting for the network (a loopback stand-in's
    /// 100 ms, a real service's round trip, a timeout when offline) would hold all of them back. What does need it
    /// comes back `.needsWeather`, waits for it, and is read once more. Only the daemon's machine
    /// (`sortsWithoutWeather`), and only a listing's names (`listedBeforeWeather`): a burst of new entries dropped in
    /// waits for its weather as before, and is read once.
    var readsBeforeTheFirstWeather: Bool {
        self.configuration.sortsWithoutWeather && self.weather.last == nil
            && self.listedBeforeWeather >= self.configuration.batchSize
    }

    /// The size of the next batch from the queue: large while the queue is long (`longQueueBatchSize`).
    var batchLimit: Int {
        let long = self.configuration.longQueueBatchSize
        return self.counts.queued >= long ? max(long, self.configuration.batchSize) : self.configuration.batchSize
    }

    func nextDeadline() -> C.Instant? {
        var deadline = [self.weather.retryAt, self.writes.retryAt, self.notices.due].compactMap { $0 }.min()
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
    mutating func askHistory() -> [Action] {
        var actions: [Action] = []
        while self.history.hasRoom, let name = self.history.next() {
            guard case .awaitingHistory(let request, asked: false) = self.entries[name]?.place else { continue }
            self.history.asking()
            self.update(name) { entry, _ in entry.place = .awaitingHistory(request, asked: true) }
            actions.append(.fetchHistory(name, request))
        }
        return actions
    }

    // MARK: The map and its orders

    /// Why each of `names` the machine holds is not stamped yet (for the socket's answers about entries).
    package func waitingReasons(_ names: [String]) -> [String: LaneState] {
        let held = names.compactMap { name in self.heldReason(name).map { (name, $0) } }
        // The intake walked once for all the others.
        let others = Set(names).subtracting(held.map(\.0))
        let queued = self.intake.waiting(among: others).map { ($0, self.queuedReason) }
        return Dictionary(held + queued, uniquingKeysWith: { first, _ in first })
    }

    /// The names that wait for something besides their turn, once each and in order: what the diary index is told
    /// of (`.notice`), a row each from its name. One the machine has let go of went through a batch, which wrote
    /// its row; one in a batch now will have it from that batch; one queued while stamping goes on is read in its
    /// turn, within seconds (a 50,000-entry rebuild wrote a row from the name of each, only for its batch to delete
    /// it: a fifth of the index's writing). Waiting for weather, a disk, history, an editor or its settle time, it
    /// gets its row now.
    func waitingBesidesTheirTurn(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        return names.filter { name in
            // (A name in the intake waits for its turn only.)
            guard let lane = self.heldReason(name), lane != .queued else { return false }
            return seen.insert(name).inserted
        }
    }

    /// Changes one entry, keeping the counts of places in step; an entry that holds nothing any more is forgotten.
    mutating func update(_ name: String, _ body: (inout EntryState, inout Self) -> Void) {
        var entry = self.entries.removeValue(forKey: name) ?? EntryState()
        self.counts.remove(entry)
        body(&entry, &self)
        self.counts.add(entry)
        if !entry.isEmpty {
            self.entries[name] = entry
        } else if self.entries.capacity > 1024 && self.entries.count * 8 < self.entries.capacity {
            self.entries = Self.remade(self.entries)
        }
    }

    /// `entries` made anew at about twice its count. A dictionary keeps its capacity as it empties: a diary of
    /// 50,000 entries moved in left 4 MiB of empty slots behind once the last was stamped. Remade only when it is
    /// an eighth full, so each copy follows at least three times its size in removals.
    private static func remade(_ entries: [String: EntryState]) -> [String: EntryState] {
        var smaller = [String: EntryState](minimumCapacity: entries.count * 2)
        for (name, entry) in entries { smaller[name] = entry }
        return smaller
    }

    /// `name`'s place at the back of the queue.
    mutating func queued(_ name: String) -> EntryState.Place {
        .queued(ticket: self.ticket(for: name, in: .queue))
    }

    /// The places that keep an order of their own.
    ///
    /// A switch rather than a key path: a key path into a generic type (`\Self.queue`) is instantiated anew each time
    /// it is used (`swift_getKeyPath`), and `stampQueued` and every queued entry used one: 6 % of the loop threads'
    /// samples for entries dropped one at a time (`perf record`, 292 of 4,944).
    enum Line {
        case queue, weather, historical
    }

    /// A new ticket for `name` at the back of `line`'s order.
    mutating func ticket(for name: String, in line: Line) -> Int {
        self.nextTicket += 1
        switch line {
        case .queue: self.queue.append(name, ticket: self.nextTicket)
        case .weather: self.weatherOrder.append(name, ticket: self.nextTicket)
        case .historical: self.historicalOrder.append(name, ticket: self.nextTicket)
        }
        return self.nextTicket
    }

    private mutating func popFirst(_ line: Line) -> (name: String, ticket: Int)? {
        switch line {
        case .queue: self.queue.popFirst()
        case .weather: self.weatherOrder.popFirst()
        case .historical: self.historicalOrder.popFirst()
        }
    }

    /// The names whose place still holds their ticket, in order, taken out of `line`'s order (at most `limit`).
    mutating func drain(
        _ line: Line, limit: Int = .max, _ holds: (Int, EntryState.Place) -> Bool
    ) -> [String] {
        var names: [String] = []
        while names.count < limit, let (name, ticket) = self.popFirst(line) {
            guard let place = self.entries[name]?.place, holds(ticket, place) else { continue }
            names.append(name)
        }
        return names
    }

    mutating func nextHistorical() -> (String, WeatherTag)? {
        while let (name, ticket) = self.historicalOrder.popFirst() {
            guard case .historical(let tag, ticket) = self.entries[name]?.place else { continue }
            return (name, tag)
        }
        return nil
    }
}
