import FoundationEssentials

/// An HTTP `Retry-After` value (RFC 9110 §10.2.3): seconds (`120`) or an HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`,
/// IMF-fixdate, the form the RFC says to send). It applies to the service, not to one request: the source's gate
/// stays shut that long. Nil for anything else, a date already past included.
package enum RetryAfter {
    /// What a service may ask for at most: a day (a larger value is taken as a day).
    package static let longest: Duration = .seconds(86_400)

    package static func parse(_ value: String?, now: Date) -> Duration? {
        guard let text = value?.trimmingWhitespace(), !text.isEmpty else { return nil }
        if text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) {
            guard let seconds = Int(text.prefix(9)) else { return nil }
            return min(.seconds(seconds), Self.longest)
        }
        guard let date = Self.date(text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        guard seconds > 0 else { return nil }
        return min(.milliseconds(Int64((seconds * 1000).rounded(.up))), Self.longest)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let fixdate = Pattern(
        #"^[A-Z][a-z]{2}, (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$"#)

    /// `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func date(_ text: String) -> Date? {
        guard let groups = Self.fixdate?.firstMatch(in: text), let month = groups[2].flatMap(Self.months.firstIndex),
            let day = groups[1].flatMap({ Int($0) }), let year = groups[3].flatMap({ Int($0) }),
            let hour = groups[4].flatMap({ Int($0) }), let minute = groups[5].flatMap({ Int($0) }),
            let second = groups[6].flatMap({ Int($0) }), hour < 24, minute < 60, second < 61
        else { return nil }
        let date = Zone.utc.date(
            from: DateComponents(year: year, month: month + 1, day: day, hour: hour, minute: minute, second: second))
        // A day the month does not have is no date (not the next month's).
        guard let date, Zone.utc.calendar(at: date).component(.day, from: date) == day else { return nil }
        return date
    }
}
