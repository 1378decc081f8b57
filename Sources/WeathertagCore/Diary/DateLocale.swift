import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Dates in the reader's language, as the C library's locales write them (`date` and `ls` do the same): month
/// names from the locale when it is installed (`locale -a`), English otherwise.
///
/// Written here rather than with Foundation's `DateFormatter`: that is FoundationInternationalization's, which
/// brings ICU (34 MB of data) into the one binary the daemon also runs from (docs/PERFORMANCE.md).
package struct DateLocale: Sendable, Equatable, CustomStringConvertible {
    /// `ko_KR`, `en_US`: language and region, without the encoding.
    package let identifier: String

    package init(identifier: String) { self.identifier = identifier }

    package static let english = DateLocale(identifier: "en_US")

    /// The language part: `ko` of `ko_KR`.
    package var language: String { String(self.identifier.prefix { $0 != "_" && $0 != "-" }) }

    package var description: String { self.identifier }

    package enum Style: Sendable {
        /// `Jan 5, 2025`; the locale's own date (`%x`: `2025년 01월 05일`) in other languages.
        case day
        /// The day and the time of day: `Jan 5, 2025, 3:30 PM`; `2025년 01월 05일 15:30`.
        case dayAndTime
        /// `January 2025`; `2025 1월`.
        case month
        /// `Jan 2025`; `2025-01`.
        case shortMonth
        /// `Jan`; `1월`.
        case monthName
    }

    /// A month's short name (`Jan`; `1월` under `ko_KR`): `%b` of the locale when it is installed.
    package func monthName(_ month: Int) -> String {
        let date = Date(timeIntervalSince1970: Double(CivilCalendar.days(year: 2001, month: month, day: 15)) * 86_400)
        return self.string(date, style: .monthName, zone: .utc)
    }

    /// `date` in `zone`, in this language.
    package func string(_ date: Date, style: Style, zone: Zone) -> String {
        let locale = self.language == "en" ? nil : newlocale(Int32(1) << LC_TIME, self.identifier + ".UTF-8", nil)
        defer { if let locale { freelocale(locale) } }
        let pattern: String
        switch (style, locale != nil) {
        case (.day, false): pattern = "%b %-d, %Y"
        case (.dayAndTime, false): pattern = "%b %-d, %Y, %-I:%M %p"
        case (.month, false): pattern = "%B %Y"
        case (.shortMonth, false): pattern = "%b %Y"
        case (.day, true): pattern = "%x"
        case (.dayAndTime, true): pattern = "%x %H:%M"
        case (.month, true): pattern = "%Y %B"
        case (.shortMonth, true): pattern = "%Y-%m"
        case (.monthName, _): pattern = "%b"
        }
        let offset = zone.secondsFromGMT(for: date)
        var time = time_t((date.timeIntervalSince1970 + Double(offset)).rounded(.down))
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return date.iso8601 }
        parts.tm_gmtoff = offset
        var buffer = [CChar](repeating: 0, count: 256)
        let count =
            if let locale {
                strftime_l(&buffer, buffer.count, pattern, &parts, locale)
            } else {
                strftime(&buffer, buffer.count, pattern, &parts)
            }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
