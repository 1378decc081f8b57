import FoundationEssentials

/// When an entry was written, as the entry itself tells, first found: its front matter's `date`, `created`,
/// `created_at` or `time` (a YAML timestamp or date; without a zone, the machine's); a date in its file name
/// (`YYYY-MM-DD`, `YYYYMMDD`, `YYYY_MM_DD`, optionally followed by a time `HHMM` or `HH-MM`, as Obsidian, Logseq and
/// jrnl name their files); else its modification time.
package struct EntryTime: Sendable, Equatable, CustomStringConvertible {
    package enum Source: Sendable, Equatable {
        case frontMatter(key: String)
        case fileName
        case modificationTime
        /// Given on the command line (`stamp --at`).
        case given
    }

    /// A time given by a person: weathertag's one time grammar, for `stamp --at`, `where TIME`, `?at=`, `--since`
    /// and `--until` alike. A YAML timestamp or date, as front matter takes them: `2019-05-01`, `2019-05-01 10:00`,
    /// `2019-05-01T10:00:00+02:00` (RFC 3339 is one), without a zone in `timeZone`. Nil when it is not one.
    package static func given(_ text: String, timeZone: Zone = .current) -> EntryTime? {
        guard let (date, dayOnly, zone) = Self.parse(timestamp: text, timeZone: timeZone) else { return nil }
        return EntryTime(date: date, dayOnly: dayOnly, source: .given, timeZone: timeZone, writtenIn: zone)
    }

    /// How the grammar is told to a person whose time it could not read.
    package static let grammar = #"a date or time such as 2019-05-01, "2019-05-01 10:00" or 2019-05-01T10:00:00+02:00"#

    /// The moment it stands for: the time, or noon of its day when it gives only a day (as a back-dated entry is
    /// asked about).
    package var moment: Date {
        guard self.dayOnly else { return self.date }
        return self.date.addingTimeInterval(12 * 3600)
    }

    package var date: Date
    /// Only a day was given, no time of day (`date` is that day's midnight in `timeZone`).
    package var dayOnly: Bool
    package var source: Source
    package var timeZone: Zone
    /// The clock it was written on: the offset its text names (`2019-05-01T00:30:00+02:00`), else `timeZone`.
    package var writtenIn: Zone
    /// Its text names its own offset (`+02:00`, `Z`): its clock is the author's word, not the machine's.
    package var namesItsOffset: Bool

    package init(date: Date, dayOnly: Bool, source: Source, timeZone: Zone, writtenIn: Zone? = nil) {
        self.date = date
        self.dayOnly = dayOnly
        self.source = source
        self.timeZone = timeZone
        self.writtenIn = writtenIn ?? timeZone
        self.namesItsOffset = writtenIn != nil
    }

    /// Its own clock's offset from UTC at that moment, in seconds: the one its text names, else its zone's.
    package var utcOffset: Int { self.writtenIn.secondsFromGMT(for: self.date) }

    /// `2019-05-01`: the day it was written on its own clock (`writtenIn`): what "on this day" matches.
    package var localDay: String {
        let clock = WallClock(self.date, utcOffset: self.writtenIn.secondsFromGMT(for: self.date))
        return String(clock.year, zeroPaddedTo: 4) + "-" + String(clock.month, zeroPaddedTo: 2) + "-"
            + String(clock.day, zeroPaddedTo: 2)
    }

    /// `2019-05-01`, or `2019-05-01 10:00` on the entry's own clock (`writtenIn`), with that clock's offset where
    /// it is not the zone it was read in (`2025-07-01 14:00 +02:00` read on a machine in UTC).
    package var description: String {
        let clock = WallClock(self.date, utcOffset: self.utcOffset)
        let day = String(cFormat: "%04d-%02d-%02d", clock.year, clock.month, clock.day)
        guard !self.dayOnly else { return day }
        let time = day + String(cFormat: " %02d:%02d", clock.hour, clock.minute)
        guard self.utcOffset != self.timeZone.secondsFromGMT(for: self.date) else { return time }
        return time + " " + DiaryFormatting.offsetName(self.utcOffset)
    }

    /// The front matter keys that say when an entry was written, in the order they are looked for.
    package static let frontMatterKeys = ["date", "created", "created_at", "time"]

    /// The entry's time from what it holds: its front matter's fields (`frontMatterKeys`), its file name, its
    /// modification time. A field that cannot be read is passed over: for the index's listing, which shows every
    /// entry; the stamp asks `read`, which refuses it.
    package static func of(
        fields: [String: String], fileName: String, modified: Date, timeZone: Zone
    ) -> EntryTime {
        switch Self.read(fields: fields, fileName: fileName, modified: modified, timeZone: timeZone) {
        case .success(let time): return time
        case .failure:
            var readable = fields
            for key in Self.frontMatterKeys
            where readable[key].map({ Self.given($0, timeZone: timeZone) == nil }) ?? false {
                readable[key] = nil
            }
            return Self.of(fields: readable, fileName: fileName, modified: modified, timeZone: timeZone)
        }
    }

    /// The entry's time as its author wrote it, or why it cannot be read: the first of `frontMatterKeys` it holds
    /// decides, and one that does not read (`2021-02-30`, `yesterday`, `10:75`, `+99:00`, a list) is an error, never
    /// replaced by the file's name or modification time, which are for entries that say nothing. (`time` alone
    /// is passed over unless it holds a date: diaries write `time: 10:30` beside `date:`.)
    package static func read(
        fields: [String: String], fileName: String, modified: Date, timeZone: Zone
    ) -> Result<EntryTime, UnreadableTime> {
        for key in Self.frontMatterKeys {
            guard let value = fields[key] else { continue }
            if let (date, dayOnly, zone) = Self.parse(timestamp: value, timeZone: timeZone) {
                return .success(
                    EntryTime(
                        date: date, dayOnly: dayOnly, source: .frontMatter(key: key), timeZone: timeZone,
                        writtenIn: zone))
            }
            if key == "time", Self.startsLikeADate?.firstMatch(in: value) == nil { continue }
            return .failure(UnreadableTime(key: key, value: value))
        }
        if let (date, dayOnly) = Self.parse(fileName: fileName, timeZone: timeZone) {
            return .success(EntryTime(date: date, dayOnly: dayOnly, source: .fileName, timeZone: timeZone))
        }
        return .success(EntryTime(date: modified, dayOnly: false, source: .modificationTime, timeZone: timeZone))
    }

    private static let startsLikeADate = Pattern(#"^["']?[0-9]{4}-"#)

    private static let timestamp = Pattern(
        #"^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt]|[ \t]+)(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?[ \t]*(Z|[+-]\d{1,2}(?::?\d{2})?)?)?$"#
    )

    private static let nameDate = Pattern(
        #"(?:^|[^0-9])(\d{4})([-_]?)(\d{2})\2(\d{2})(?:[ _T-]?(\d{2})-?(\d{2}))?(?:[^0-9]|$)"#
    )

    /// A YAML timestamp or date: `2019-05-01`, `2019-05-01 10:00`, `2019-05-01T10:00:00.5+02:00`; quotes allowed.
    /// The zone is the offset it names, else `timeZone`.
    static func parse(timestamp text: String, timeZone: Zone) -> (Date, dayOnly: Bool, zone: Zone?)? {
        var value = text.trimmingWhitespace()
        if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
            value = String(value.dropFirst().dropLast())
        }
        guard let groups = Self.timestampGroups(value) else { return nil }
        func group(_ index: Int) -> String? { groups[index] }
        var named: Zone?
        if let offset = group(7) {
            guard let parsed = Self.zone(offset) else { return nil }
            named = parsed
        }
        let zone = named ?? timeZone
        let hour = group(4).flatMap { Int($0) }
        // Out of range is refused, not rolled over: `10:75` is no time, not 11:15.
        guard hour.map({ (0...23).contains($0) }) ?? true,
            group(5).flatMap({ Int($0) }).map({ (0...59).contains($0) }) ?? true,
            group(6).flatMap({ Int($0) }).map({ (0...59).contains($0) }) ?? true
        else { return nil }
        return Self.date(
            year: group(1), month: group(2), day: group(3), hour: hour, minute: group(5), second: group(6), zone: zone
        ).map { ($0, hour == nil, named) }
    }

    /// The groups `timestamp` finds in `value` (0 the whole, then year, month, day, hour, minute, second and zone),
    /// read by bytes: the expression cost 3 % of a stamp's time, and every entry is read with it. The expression
    /// stays the definition, and a test holds the two to the same answers.
    package static func timestampGroups(_ value: String) -> [String?]? {
        let bytes = Array(value.utf8)
        var index = 0
        func isDigit(_ at: Int) -> Bool { at < bytes.count && (0x30...0x39).contains(bytes[at]) }
        func digits(_ least: Int, _ most: Int) -> String? {
            let start = index
            while index - start < most, isDigit(index) { index += 1 }
            guard index - start >= least else { return nil }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
        func skip(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        func isBlank(_ at: Int) -> Bool { at < bytes.count && (bytes[at] == 0x20 || bytes[at] == 0x09) }
        guard let year = digits(4, 4), skip(0x2D), let month = digits(1, 2), skip(0x2D), let day = digits(1, 2)
        else { return nil }
        var groups: [String?] = [value, year, month, day, nil, nil, nil, nil]
        guard index < bytes.count else { return groups }
        // The time: `T`, `t` or blanks, then hours and minutes, seconds and a fraction if written, then a zone.
        if bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: "t") {
            index += 1
        } else {
            guard isBlank(index) else { return nil }
            while isBlank(index) { index += 1 }
        }
        guard let hour = digits(1, 2), skip(0x3A), let minute = digits(2, 2) else { return nil }
        (groups[4], groups[5]) = (hour, minute)
        if skip(0x3A) {
            guard let second = digits(2, 2) else { return nil }
            groups[6] = second
            if skip(0x2E) {
                guard digits(1, .max) != nil else { return nil }
            }
        }
        while isBlank(index) { index += 1 }
        guard index < bytes.count else { return groups }
        // The zone runs to the end: `Z`, or a sign and one or two digits of hours, then two of minutes (after a
        // colon or not).
        let zone = bytes[index...]
        guard Self.isZone(zone) else { return nil }
        groups[7] = String(decoding: zone, as: UTF8.self)
        return groups
    }

    /// `Z|[+-]\d{1,2}(?::?\d{2})?`, the whole of `bytes`.
    private static func isZone(_ bytes: ArraySlice<UInt8>) -> Bool {
        if bytes.elementsEqual([UInt8(ascii: "Z")]) { return true }
        guard let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return false }
        let rest = Array(bytes.dropFirst())
        let isDigits = { (part: ArraySlice<UInt8>) in part.allSatisfy { (0x30...0x39).contains($0) } }
        switch rest.count {
        case 1, 2: return isDigits(rest[...])
        case 3, 4:
            return isDigits(rest[...])
                || (rest.count == 4 && rest[1] == 0x3A && isDigits(rest[0..<1]) && isDigits(rest[2...]))
        case 5: return rest[2] == 0x3A && isDigits(rest[0..<2]) && isDigits(rest[3...])
        default: return false
        }
    }

    /// The expression `timestampGroups` reads by bytes, for the test that holds them to the same answers.
    package static func timestampGroupsByExpression(_ value: String) -> [String?]? {
        Self.timestamp?.firstMatch(in: value)
    }

    /// A date in a file name, optionally with a time of day after it.
    static func parse(fileName: String, timeZone: Zone) -> (Date, dayOnly: Bool)? {
        // Eight digits at least, or no date: most names are ruled out without the expression.
        guard fileName.utf8.lazy.filter({ (0x30...0x39).contains($0) }).count >= 8,
            let groups = Self.nameDate?.firstMatch(in: fileName)
        else { return nil }
        func group(_ index: Int) -> String? { groups[index] }
        let hour = group(5).flatMap { Int($0) }
        guard hour.map({ $0 < 24 }) ?? true, group(6).flatMap({ Int($0) }).map({ $0 < 60 }) ?? true else {
            return Self.date(year: group(1), month: group(3), day: group(4), zone: timeZone).map { ($0, true) }
        }
        return Self.date(
            year: group(1), month: group(3), day: group(4), hour: hour, minute: group(6), zone: timeZone
        ).map { ($0, hour == nil) }
    }

    private static func date(
        year: String?, month: String?, day: String?, hour: Int? = nil, minute: String? = nil, second: String? = nil,
        zone: Zone
    ) -> Date? {
        guard let year = year.flatMap({ Int($0) }), let month = month.flatMap({ Int($0) }),
            let day = day.flatMap({ Int($0) }), (1...12).contains(month), (1...31).contains(day), year >= 1000
        else { return nil }
        let parts = DateComponents(
            year: year, month: month, day: day, hour: hour ?? 0, minute: minute.flatMap { Int($0) } ?? 0,
            second: second.flatMap { Int($0) } ?? 0)
        guard let date = zone.date(from: parts), case let calendar = zone.calendar(at: date),
            calendar.component(.day, from: date) == day, calendar.component(.month, from: date) == month
        else { return nil }
        return date
    }

    /// `Z`, `+02`, `+0200`, `-05:30`.
    private static func zone(_ text: String) -> Zone? {
        if text == "Z" { return .utc }
        let sign = text.hasPrefix("-") ? -1 : 1
        let digits = text.dropFirst().filter(\.isNumber)
        guard let hours = Int(digits.prefix(2)) else { return nil }
        let minutes = digits.count > 2 ? Int(digits.dropFirst(2)) ?? 0 : 0
        // The zones people live in lie between -12:00 and +14:00; `+99:00` is a typo, not a place.
        guard hours <= 14, minutes <= 59 else { return nil }
        return .fixed(secondsFromGMT: sign * (hours * 3600 + minutes * 60))
    }
}

/// A front matter time field that says when the entry was written in words weathertag cannot read: the entry is left
/// alone with it, never stamped with a time guessed from elsewhere.
package struct UnreadableTime: Error, Sendable, Equatable, CustomStringConvertible {
    package var key: String
    package var value: String

    package init(key: String, value: String) {
        self.key = key
        self.value = value
    }

    package var description: String { self.said.english }

    /// Why, in words a view says in its reader's language.
    package var said: Said {
        Said(
            """
            its front matter's {key} ({value}) is not a date weathertag can read, such as 2019-05-01, \
            "2019-05-01 10:00" or 2019-05-01T10:00:00+02:00; it is not replaced by a guess
            """, ["key": .text(self.key), "value": .text(self.value)])
    }
}
