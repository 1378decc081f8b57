import FoundationEssentials

extension Date {
    /// `2026-11-22T09:41:00Z`: whole seconds, UTC, as stamped and served.
    package var iso8601: String {
        self.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }

    /// `2026-11-22T18:41:00+09:00` (or `…Z`): the moment, whatever the offset.
    package init?(iso8601WithOffset string: String) {
        guard let date = try? Date.ISO8601FormatStyle().parse(string) else { return nil }
        self = date
    }

    package init?(iso8601 string: String) {
        guard let date = try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(string) else { return nil }
        self = date
    }
}

extension Date {
    /// `2026-11-22T18:41:00+09:00`: whole seconds, in a place's own time (its offset from UTC in seconds).
    package func iso8601(utcOffset seconds: Int) -> String {
        let local = Date(timeIntervalSince1970: (self.timeIntervalSince1970 + Double(seconds)).rounded(.down))
        // The local wall-clock time written as if it were UTC, then the offset.
        let wall = local.iso8601.dropLast()
        let sign = seconds < 0 ? "-" : "+"
        let minutes = abs(seconds) / 60
        return wall + sign + String(cFormat: "%02d:%02d", minutes / 60, minutes % 60)
    }
}
