extension InboxStateMachine {
    /// One entry as the machine holds it: where it is (one place at a time; nil: not held, settled until it changes)
    /// and what the machine told about it, so that each thing is told once.
    struct EntryState {
        enum Place {
            /// To stamp now, in queue order.
            case queued(ticket: Int)
            /// To look at again at a time: settling after a write, after it changed under a stamp, dated ahead of
            /// now, or until history can be asked again (its notes say which).
            case deferred(until: C.Instant)
            /// An editor or a sync tool has it open; the lock file's going brings it back as an arrival.
            indirect case locked(EditorLock)
            /// In a batch now; `again`: written again meanwhile, so looked at again once the batch is back.
            case inBatch(again: Again?)
            /// Read while there was no current weather: it waits for it, in order.
            case awaitingWeather(ticket: Int)
            /// Back-dated: the weather of its time is asked for (`asked`) or waits its turn (`HistoryTurns`).
            indirect case awaitingHistory(HistoryRequest, asked: Bool)
            /// The weather of its time came: to stamp with it, in order.
            indirect case historical(WeatherTag, ticket: Int)
        }

        var place: Place?
        /// Its version once settled (stamped, already stamped, left alone), kept while the shell polls.
        var settled: FileVersion? {
            get { self.settledVersion?.value }
            set { self.settledVersion = newValue.map(OutOfLine.init) }
        }
        private var settledVersion: OutOfLine<FileVersion>?
        /// What the machine told about it, out of line: most entries never need any, and inline it made every entry
        /// of a 50,000-entry burst half a kilobyte.
        private var told: OutOfLine<Told>?

        /// Why it was last left alone: a rescan does not tell it again.
        var leftAlone: LeftAloneReason? {
            get { self.told?.value.leftAlone }
            set { self.tell(unlessNothing: newValue == nil) { $0.leftAlone = newValue } }
        }
        /// The lock it was last told waiting for, until it is stamped: a save while the editor stays open is looked
        /// at again, but not told again.
        var reportedLock: EditorLock? {
            get { self.told?.value.reportedLock }
            set { self.tell(unlessNothing: newValue == nil) { $0.reportedLock = newValue } }
        }
        /// How often in a row it changed under a stamp.
        var changedAttempts: Int {
            get { self.told?.value.changedAttempts ?? 0 }
            set { self.tell(unlessNothing: newValue == 0) { $0.changedAttempts = newValue } }
        }
        /// What it is dated, while dated ahead of now.
        var datedAhead: EntryTime? {
            get { self.told?.value.datedAhead }
            set { self.tell(unlessNothing: newValue == nil) { $0.datedAhead = newValue } }
        }
        /// The history failure it waits out (told once per kind). Out of line on its own, not in `Told`: every entry
        /// of a diary moved in waits out history's pacing at once, and as part of `Told` each one cost the whole
        /// record (360 bytes; 1.3 MB of a ten-year diary's 3,650).
        var historyFailure: (error: any Error, kind: FailureKind)? {
            get { self.failure?.value }
            set { self.failure = newValue.map(OutOfLine.init) }
        }
        private var failure: OutOfLine<(error: any Error, kind: FailureKind)>?

        /// Changes what was told; `unlessNothing`: the change clears a field, which is nothing to do when nothing
        /// was told (most entries: a record made and dropped again cost 2,000 instructions a field an entry).
        private mutating func tell(unlessNothing clears: Bool, _ body: (inout Told) -> Void) {
            if clears, self.told == nil { return }
            var told = self.told?.value ?? Told()
            body(&told)
            self.told = told.isEmpty ? nil : OutOfLine(told)
        }

        /// Holds nothing and remembers nothing: forgotten.
        var isEmpty: Bool {
            self.place == nil && self.settledVersion == nil && self.told == nil && self.failure == nil
        }
    }

    struct Told {
        var leftAlone: LeftAloneReason?
        var reportedLock: EditorLock?
        var changedAttempts = 0
        var datedAhead: EntryTime?

        var isEmpty: Bool {
            self.leftAlone == nil && self.reportedLock == nil && self.changedAttempts == 0 && self.datedAhead == nil
        }
    }

    /// When an entry written again while in a batch is looked at again.
    enum Again {
        case now
        case at(C.Instant)

        var instant: C.Instant? {
            if case .at(let instant) = self { return instant }
            return nil
        }
    }

    /// How many entries are in each kind of place (kept in step by `update`, so the shell's questions after every
    /// event cost nothing).
    struct Counts {
        var held = 0
        /// Held and on their way (queued, settling, in a batch, answered by history), not waiting on the world
        /// (weather, history, an editor, their day): what `intakeLimit` bounds, so that nothing waits in the intake
        /// behind an outage or a diary's history.
        var moving = 0
        var queued = 0
        var deferred = 0
        var deferredForHistory = 0
        var awaitingWeather = 0
        /// Back-dated entries waiting for their weather: asked about, answered, or deferred after a failure.
        var history = 0

        mutating func add(_ entry: EntryState) { self.count(entry, 1) }
        mutating func remove(_ entry: EntryState) { self.count(entry, -1) }

