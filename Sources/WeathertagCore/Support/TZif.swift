import FoundationEssentials

/// A zone of the tz database as its compiled file says it (RFC 8536, TZif versions 2 to 4): the offset from UTC in
/// force at any instant, from the transitions, and past the last one from the POSIX TZ rule in its footer.
///
/// Written here rather than taken from a library: FoundationEssentials' `TimeZone` knows fixed offsets only (named
/// zones come with FoundationInternationalization and ICU, 34 MB of data), and glibc's `localtime_r` reads these
/// same files but only for the process's one `TZ`, which a threaded daemon cannot change safely. The format is
/// small: a header, arrays of transition times and type indexes, the types, and a footer line. Every count is read
/// within the file's bounds; a file that does not read is refused, never guessed at.
package struct TZif: Sendable, Equatable {
    /// Transition times (Unix seconds), ascending, each with the index of the type in force from then on.
    var transitions: [(time: Int64, type: Int)]
    /// Each type's offset from UTC in seconds, and whether it is summer time.
    var types: [(offset: Int, isDST: Bool)]
    /// The rule past the last transition (or for a file without any).
    var rule: PosixRule?

    /// The largest file read: the biggest zones are a few kilobytes.
    package static let maximumBytes = 256 << 10

    package static func == (lhs: TZif, rhs: TZif) -> Bool {
        lhs.transitions.elementsEqual(rhs.transitions) { $0 == $1 }
            && lhs.types.elementsEqual(rhs.types) { $0 == $1 } && lhs.rule == rhs.rule
    }

    /// Reads a TZif file's bytes; nil when they are not one (or only version 1, without 64-bit times).
    package init?(_ bytes: [UInt8]) {
        guard bytes.count <= Self.maximumBytes, let first = Header(bytes, at: 0), first.version >= 2 else {
            return nil
        }
        // The version 1 block (32-bit times) comes first; the version 2+ block follows it.
        let second = first.end(timeSize: 4)
        guard let header = Header(bytes, at: second) else { return nil }
        var reader = Reader(bytes: bytes, position: second + 44)
        var times: [Int64] = []
        for _ in 0..<header.timeCount {
            guard let time = reader.int64() else { return nil }
            times.append(time)
        }
        var indexes: [Int] = []
        for _ in 0..<header.timeCount {
            guard let index = reader.byte(), Int(index) < header.typeCount else { return nil }
            indexes.append(Int(index))
        }
        var types: [(offset: Int, isDST: Bool)] = []
        for _ in 0..<header.typeCount {
            guard let offset = reader.int32(), let isDST = reader.byte(), reader.byte() != nil else { return nil }
            types.append((Int(offset), isDST != 0))
        }
        // Abbreviations, leap seconds, standard/wall and UT/local indicators: not needed for offsets.
        let skipped = header.charCount + header.leapCount * 12 + header.isStandardCount + header.isUTCCount
        guard reader.skip(skipped), !types.isEmpty else { return nil }
        self.transitions = Array(zip(times, indexes).map { (time: $0, type: $1) })
        self.types = types
        // The footer: "\n" POSIX-TZ "\n".
        let footer = bytes[reader.position...]
        if footer.first == 0x0A, let end = footer.dropFirst().firstIndex(of: 0x0A) {
            self.rule = PosixRule(String(decoding: footer[(footer.startIndex + 1)..<end], as: UTF8.self))
        } else {
            self.rule = nil
        }
    }

    /// The offset from UTC in force at `time` (Unix seconds).
    package func offset(at time: Int64) -> Int {
        // The last transition at or before `time` (binary search).
        var low = 0
        var high = self.transitions.count
        while low < high {
            let middle = (low + high) / 2
            if self.transitions[middle].time <= time { low = middle + 1 } else { high = middle }
        }
        if low == self.transitions.count, let rule {
            return rule.offset(at: time)
        }
        if low == 0 {
            // Before the first transition: the first standard-time type, as RFC 8536 says (type 0 in practice).
            return (self.types.first { !$0.isDST } ?? self.types[0]).offset
        }
        return self.types[self.transitions[low - 1].type].offset
    }

    private struct Header {
        var version: Int
        var isUTCCount: Int
        var isStandardCount: Int
        var leapCount: Int
        var timeCount: Int
        var typeCount: Int
        var charCount: Int
        var start: Int

        init?(_ bytes: [UInt8], at start: Int) {
            guard start + 44 <= bytes.count, bytes[start..<(start + 4)].elementsEqual("TZif".utf8) else { return nil }
            var reader = Reader(bytes: bytes, position: start + 20)
            var counts: [Int] = []
            for _ in 0..<6 {
                guard let count = reader.int32(), count >= 0, count <= 1 << 16 else { return nil }
                counts.append(Int(count))
            }
            let version = bytes[start + 4]
            self.version = version == 0 ? 1 : Int(version) - 0x30
            (self.isUTCCount, self.isStandardCount, self.leapCount) = (counts[0], counts[1], counts[2])
            (self.timeCount, self.typeCount, self.charCount) = (counts[3], counts[4], counts[5])
            self.start = start
        }

        /// Where the block after this header ends, with times of `timeSize` bytes.
        func end(timeSize: Int) -> Int {
            self.start + 44 + self.timeCount * timeSize + self.timeCount + self.typeCount * 6 + self.charCount
                + self.leapCount * (timeSize + 4) + self.isStandardCount + self.isUTCCount
        }
    }

    /// Big-endian reads that never pass the end.
    private struct Reader {
        let bytes: [UInt8]
        var position: Int

        mutating func byte() -> UInt8? {
            guard self.position < self.bytes.count else { return nil }
            defer { self.position += 1 }
            return self.bytes[self.position]
        }

        mutating func int32() -> Int32? {
            guard self.position + 4 <= self.bytes.count else { return nil }
            var value: UInt32 = 0
            for byte in self.bytes[self.position..<(self.position + 4)] { value = value << 8 | UInt32(byte) }
            self.position += 4
            return Int32(bitPattern: value)
        }

        mutating func int64() -> Int64? {
            guard self.position + 8 <= self.bytes.count else { return nil }
            var value: UInt64 = 0
            for byte in self.bytes[self.position..<(self.position + 8)] { value = value << 8 | UInt64(byte) }
            self.position += 8
            return Int64(bitPattern: value)
        }

        mutating func skip(_ count: Int) -> Bool {
            guard count >= 0, self.position + count <= self.bytes.count else { return false }
            self.position += count
            return true
        }
    }
}

