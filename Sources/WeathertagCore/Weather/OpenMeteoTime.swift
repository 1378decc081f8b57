import FoundationEssentials

/// A time in an Open-Meteo answer, in either of its `timeformat`s: Unix seconds (`unixtime`, what weathertag asks
/// for), or the place's local time as text (`iso8601`, the default: `2026-10-03T12:30`, or a day `2024-01-01`), which
/// Open-Meteo writes as the instant shifted by the answer's one `utc_offset_seconds`. Both are read, so an answer
/// recorded by another client (or a proxy that drops the parameter) is read right and not refused.
package struct OpenMeteoTime: Decodable, Sendable, Equatable {
    /// Unix seconds, or the local time's seconds counted as if it were UTC.
    private var seconds: Double
    private var isLocal: Bool

    /// Nil outside the years an answer may name (`Date.answerSeconds`).
    init?(unix seconds: Double) {
        guard seconds.isFinite, Date.answerSeconds.contains(seconds) else { return nil }
        self.seconds = seconds
        self.isLocal = false
    }

    /// Local time as Open-Meteo writes it; nil when it is not one.
    init?(local text: String) {
        guard let seconds = Self.localSeconds(text) else { return nil }
        self.seconds = seconds
        self.isLocal = true
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let seconds = try? container.decode(Double.self) {
            guard let time = OpenMeteoTime(unix: seconds) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "no time an answer names")
            }
            self = time
            return
        }
        let text = try container.decode(String.self)
        guard let seconds = Self.localSeconds(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an Open-Meteo time")
        }
        self.seconds = seconds
        self.isLocal = true
    }

    /// The instant, in Unix seconds: a local time less the answer's offset (none: taken as UTC, which is what
    /// Open-Meteo answers without `timezone`).
    func unix(offset: Int?) -> Double { self.isLocal ? self.seconds - Double(offset ?? 0) : self.seconds }

    /// `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM` or `YYYY-MM-DDTHH:MM:SS`, each field in range; nil otherwise.
    package static func localSeconds(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard [10, 16, 19].contains(bytes.count) else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard (0x30...0x39).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - 0x30)
            }
            return value
        }
        guard bytes[4] == 0x2D, bytes[7] == 0x2D, let year = number(0..<4), let month = number(5..<7),
            let day = number(8..<10), (1...12).contains(month), day >= 1,
            day <= CivilCalendar.daysIn(month: month, year: year)
        else { return nil }
        var hour = 0
        var minute = 0
        var second = 0
        if bytes.count >= 16 {
            guard bytes[10] == 0x54, bytes[13] == 0x3A, let h = number(11..<13), let m = number(14..<16), h < 24,
                m < 60
            else { return nil }
            (hour, minute) = (h, m)
        }
        if bytes.count == 19 {
            guard bytes[16] == 0x3A, let s = number(17..<19), s < 60 else { return nil }
            second = s
        }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second)
    }
}
