import FoundationEssentials

// Numbers and times from other programs' answers, made into Swift's integers and dates without trapping: `Int(_:)`
// traps on a Double beyond Int's range (a service answering `"humidity": 1e300` stopped the daemon: the `fuzz-json`
// target found it), so every such conversion of an answer goes through these.

extension Double {
    /// Rounded to an integer; nil when not finite or beyond ±10¹⁵, which no measure a service sends comes near.
    package var roundedInt: Int? {
        self.isFinite && abs(self) < 1e15 ? Int(self.rounded()) : nil
    }
}

extension Date {
    /// The instants an answer may name: 0001-01-01 to 9999-12-31 (UTC), the years ISO 8601 writes.
    static let answerSeconds: ClosedRange<Double> = -62_135_596_800...253_402_300_799

    /// `seconds` since 1970; nil outside years 1 to 9999, or when not a number.
    package init?(unixSeconds seconds: Double) {
        guard seconds.isFinite, Self.answerSeconds.contains(seconds) else { return nil }
        self.init(timeIntervalSince1970: seconds)
    }
}

/// An offset from UTC an answer gives, in seconds; nil beyond a day either way (real ones are within ±14 hours).
package func answerOffset(_ seconds: Int?) -> Int? {
    seconds.flatMap { abs($0) <= 86_400 ? $0 : nil }
}
