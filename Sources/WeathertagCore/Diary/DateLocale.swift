import FoundationEssentials

/// Dates, times and numbers in the reader's locale, as CLDR writes them (`CalendarWords`): `Mar 5, 2026, 3:30 PM`
/// for `en_US`, `5 Mar 2026, 15:30` for `en_GB`, `2026. 3. 5. 오후 3:30` for `ko`, `05.03.2026, 15:30` for `de`;
/// whether or not the machine has the locale installed. A locale CLDR does not have is its language's, else
/// English.
package struct DateLocale: Sendable, Equatable, CustomStringConvertible {
    /// `ko_KR`, `en_US`: language and region, without the encoding.
    package let identifier: String
    /// The locale's dates and numbers (CLDR's).
    package let words: CalendarWords

    /// Its patterns, read once (a page of 50,000 entries writes 100,000 dates).
    private let day: [CalendarWords.Piece]
    private let dayAndTime: [CalendarWords.Piece]
    private let month: [CalendarWords.Piece]
    private let shortMonth: [CalendarWords.Piece]

    package init(identifier: String) {
        self.identifier = identifier
        let words = CalendarWords.of(identifier)
        self.words = words
        self.day = CalendarWords.pieces(words.date)
        // The glue is a pattern too (`{1} 'à' {0}`): the date's and the time's patterns put in it, then read.
        self.dayAndTime = CalendarWords.pieces(
            words.dateTime.replacing("{1}", with: words.date).replacing("{0}", with: words.time))
        self.month = CalendarWords.pieces(words.month)
        self.shortMonth = CalendarWords.pieces(words.shortMonth)
    }

    package static func == (left: DateLocale, right: DateLocale) -> Bool { left.identifier == right.identifier }

    package static let english = DateLocale(identifier: "en_US")

    /// The language part: `ko` of `ko_KR`.
    package var language: String { String(self.identifier.prefix { $0 != "_" && $0 != "-" }) }

    package var description: String { self.identifier }

    package enum Style: Sendable {
        /// The medium date: `Jan 5, 2025`; `2025. 1. 5.`; `05.01.2025`.
        case day
        /// The day and the time of day: `Jan 5, 2025, 3:30 PM`; `2025. 1. 5. 오후 3:30`; `05.01.2025, 15:30`.
        case dayAndTime
        /// `January 2025`; `2025년 1월`; `Januar 2025`.
        case month
        /// `Jan 2025`; `2025년 1월`; `Jan. 2025`.
        case shortMonth
        /// `Jan`; `1월`.
        case monthName
    }

    /// A month's short name (`Jan`; `1월` under `ko_KR`; `März` under `de`).
    package func monthName(_ month: Int) -> String {
        self.words.standAloneShortMonths[max(1, min(12, month)) - 1]
    }

    /// `date` in `zone`, in this language.
    package func string(_ date: Date, style: Style, zone: Zone) -> String {
        let words = self.words
        let offset = zone.secondsFromGMT(for: date)
        let seconds = Int((date.timeIntervalSince1970 + Double(offset)).rounded(.down))
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let civil = CivilCalendar.civil(fromDays: days)
        let second = seconds - days * 86_400
        let moment = CalendarWords.Moment(
            year: civil.year, month: civil.month, day: civil.day, hour: second / 3600, minute: second % 3600 / 60)
        switch style {
        case .day: return words.format(self.day, moment)
        case .dayAndTime: return words.format(self.dayAndTime, moment)
        case .month: return words.format(self.month, moment)
        case .shortMonth: return words.format(self.shortMonth, moment)
        case .monthName: return words.standAloneShortMonths[max(1, min(12, civil.month)) - 1]
        }
    }
}
