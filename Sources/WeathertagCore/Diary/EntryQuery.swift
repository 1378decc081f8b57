import FoundationEssentials

/// The order of the diary: each entry's row is keyed by its time, in milliseconds, times 256 (up to 256 entries
/// written in the same millisecond, the next free key after). Newest first is the largest key first, a time range
/// is a key range, and a page ends at a key, so the index (and FTS5 for a search) walks rows in order and stops.
package enum DiaryOrder {
    package static let slots: Int64 = 256

    /// The first key of `date`'s millisecond.
    package static func key(_ date: Date) -> Int64 {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        // Far outside any diary (before 1 AD or after 9999): clamped, still ordered.
        return Int64(max(-62_135_596_800_000, min(253_402_300_799_000, milliseconds))) * Self.slots
    }
}

/// Which entries to list, newest first: what `GET /v1/entries`, `weathertag entries` and `weathertag timeline` take.
package struct EntryQuery: Sendable, Equatable {
    /// The earliest instant listed. A day given alone sets `sinceDay` too, and this to the earliest instant any
    /// clock on Earth was on that day (its midnight at +14:00): the key range to walk.
    package var since: Date?
    /// The latest instant listed (a day alone: its last moment at −12:00, with `untilDay`).
    package var until: Date?
    /// The first day listed, on each entry's own calendar (`2026-01-05`): an entry written at 8 PM on 5 January in
    /// Cairns is on that day, wherever it is read.
    package var sinceDay: String?
    /// The last day listed, on each entry's own calendar.
    package var untilDay: String?
    /// OpenWeather's condition group (`Snow`, `Rain`, `Clear` …) or a word of the description, any case.
    package var condition: String?
    /// A place, region or country as the block names it, any case.
    package var place: String?
    /// Words to find in the title, the text or the place: each word matches words starting with it, and all of
    /// them must be there; `"two words"` in quotes is a phrase.
    package var text: String?
    package var lane: Lane?
    /// Only entries in their lane for this reason (`stamped_template`: the templates to clean).
    package var reason: LaneReason?
    /// Entries written on this month and day (their own clock's), of any year (`on_this_day=MM-DD`).
    package var onThisDay: MonthDay?
    package var limit: Int
    /// Where the last page ended (`next_cursor`).
    package var cursor: Cursor?

    package static let defaultLimit = 50
    package static let maximumLimit = 1000

    package init(
        since: Date? = nil, until: Date? = nil, condition: String? = nil, place: String? = nil, text: String? = nil,
        lane: Lane? = nil, reason: LaneReason? = nil, onThisDay: MonthDay? = nil, limit: Int = Self.defaultLimit,
        cursor: Cursor? = nil
    ) {
        self.reason = reason
        self.onThisDay = onThisDay
        self.since = since
        self.until = until
        self.condition = condition
        self.place = place
        self.text = text
        self.lane = lane
        self.limit = limit
        self.cursor = cursor
    }

    /// The position after the last entry of a page: its row's key (`DiaryOrder`).
    package struct Cursor: Sendable, Equatable, CustomStringConvertible {
        package var id: Int64

        package init(id: Int64) {
            self.id = id
        }

        /// Opaque to clients: the key in base 36, and a check of it (a cursor typed by hand is refused, not read
        /// as some other place in the diary).
        package var description: String {
            String(self.id, radix: 36) + "." + String(Self.check(self.id), radix: 36)
        }

        package init?(_ text: String) {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, let id = Int64(parts[0], radix: 36), let check = Int(parts[1], radix: 36),
                check == Self.check(id)
            else { return nil }
            self.init(id: id)
        }

        private static func check(_ id: Int64) -> Int {
            Int((UInt64(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15) >> 52)
        }
    }

    /// A parameter that cannot be taken, named.
    package struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        package var parameter: String
        package var problem: String

        package var description: String { "\(self.parameter): \(self.problem)" }
    }

    /// From a request's query parameters (unknown ones refused: a typo must not list everything).
    package init(parameters: [String: String], timeZone: Zone = .current) throws(Invalid) {
        let known: Set = [
            "since", "until", "condition", "place", "q", "lane", "reason", "limit", "cursor", "on_this_day",
        ]
        if let unknown = parameters.keys.sorted().first(where: { !known.contains($0) }) {
            throw Invalid(
                parameter: String(unknown.prefix(100)),
                problem: "unknown parameter; known: " + known.sorted().joined(separator: ", "))
        }
        self.init()
        func nonEmpty(_ key: String) -> String? { parameters[key].flatMap { $0.isEmpty ? nil : $0 } }
        if let since = nonEmpty("since") { try self.bound(since: since, timeZone: timeZone) }
        if let until = nonEmpty("until") { try self.bound(until: until, timeZone: timeZone) }
        if let since = self.sinceDay ?? self.since.map({ EntryQuery.day(of: $0, zone: timeZone) }),
            let until = self.untilDay ?? self.until.map({ EntryQuery.day(of: $0, zone: timeZone) }),
            until < since || (self.until ?? .distantFuture) < (self.since ?? .distantPast)
        {
            throw Invalid(parameter: "until", problem: "is before since")
        }
        self.condition = nonEmpty("condition")
        self.place = nonEmpty("place")
        if let text = nonEmpty("q") {
            guard Self.searchExpression(text) != nil else {
                throw Invalid(parameter: "q", problem: "has no word to search for")
            }
            self.text = text
        }
        self.lane = try Self.code(nonEmpty("lane"), parameter: "lane", naming: "lane")
        self.reason = try Self.code(nonEmpty("reason"), parameter: "reason", naming: "reason")
        if let day = nonEmpty("on_this_day") {
            guard let value = MonthDay(day) else {
                throw Invalid(parameter: "on_this_day", problem: "is not a month and day (MM-DD, such as 05-01)")
            }
            self.onThisDay = value
        }
        if let limit = nonEmpty("limit") {
            guard let value = Int(limit), (1...Self.maximumLimit).contains(value) else {
                throw Invalid(parameter: "limit", problem: "must be a whole number from 1 to \(Self.maximumLimit)")
            }
            self.limit = value
        }
        if let cursor = nonEmpty("cursor") {
            guard let value = Cursor(cursor) else {
                throw Invalid(parameter: "cursor", problem: "is not a next_cursor this API gave")
            }
            self.cursor = value
        }
    }

    /// One of a closed vocabulary's codes (`Lane`, `LaneReason`), or nil for none given; an unknown one is refused,
    /// the known ones listed.
    private static func code<Code: RawRepresentable & CaseIterable>(
        _ text: String?, parameter: String, naming word: String
    ) throws(Invalid) -> Code? where Code.RawValue == String {
        guard let text else { return nil }
        guard let value = Code(rawValue: text) else {
            throw Invalid(
                parameter: parameter,
                problem: "unknown \(word); use " + Code.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return value
    }

    /// The query as parameters again (for the command line's requests).
    package var parameters: [(String, String)] {
        var parameters: [(String, String)] = []
        if let since = self.sinceDay ?? self.since?.iso8601 { parameters.append(("since", since)) }
        if let until = self.untilDay ?? self.until?.iso8601 { parameters.append(("until", until)) }
        if let day = self.onThisDay { parameters.append(("on_this_day", day.description)) }
        if let condition = self.condition { parameters.append(("condition", condition)) }
        if let place = self.place { parameters.append(("place", place)) }
        if let text = self.text { parameters.append(("q", text)) }
        if let lane = self.lane { parameters.append(("lane", lane.rawValue)) }
        if let reason = self.reason { parameters.append(("reason", reason.rawValue)) }
        parameters.append(("limit", String(self.limit)))
        if let cursor = self.cursor { parameters.append(("cursor", cursor.description)) }
        return parameters
    }

    /// The widest any clock's day reaches from its UTC day: from +14:00 (Kiritimati) to −12:00.
    static let earliestOffset: TimeInterval = 14 * 3600
    static let latestOffset: TimeInterval = 12 * 3600

    /// `since`: an instant, or a day on each entry's own calendar.
    package mutating func bound(since text: String, timeZone: Zone = .current) throws(Invalid) {
        guard let given = EntryTime.given(text, timeZone: timeZone) else {
            throw Invalid(parameter: "since", problem: "is not \(EntryTime.grammar)")
        }
        guard given.dayOnly else { return self.since = given.date }
        let utcMidnight = Self.utcMidnight(of: given.localDay) ?? given.date
        (self.since, self.sinceDay) = (utcMidnight.addingTimeInterval(-Self.earliestOffset), given.localDay)
    }

    /// `until`: an instant, or a day (the whole of it) on each entry's own calendar.
    package mutating func bound(until text: String, timeZone: Zone = .current) throws(Invalid) {
        guard let given = EntryTime.given(text, timeZone: timeZone) else {
            throw Invalid(parameter: "until", problem: "is not \(EntryTime.grammar)")
        }
        guard given.dayOnly else { return self.until = given.date }
        let utcMidnight = Self.utcMidnight(of: given.localDay) ?? given.date
        (self.until, self.untilDay) = (
            utcMidnight.addingTimeInterval(86_400 + Self.latestOffset - 0.001), given.localDay
        )
    }

    /// Whether an entry written on `localDay` (its own calendar's `YYYY-MM-DD`) is within the days asked for.
    package func includes(localDay: String) -> Bool {
        self.sinceDay.map { localDay >= $0 } ?? true && self.untilDay.map { localDay <= $0 } ?? true
    }

    /// `YYYY-MM-DD` of `date` on `zone`'s clock.
    static func day(of date: Date, zone: Zone) -> String {
        let clock = WallClock(date, utcOffset: zone.secondsFromGMT(for: date))
        return String(cFormat: "%04d-%02d-%02d", clock.year, clock.month, clock.day)
    }

    private static func utcMidnight(of day: String) -> Date? {
        EntryTime.given(day, timeZone: .utc)?.date
    }

    /// A time in the one grammar (`EntryTime.given`); a day (`2026-01-05`, in `timeZone`) is its start, or as
    /// `until` the whole day.
    package static func date(
        _ text: String, parameter: String, timeZone: Zone = .current, endOfDay: Bool = false
    ) throws(Invalid) -> Date {
        guard let given = EntryTime.given(text, timeZone: timeZone) else {
            throw Invalid(parameter: parameter, problem: "is not \(EntryTime.grammar)")
        }
        return given.dayOnly && endOfDay ? given.date.addingTimeInterval(86_400 - 0.001) : given.date
    }

    /// The FTS5 expression for `text` (`SearchText.terms`): each word a prefix match, a Han, Kana or Hangul run of
    /// three letters or more the phrase of its pairs, quoted phrases kept, all of them required; nil when there is
    /// no word in it. Letters and digits only: FTS5's own syntax (`NEAR`, `-`, `:`, `^`) cannot be injected.
    package static func searchExpression(_ text: String) -> String? {
        let terms = SearchText.terms(text).map { term in
            switch term {
            case .prefix(let word): return "\"\(word)\"*"
            case .phrase(let tokens, let lastIsPrefix):
                return "\"" + tokens.joined(separator: " ") + "\"" + (lastIsPrefix ? "*" : "")
            }
        }
        return terms.isEmpty ? nil : terms.joined(separator: " AND ")
    }
}

extension EntryQuery {
    /// On this day: entries of `date`'s month and day (on `zone`'s clock) in the years before `date`'s, an `until`
    /// already earlier kept. What `entries --on-this-day`, waybar's tooltip and the timeline ask.
    package mutating func restrict(toEarlierYearsOf date: Date, zone: Zone) {
        let clock = WallClock(date, utcOffset: zone.secondsFromGMT(for: date))
        self.onThisDay = MonthDay(month: clock.month, day: clock.day)
        let lastDay = String(cFormat: "%04d-12-31", clock.year - 1)
        let later =
            self.untilDay.map { $0 > lastDay } ?? self.until.map { Self.day(of: $0, zone: zone) > lastDay } ?? true
        if later { try? self.bound(until: lastDay, timeZone: zone) }
    }
}

/// A month and day of any year (`05-01`): what "on this day" matches.
package struct MonthDay: Sendable, Equatable, Hashable, CustomStringConvertible {
    package var month: Int
    package var day: Int

    /// A day that some year has: February 29 is one.
    package init?(month: Int, day: Int) {
        guard (1...12).contains(month), (1...CivilCalendar.daysIn(month: month, year: 2000)).contains(day) else {
            return nil
        }
        (self.month, self.day) = (month, day)
    }

    /// `MM-DD`, two digits each.
    package init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let month = Int(parts[0]), let day = Int(parts[1])
        else { return nil }
        self.init(month: month, day: day)
    }

    /// The month and day of a `YYYY-MM-DD`.
    package init?(ofDay day: String) {
        guard day.count == 10 else { return nil }
        self.init(String(day.suffix(5)))
    }

    package var description: String { String(cFormat: "%02d-%02d", self.month, self.day) }
}

extension EntryQuery {
    /// Every entry this query matches (at most `limit` when given), asking `page` for one page after another by
    /// its cursor: the one paging loop of the command line (through the socket or the database) and the daemon's
    /// timeline page.
    package func all(
        limit: Int?, _ page: (EntryQuery) async throws -> EntryListDocument
    ) async throws -> [EntryDocument] {
        var query = self
        var entries: [EntryDocument] = []
        while true {
            if let limit { query.limit = min(Self.maximumLimit, limit - entries.count) }
            let listed = try await page(query)
            entries += listed.entries
            guard let next = listed.nextCursor, limit.map({ entries.count < $0 }) ?? true else { return entries }
            query.cursor = EntryQuery.Cursor(next)
        }
    }
}
