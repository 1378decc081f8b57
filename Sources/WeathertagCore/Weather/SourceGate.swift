import FoundationEssentials

/// One weather source's right to be asked now: no more than `maximumPerMinute` calls in any 60 seconds, and after a
/// failure nothing until its backoff (at least the error's own minimum, such as a 429's) has passed. Pure: the time
/// is given; `WeatherService` keeps one per source and moves on to the next source while a gate is shut.
package struct SourceGate: Sendable {
    package let source: String
    package let maximumPerMinute: Int
    private var backoff: Backoff
    /// When the source may be asked again after its last failure; nil while it answers.
    package private(set) var nextAttemptAt: Date?
    package private(set) var lastError: WeatherError?
    /// When the calls of the last minute were made, oldest first.
    private var recentCalls: [Date] = []

    package init(
        source: String, maximumPerMinute: Int, backoff: Backoff = Backoff(base: .seconds(1), ceiling: .seconds(300))
    ) {
        self.source = source
        self.maximumPerMinute = maximumPerMinute
        self.backoff = backoff
    }

    /// Counts a call at `now` and returns nil, or returns why the source may not be asked yet: its last error while
    /// it backs off, or the per-minute ceiling.
    package mutating func admit(now: Date, ceilingName: String) -> WeatherError? {
        if let nextAttemptAt, now < nextAttemptAt, let lastError { return lastError }
        self.recentCalls.removeAll { now.timeIntervalSince($0) >= 60 || now < $0 }
        if self.recentCalls.count >= self.maximumPerMinute {
            let wait = 60 - now.timeIntervalSince(self.recentCalls[0])
            return WeatherError(
                kind: .rateLimited(retryAfter: .milliseconds(Int64(wait * 1000))),
                message: "holding back: \(self.recentCalls.count) \(self.source) calls in the last minute "
                    + "(\(ceilingName))")
        }
        self.recentCalls.append(now)
        return nil
    }

    /// The source answered. True when it had been failing (worth a line in the log).
    package mutating func succeeded() -> Bool {
        defer {
            self.backoff.reset()
            self.nextAttemptAt = nil
            self.lastError = nil
        }
        return self.lastError != nil
    }

    /// The source failed at `now`: it is not asked again before its backoff. True when this failure is news (not
    /// the same message as the last one), worth a line in the log.
    package mutating func failed(_ error: WeatherError, now: Date) -> Bool {
        let delay = max(self.backoff.next(), error.minimumRetryDelay)
        self.nextAttemptAt = now.addingTimeInterval(delay.seconds)
        defer { self.lastError = error }
        return self.lastError?.message != error.message
    }
}
