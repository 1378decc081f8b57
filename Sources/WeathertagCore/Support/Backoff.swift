/// Exponential backoff with full jitter and a ceiling: attempt n waits a random time in
/// [base·2ⁿ / 2, base·2ⁿ], never more than `ceiling`. Pure: the random source is passed in.
package struct Backoff: Sendable, Equatable {
    package var base: Duration
    package var ceiling: Duration
    package private(set) var attempt: Int = 0

    package init(base: Duration = .seconds(1), ceiling: Duration = .seconds(300)) {
        self.base = base
        self.ceiling = ceiling
    }

    /// The delay before the next try; counts an attempt.
    package mutating func next(using generator: inout some RandomNumberGenerator) -> Duration {
        let exponent = min(self.attempt, 30)
        self.attempt += 1
        let full = min(self.base.seconds * Double(1 << exponent), self.ceiling.seconds)
        let jittered = Double.random(in: (full / 2)...full, using: &generator)
        return .milliseconds(Int64(jittered * 1000))
    }

    package mutating func next() -> Duration {
        var generator = SystemRandomNumberGenerator()
        return self.next(using: &generator)
    }

    /// Back to the first delay after a success.
    package mutating func reset() {
        self.attempt = 0
    }
}