        private mutating func count(_ entry: EntryState, _ change: Int) {
            guard let place = entry.place else { return }
            self.held += change
            switch place {
            case .queued:
                self.queued += change
                self.moving += change
            case .deferred:
                self.deferred += change
                if entry.historyFailure != nil {
                    self.deferredForHistory += change
                    self.history += change
                } else if entry.datedAhead == nil {
                    self.moving += change
                }
            case .awaitingWeather: self.awaitingWeather += change
            case .awaitingHistory: self.history += change
            case .historical:
                self.history += change
                self.moving += change
            case .inBatch: self.moving += change
            case .locked: break
            }
        }
    }
}

/// History's turn, a sub-machine of the inbox's: back-dated entries are asked about in the order they came, at most
/// `limit` at a time (a diary of thousands moved in does not hold thousands of questions open). Which entries still
/// wait is the inbox's map's to say; this keeps only the order and the asks out.
struct HistoryTurns: Sendable {
    let limit: Int
    private(set) var asked = 0
    private var turn = TicketOrder()

    init(limit: Int) {
        self.limit = limit
    }

    var hasRoom: Bool { self.asked < self.limit }

    /// `name` waits for its turn.
    mutating func join(_ name: String) { self.turn.append(name, ticket: 0) }

    /// Whose turn it is (the inbox checks it still waits).
    mutating func next() -> String? { self.turn.popFirst()?.name }

    /// One more ask is out.
    mutating func asking() { self.asked += 1 }

    /// An ask came back (answered or failed).
    mutating func answered() { self.asked = max(0, self.asked - 1) }
}

/// Names in the order they took a place, each with the ticket of that place: an index over the inbox's map, read
/// lazily (a name whose state no longer holds the ticket is skipped), so it can never disagree with the map.
struct TicketOrder: Sendable {
    private var items: [(name: String, ticket: Int)] = []
    private var head = 0

    mutating func append(_ name: String, ticket: Int) {
        self.items.append((name, ticket))
    }

    /// The slots it keeps, taken or not.
    var capacity: Int { self.items.capacity }

    mutating func popFirst() -> (name: String, ticket: Int)? {
        guard self.head < self.items.count else { return nil }
        let item = self.items[self.head]
        self.head += 1
        // What was taken is dropped once it is half: copied rather than removed in place, which kept the capacity
        // of the longest queue ever (half a MiB after a 30,000-entry burst).
        if self.head > 1024 && self.head * 2 > self.items.count {
            self.items = Array(self.items[self.head...])
            self.head = 0
        }
        return item
    }
}

/// Names in the order they came, taken from the front, kept as their bytes one after another, each ended by a NUL
/// (no path holds one): a name of 10 bytes costs 11, where a `String` costs 16 inline, and a name longer than 15
/// bytes (`2026/11/evening walk.md`) 16 and an allocation of 48 to 64 more. The intake holds a burst's names this way.
struct NameLine: Sendable {
    private var bytes: [UInt8] = []
    private var head = 0
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { self.count == 0 }

    /// The bytes it keeps, taken or not.
    var capacity: Int { self.bytes.capacity }

    mutating func append(_ name: String) {
        self.bytes.append(contentsOf: name.utf8)
        self.bytes.append(0)
        self.count += 1
    }

    mutating func popFirst() -> String? {
        guard let (name, end) = self.name(at: self.head) else { return nil }
        self.head = end
        self.count -= 1
        // What was taken is dropped once it is half, as `TicketOrder` does.
        if self.head > 16_384 && self.head * 2 > self.bytes.count {
            self.bytes = Array(self.bytes[self.head...])
            self.head = 0
        }
        return name
    }

    /// The names of two lines in name order, each once: both are in name order, as a listing's rest is.
    static func merging(_ first: NameLine, _ second: NameLine) -> NameLine {
        var (first, second, merged) = (first, second, NameLine())
        var (a, b) = (first.popFirst(), second.popFirst())
        while let next = [a, b].compactMap({ $0 }).min() {
            merged.append(next)
            if a == next { a = first.popFirst() }
            if b == next { b = second.popFirst() }
        }
        return merged
    }

    /// Each name still in line, in order.
    func forEach(_ body: (String) -> Void) {
        var start = self.head
        while let (name, end) = self.name(at: start) {
            body(name)
            start = end
        }
    }

    /// The name starting at `start`, and where the next one starts.
    private func name(at start: Int) -> (String, next: Int)? {
        guard start < self.bytes.count else { return nil }
        let end = self.bytes[start...].firstIndex(of: 0) ?? self.bytes.count
        return (String(decoding: self.bytes[start..<end], as: UTF8.self), end + 1)
    }
}

/// A value kept out of line (one pointer inline), as an indirect enum keeps it: copied on write like any value.
indirect enum OutOfLine<Value: Sendable>: Sendable {
    case value(Value)

    init(_ value: Value) { self = .value(value) }

    var value: Value {
        switch self {
        case .value(let value): return value
        }
    }
}
