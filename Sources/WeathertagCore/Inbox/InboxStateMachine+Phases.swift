extension InboxStateMachine {
    /// The machine's own phase, as swift-nio and async-http-client keep a connection's: one value, so that "stopping
    /// while the look-over runs" or "halted and listing" is a case or is not, never two flags that must agree.
    enum Lifecycle {
        /// The store's look-over at start-up (`checksIntegrity`): nothing is listed or stamped while it runs.
        case checkingIntegrity
        case running
        /// The thread pool refused work (the process is stopping): nothing more starts; listings still run.
        case halted
        /// `stop` came: nothing more starts, and `.finish` goes out once no batch is in flight.
        case stopping

        /// Batches, fetches and history may start.
        var starts: Bool {
            if case .running = self { return true }
            return false
        }
    }

    /// Current weather, one concern of the machine: whether it is being asked for, the last answer (reused for
    /// `tagReuse`, so entries arriving together share it), and a failure with its backoff. Its events return what the
    /// machine must do about them; it decides nothing about entries.
    struct CurrentWeather {
        enum State {
            /// Never asked for.
            case idle
            /// Asked for; `last` and `error` are what the previous asks left.
            case fetching(last: Received?, error: (any Error)?)
            /// The last answer, and when it came.
            case have(Received)
            /// The last ask failed: nothing is asked before `retryAt` (nil once that time has come). Entries wait with
            /// its error until an answer comes.
            case failed(any Error, retryAt: C.Instant?, last: Received?)
        }

        struct Received {
            var tag: WeatherTag
            var at: C.Instant
        }

        private(set) var state = State.idle
        private var backoff: Backoff

        init(backoff: Backoff) {
            self.backoff = backoff
        }

        /// The last answer, however old (nil: none ever came).
        var last: Received? {
            switch self.state {
            case .idle: return nil
            case .fetching(let last, _), .failed(_, _, let last): return last
            case .have(let received): return received
            }
        }

        /// Why weather could not be had the last time it was asked for (nil once an answer comes).
        var error: (any Error)? {
            switch self.state {
            case .idle, .have: return nil
            case .fetching(_, let error): return error
            case .failed(let error, _, _): return error
            }
        }

        /// In its backoff after a failure: nothing asks for it before `retryAt`.
        var retryAt: C.Instant? {
            if case .failed(_, let retryAt, _) = self.state { return retryAt }
            return nil
        }

        var isPaused: Bool { self.retryAt != nil }

        var isFetching: Bool {
            if case .fetching = self.state { return true }
            return false
        }

        /// The tag to stamp with now: the last answer if it came within `reuse` and no failure came after it.
        func fresh(at now: C.Instant, reuse: Duration) -> WeatherTag? {
            guard case .have(let received) = self.state, now < received.at.advanced(by: reuse) else { return nil }
            return received.tag
        }

        /// Asks for weather unless an ask is out: true when the machine must send `.fetchWeather`.
        mutating func fetch() -> Bool {
            guard !self.isFetching else { return false }
            self.state = .fetching(last: self.last, error: self.error)
            return true
        }

        mutating func arrived(_ tag: WeatherTag, at now: C.Instant) {
            self.backoff.reset()
            self.state = .have(Received(tag: tag, at: now))
        }

        /// The ask failed: the delay before the next (the service's own `retryAfter`, or the backoff's).
        mutating func failed(_ error: any Error, retryAfter: Duration?, at now: C.Instant) -> Duration {
            let delay = retryAfter ?? self.backoff.next()
            self.state = .failed(error, retryAt: now.advanced(by: delay), last: self.last)
            return delay
        }

        /// Time passed: a backoff that is over lets the next ask go out.
        mutating func wokeUp(at now: C.Instant) {
            guard case .failed(let error, let retryAt?, let last) = self.state, retryAt <= now else { return }
            self.state = .failed(error, retryAt: nil, last: last)
        }
    }

    /// Writing, the other concern: it works, or it fails (disk full, read-only) and everything waits out its
    /// backoff. Each kind of failure is told once.
    struct Writes {
        enum State {
            case working
            /// Writes failed with `error`; nothing is stamped before `retryAt` (nil once that time has come, until a
            /// batch writes again).
            case failing(any Error, FailureKind, retryAt: C.Instant?)
        }

        private(set) var state = State.working
        private var backoff: Backoff

        init(backoff: Backoff) {
            self.backoff = backoff
        }

        var error: (any Error)? {
            if case .failing(let error, _, _) = self.state { return error }
            return nil
        }

        var retryAt: C.Instant? {
            if case .failing(_, _, let retryAt) = self.state { return retryAt }
            return nil
        }

        var isPaused: Bool { self.retryAt != nil }

        /// A write failed: how long to wait, and whether this kind of failure is new (worth telling).
        mutating func failed(_ error: any Error, at now: C.Instant) -> (retryIn: Duration, firstTime: Bool) {
            let delay = self.backoff.next()
            let kind = FailureKind(error)
            var firstTime = true
            if case .failing(_, let previous, _) = self.state { firstTime = previous != kind }
            self.state = .failing(error, kind, retryAt: now.advanced(by: delay))
            return (delay, firstTime)
        }

        /// A batch wrote: true when writing had failed before (worth telling that it works again).
        mutating func succeeded() -> Bool {
            guard case .failing = self.state else { return false }
            self.backoff.reset()
            self.state = .working
            return true
        }

        mutating func wokeUp(at now: C.Instant) {
            guard case .failing(let error, let kind, let retryAt?) = self.state, retryAt <= now else { return }
            self.state = .failing(error, kind, retryAt: nil)
        }
    }

    /// Names arrived or listed and not yet handed to the diary index, and when they are due (`noticeDelay`).
    struct Notices {
        private(set) var due: C.Instant?
        private var names: [String] = []

        mutating func arrived(_ names: [String], at now: C.Instant, delay: Duration) {
            guard !names.isEmpty else { return }
            if self.due == nil { self.due = now.advanced(by: delay) }
            self.names += names
        }

        /// The names due by `now`, taken out.
        mutating func take(at now: C.Instant) -> [String]? {
            guard let due = self.due, due <= now else { return nil }
            defer {
                self.names = []
                self.due = nil
            }
            return self.names
        }
    }
}
