/// Exponential backoff with full jitter and a ceiling: attempt n waits a random time in
/// [base·2ⁿ / 2, base·2ⁿ], never more than `ceiling`. Pure: the random source is passed in.
public struct Backoff: Sendable, Equatable {
    public var base: Duration
    public var ceiling: Duration
    public private(set) var attempt: Int = 0

    public init(base: Duration = .seconds(1), ceiling: Duration = .seconds(300)) {
        self.base = base
        self.ceiling = ceiling
    }

    /// The delay before the next try; counts an attempt.
    public mutating func next(using generator: inout some RandomNumberGenerator) -> Duration {
        let exponent = min(self.attempt, 30)
        self.attempt += 1
        let full = min(self.base.seconds * Double(1 << exponent), self.ceiling.seconds)
        let jittered = Double.random(in: (full / 2)...full, using: &generator)
        return .milliseconds(Int64(jittered * 1000))
    }

    public mutating func next() -> Duration {
        var generator = SystemRandomNumberGenerator()
        return self.next(using: &generator)
    }

    /// Back to the first delay after a success.
    public mutating func reset() {
        self.attempt = 0
    }
}
