/// A locale's dates, times and numbers as CLDR writes them (its medium date, short time, the months' names, the day
/// periods, the decimal sign and the temperature units' patterns), made from Babel's CLDR by
/// `tools/calendar-words.py` into `CalendarWords+Catalog.swift` for 89 locales.
///
/// Written here rather than with Foundation's `DateFormatter`, which is FoundationInternationalization's and brings
/// ICU's 34 MB of data into the one binary (docs/PERFORMANCE.md), and rather than glibc's `strftime_l`, which knows a
/// locale only once it is installed (`locale-gen`), speaks none without, and has no pattern for a month and its year.
/// The patterns use CLDR's letters (`y`, `M`/`L`, `d`, `H`, `h`, `m`, `a`/`B`, quoted literals); the catalog uses
/// no others.
package struct CalendarWords: Sendable, Equatable {
    /// The medium date (`MMM d, y`; `y. M. d.`; `dd.MM.y`).
    package var date: String
    /// The short time (`h:mm a`; `HH:mm`).
    package var time: String
    /// How a date and a time are joined: `{1}` the date, `{0}` the time (`{1}, {0}`).
    package var dateTime: String
    /// A month and its year (`MMMM y`; `y년 MMMM`).
    package var month: String
    /// The short one (`MMM y`; `y年M月`).
    package var shortMonth: String
    /// The months' names, January first, as a date names them (`M`: Czech `března`, of March).
    package var months: [String]
    package var shortMonths: [String]
    /// As they are named alone (`L`: Czech `březen`, March), in a month's heading and a chart's labels.
    package var standAloneMonths: [String]
    package var standAloneShortMonths: [String]
    package var am: String
    package var pm: String
    /// The decimal sign (`.`; `,`).
    package var decimal: String
    /// The units' patterns, `{0}` the number (`{0}°C`; `{0} °C`).
    package var celsius: String
    package var fahrenheit: String
    package var kelvin: String

    /// English as the United States writes it, the words when a locale has none (the catalog always has them: the
    /// suite checks it against Babel).
    package static let english = Self.catalog["en"] ?? Self.numeric

    /// Numbers for names: what no locale would need.
    private static let numeric = CalendarWords(
        date: "y-MM-dd", time: "HH:mm", dateTime: "{1} {0}", month: "y-MM", shortMonth: "y-MM",
        months: (1...12).map(String.init), shortMonths: (1...12).map(String.init),
        standAloneMonths: (1...12).map(String.init), standAloneShortMonths: (1...12).map(String.init), am: "AM",
        pm: "PM", decimal: ".", celsius: "{0}°C", fahrenheit: "{0}°F", kelvin: "{0} K")

    /// The words of `locale` (`ko_KR.UTF-8`, `en_GB`, `zh_TW`, `kr`): the locale's own, else its language's, else
    /// English.
    package static func of(_ locale: String) -> CalendarWords {
        let name = MessageLanguages.normalized(locale)
        if let words = Self.catalog[name] { return words }
        let language = String(name.prefix { $0 != "_" && $0 != "@" })
        return Self.catalog[language] ?? .english
    }

    /// Whether the catalog has words for `locale`'s language (English otherwise).
    package static func has(_ locale: String) -> Bool {
        let name = MessageLanguages.normalized(locale)
        return Self.catalog[String(name.prefix { $0 != "_" && $0 != "@" })] != nil
    }

    /// The parts of a moment a pattern shows: its civil date and time on the clock it is shown on.
    package struct Moment: Sendable, Equatable {
        package var year: Int
        package var month: Int
        package var day: Int
        package var hour: Int
        package var minute: Int

        package init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0) {
            (self.year, self.month, self.day, self.hour, self.minute) = (year, month, day, hour, minute)
        }
    }

    /// A pattern read once: literal text, and fields (a pattern letter and how many times it is repeated).
    package enum Piece: Sendable, Equatable {
        case literal(String)
        case field(Character, Int)
    }

    /// `pattern`'s pieces: each run of one ASCII letter is a field, `'…'` is literal (`''` a quote), anything else is
    /// as it is.
    package static func pieces(_ pattern: String) -> [Piece] {
        var pieces: [Piece] = []
        var literal = ""
        let letters = Array(pattern)
        var index = 0
        while index < letters.count {
            let letter = letters[index]
            if letter == "'" {
                // A quoted literal, or '' for a quote.
                var end = index + 1
                if end < letters.count, letters[end] == "'" {
                    literal.append("'")
                    index = end + 1
                    continue
                }
                while end < letters.count, letters[end] != "'" {
                    literal.append(letters[end])
                    end += 1
                }
                index = end + 1
                continue
            }
            guard letter.isASCII, letter.isLetter else {
                literal.append(letter)
                index += 1
                continue
            }
            var count = 1
            while index + count < letters.count, letters[index + count] == letter { count += 1 }
            if !literal.isEmpty { pieces.append(.literal(literal)) }
            literal = ""
            pieces.append(.field(letter, count))
            index += count
        }
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        return pieces
    }

    /// `moment` written by `pattern` (`pieces`).
    package func format(_ pattern: String, _ moment: Moment) -> String {
        self.format(Self.pieces(pattern), moment)
    }

    /// `moment` written by a pattern read once (`pieces`).
    package func format(_ pieces: [Piece], _ moment: Moment) -> String {
        var result = ""
        for piece in pieces {
            switch piece {
            case .literal(let text): result += text
            case .field(let letter, let count): result += self.field(letter, count, moment)
            }
        }
        return result
    }

    private func field(_ letter: Character, _ count: Int, _ moment: Moment) -> String {
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let month = max(1, min(12, moment.month))
        switch letter {
        case "y", "Y", "u": return count == 2 ? padded(moment.year % 100, 2) : padded(moment.year, count)
        case "M", "L":
            let alone = letter == "L"
            switch count {
            case 1, 2: return padded(month, count)
            case 3: return (alone ? self.standAloneShortMonths : self.shortMonths)[month - 1]
            default: return (alone ? self.standAloneMonths : self.months)[month - 1]
            }
        case "d": return padded(moment.day, count)
        case "H": return padded(moment.hour, count)
        case "k": return padded(moment.hour == 0 ? 24 : moment.hour, count)
        case "h": return padded(moment.hour % 12 == 0 ? 12 : moment.hour % 12, count)
        case "K": return padded(moment.hour % 12, count)
        case "m": return padded(moment.minute, count)
        case "a", "b", "B": return moment.hour < 12 ? self.am : self.pm
        default: return String(repeating: letter, count: count)
        }
    }

    /// `value` with this locale's decimal sign (`12,3` under `de`), `decimals` after it.
    package func number(_ value: Double, decimals: Int) -> String {
        let said = String(cFormat: "%.\(decimals)f", value)
        return self.decimal == "." ? said : said.replacing(".", with: self.decimal)
    }

    /// A temperature with its unit as this locale writes it (`12.3°C`; `12,3 °C` under `de`): `units` as the stamp
    /// names them (`metric`, `imperial`, `standard`).
    package func temperature(_ value: Double, units: String?, decimals: Int) -> String {
        let pattern: String
        switch units {
        case "imperial": pattern = self.fahrenheit
        case "standard": pattern = self.kelvin
        default: pattern = self.celsius
        }
        return pattern.replacing("{0}", with: self.number(value, decimals: decimals))
    }
}
