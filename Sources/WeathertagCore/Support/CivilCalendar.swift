import FoundationEssentials

/// Days and years of the proleptic Gregorian calendar as integers since 1970-01-01 (Howard Hinnant's
/// `days_from_civil` and `civil_from_days`): what the track reader and the tz rules need, without a `Calendar`.
enum CivilCalendar {
    /// Days from 1970-01-01 to `year`-`month`-`day`.
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Days in `month` of `year` (February 29 in leap years).
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The year of the day `days` after 1970-01-01.
    static func year(ofDay days: Int) -> Int { Self.civil(fromDays: days).year }

    /// The year, month and day of the day `days` after 1970-01-01.
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension CivilCalendar {
    /// The date and wall-clock time of `date` at `utcOffset` seconds east of UTC, without a `Calendar`.
    static func wallClock(_ date: Date, utcOffset: Int) -> WallClock {
        let seconds = Int((date.timeIntervalSince1970).rounded(.down)) + utcOffset
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = Self.civil(fromDays: days)
        return WallClock(
            year: year, month: month, day: day, hour: secondOfDay / 3600,
            minute: secondOfDay % 3600 / 60, second: secondOfDay % 60)
    }
}

/// A date and time of day as a clock on a wall shows it: no zone.
package struct WallClock: Sendable, Equatable {
    package var year: Int
    package var month: Int
    package var day: Int
    package var hour: Int
    package var minute: Int
    package var second: Int

    package init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        (self.year, self.month, self.day, self.hour, self.minute, self.second) = (
            year, month, day, hour, minute, second
        )
    }

    /// The wall clock of `date` at `utcOffset` seconds east of UTC.
    package init(_ date: Date, utcOffset: Int) {
        self = CivilCalendar.wallClock(date, utcOffset: utcOffset)
    }
}