/// A POSIX TZ rule as a TZif footer holds it: `CET-1CEST,M3.5.0,M10.5.0/3`, `<+03>-3`, `EST5EDT,M3.2.0,M11.1.0`,
/// `AEST-10AEDT,M10.1.0,M4.1.0/3`. Offsets are written west-positive; the `M` form (month, week, weekday) is what
/// the tz database writes (`J` and plain day numbers are read too).
package struct PosixRule: Sendable, Equatable {
    /// Standard and summer offsets from UTC, east-positive (seconds).
    var standard: Int
    var summer: Int?
    var start: Day?
    var end: Day?

    /// A day of the year and the local time of day the change happens at.
    struct Day: Sendable, Equatable {
        enum Kind: Sendable, Equatable {
            /// Month 1–12, week 1–5 (5: the last), weekday 0 (Sunday)–6.
            case month(Int, week: Int, weekday: Int)
            /// `Jn`: day 1–365, February 29 never counted.
            case julian(Int)
            /// `n`: day 0–365, February 29 counted.
            case zeroBased(Int)
        }
        var kind: Kind
        /// Seconds after local midnight (may be negative or past 24 h, as version 3 allows).
        var time: Int
    }

    init?(_ text: String) {
        var scanner = Substring(text)
        guard Self.name(&scanner), let standard = Self.offset(&scanner) else { return nil }
        self.standard = -standard
        guard !scanner.isEmpty else { return }
        guard Self.name(&scanner) else { return nil }
        if let summer = Self.offset(&scanner) {
            self.summer = -summer
        } else {
            self.summer = self.standard + 3600
        }
        guard scanner.first == ",", case _ = scanner.removeFirst(), let start = Self.day(&scanner),
            scanner.first == ",", case _ = scanner.removeFirst(), let end = Self.day(&scanner), scanner.isEmpty
        else { return nil }
        (self.start, self.end) = (start, end)
    }

    /// The offset in force at `time` (Unix seconds).
    func offset(at time: Int64) -> Int {
        guard let summer, let start, let end else { return self.standard }
        // The year as the standard clock reads it; the changes are in local time of the clock in force before each.
        let year = Self.year(of: time + Int64(self.standard))
        let summerStarts = Self.instant(start, year: year) - Int64(self.standard)
        let summerEnds = Self.instant(end, year: year) - Int64(summer)
        let inSummer =
            summerStarts < summerEnds
            ? time >= summerStarts && time < summerEnds
            // Southern hemisphere: summer spans the new year.
            : time >= summerStarts || time < summerEnds
        return inSummer ? summer : self.standard
    }

    // MARK: Reading

    /// `CET`, or `<+03>`.
    private static func name(_ text: inout Substring) -> Bool {
        if text.first == "<" {
            guard let close = text.firstIndex(of: ">") else { return false }
            text = text[text.index(after: close)...]
            return true
        }
        let letters = text.prefix { $0.isLetter }
        guard letters.count >= 3 else { return false }
        text = text.dropFirst(letters.count)
        return true
    }

    /// `[+-]hh[:mm[:ss]]`, in seconds.
    private static func offset(_ text: inout Substring) -> Int? {
        var sign = 1
        if text.first == "+" || text.first == "-" {
            sign = text.first == "-" ? -1 : 1
            text = text.dropFirst()
        }
        guard let seconds = Self.clock(&text) else { return nil }
        return sign * seconds
    }

    /// `hh[:mm[:ss]]`.
    private static func clock(_ text: inout Substring) -> Int? {
        var parts: [Int] = []
        while parts.count < 3 {
            let digits = text.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 3, let value = Int(digits) else { break }
            parts.append(value)
            text = text.dropFirst(digits.count)
            guard text.first == ":" else { break }
            text = text.dropFirst()
        }
        guard let hours = parts.first, hours <= 167 else { return nil }
        return hours * 3600 + (parts.count > 1 ? parts[1] * 60 : 0) + (parts.count > 2 ? parts[2] : 0)
    }

    /// `Mm.w.d[/time]`, `Jn[/time]` or `n[/time]`.
    private static func day(_ text: inout Substring) -> Day? {
        let kind: Day.Kind
        func number() -> Int? {
            let digits = text.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 3 else { return nil }
            text = text.dropFirst(digits.count)
            return Int(digits)
        }
        if text.first == "M" {
            text = text.dropFirst()
            guard let month = number(), text.first == ".", case _ = text.removeFirst(), let week = number(),
                text.first == ".", case _ = text.removeFirst(), let weekday = number(), (1...12).contains(month),
                (1...5).contains(week), (0...6).contains(weekday)
            else { return nil }
            kind = .month(month, week: week, weekday: weekday)
        } else if text.first == "J" {
            text = text.dropFirst()
            guard let day = number(), (1...365).contains(day) else { return nil }
            kind = .julian(day)
        } else {
            guard let day = number(), (0...365).contains(day) else { return nil }
            kind = .zeroBased(day)
        }
        var time = 7200
        if text.first == "/" {
            text = text.dropFirst()
            guard let given = Self.offset(&text) else { return nil }
            time = given
        }
        return Day(kind: kind, time: time)
    }

    // MARK: Calendar arithmetic (proleptic Gregorian, in days since 1970-01-01)

    private static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func year(of time: Int64) -> Int {
        CivilCalendar.year(ofDay: Int((time >= 0 ? time : time - 86_399) / 86_400))
    }

    /// The local wall-clock instant (seconds since 1970 as if local were UTC) the rule's day and time stand for.
    static func instant(_ day: Day, year: Int) -> Int64 {
        let date: Int
        switch day.kind {
        case .month(let month, let week, let weekday):
            let first = CivilCalendar.days(year: year, month: month, day: 1)
            // 1970-01-01 was a Thursday (weekday 4).
            let firstWeekday = ((first % 7) + 11) % 7
            var day = first + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
            let next =
                month == 12
                ? CivilCalendar.days(year: year + 1, month: 1, day: 1)
                : CivilCalendar.days(year: year, month: month + 1, day: 1)
            while day >= next { day -= 7 }
            date = day
        case .julian(let number):
            let leapShift = Self.isLeap(year) && number >= 60 ? 1 : 0
            date = CivilCalendar.days(year: year, month: 1, day: 1) + number - 1 + leapShift
        case .zeroBased(let number):
            date = CivilCalendar.days(year: year, month: 1, day: 1) + number
        }
        return Int64(date) * 86_400 + Int64(day.time)
    }
}
