import Foundation

extension Date {
    /// `2026-11-22T09:41:00Z`: whole seconds, UTC, as stamped and served.
    public var iso8601: String {
        self.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }

    public init?(iso8601 string: String) {
        guard let date = try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(string) else { return nil }
        self = date
    }
}
