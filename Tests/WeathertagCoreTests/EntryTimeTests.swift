import Foundation
import Testing
import WeathertagCore

@Suite("an entry's own time")
struct EntryTimeTests {
    static let oslo = Zone(TimeZone(identifier: "Europe/Oslo") ?? .gmt)
    /// 2026-11-23 12:00 in Oslo (11:00Z).
    static let now = Date(timeIntervalSince1970: 1_795_431_600)

    func time(_ fields: [String: String] = [:], name: String = "entry.md", modified: Date = now) -> EntryTime {
        EntryTime.of(fields: fields, fileName: name, modified: modified, timeZone: Self.oslo)
    }

    @Test func frontMatterComesFirstInItsOrder() {
        let both = self.time(["created": "2019-05-02", "date": "2019-05-01"], name: "2020-01-01.md")
        #expect(both.source == .frontMatter(key: "date") && both.description == "2019-05-01" && both.dayOnly)
        #expect(self.time(["created_at": "2019-05-01 10:00"]).description == "2019-05-01 10:00")
        // Each on its own clock, its offset said where it is not the reading zone's (Oslo: +02:00 in May).
        #expect(self.time(["time": "'2019-05-01T10:00:00Z'"]).description == "2019-05-01 10:00 UTC")
        #expect(self.time(["date": "\"2019-05-01T10:00:00.250+02:00\""]).description == "2019-05-01 10:00")
        #expect(self.time(["date": "2019-05-01 10:00:00 -0500"]).description == "2019-05-01 10:00 -05:00")
        // Not a date: the next source is asked.
        #expect(self.time(["date": "yesterday"], name: "2019-05-01.md").source == .fileName)
        #expect(self.time(["date": "2019-02-30"]).source == .modificationTime)
    }

    @Test(arguments: [
        ("2019-05-01.md", "2019-05-01"), ("20190501.md", "2019-05-01"), ("2019_05_01.md", "2019-05-01"),
        ("2019-05-01 1430.md", "2019-05-01 14:30"), ("2019-05-01-14-30 walk.md", "2019-05-01 14:30"),
        ("Journal 2019-05-01T0930.md", "2019-05-01 09:30"), ("jrnl_2019_05_01.md", "2019-05-01"),
    ])
    func fileNamesAsDiariesWriteThem(name: String, expected: String) {
        let time = self.time(name: name)
        #expect(time.source == .fileName && time.description == expected, "\(name): \(time)")
    }

    /// Said on its own clock: an entry written at 14:00 in Berlin is 14:00 +02:00 on a machine in UTC, not 12:00.
    @Test func itIsToldOnItsOwnClock() throws {
        let berlin = try #require(EntryTime.given("2025-07-01T14:00:00+02:00", timeZone: .utc))
        #expect(berlin.description == "2025-07-01 14:00 +02:00" && berlin.utcOffset == 7200)
        #expect(berlin.localDay == "2025-07-01")
        let here = try #require(EntryTime.given("2025-07-01 14:00", timeZone: .fixed(secondsFromGMT: 7200)))
        #expect(here.description == "2025-07-01 14:00", "read in its own zone: no offset said")
        #expect(try #require(EntryTime.given("2025-07-01", timeZone: .utc)).description == "2025-07-01")
    }

    @Test func namesWithoutADateFallBackToTheModificationTime() {
        for name in ["entry.md", "2019-13-01.md", "201905011.md", "notes-123456789.md", "2019-05.md"] {
            #expect(self.time(name: name).source == .modificationTime, "\(name)")
        }
    }

    @Test func backdatedMeansOlderThanTheThresholdOrAnEarlierDay() {
        let policy = BackdatingPolicy(threshold: .seconds(10_800), timeZone: Self.oslo, now: { Self.now })
        func backdated(_ fields: [String: String] = [:], name: String = "e.md", modified: Date = Self.now) -> Bool {
            policy.leaveAlone(frontMatter: fields, fileName: name, modified: modified) != nil
        }
        #expect(!backdated(), "written now")
        #expect(!backdated(modified: Self.now.addingTimeInterval(-10_000)), "2 h 47 min ago")
        #expect(backdated(modified: Self.now.addingTimeInterval(-11_000)), "3 h 3 min ago: rsync kept an old mtime")
        #expect(!backdated(["date": "2026-11-23"]), "today, any time")
        #expect(backdated(["date": "2026-11-22"]), "yesterday")
        #expect(backdated(name: "2019-05-01.md"))
        #expect(!backdated(["date": "2026-11-23 10:00"]), "2 h ago")
        guard
            case .backdated(let time, _)? = policy.leaveAlone(
                frontMatter: [:], fileName: "2019-05-01.md", modified: Self.now)
        else {
            Issue.record("not back-dated")
            return
        }
        #expect(LeftAloneReason.backdated(time).description.hasPrefix("written 2019-05-01 (by its file name)"))
    }

    /// The stamp's reading: a time field that does not read is the entry's word, refused and explained, never
    /// replaced by the file's name or modification time (they stamped today's weather on such entries, silently).
    @Test(arguments: [
        "2021-02-30", "0000-00-00", "yesterday", "2021-06-15 or so", "2021-06-15 10:75", "2021-06-15 24:00",
        "2021-06-15T10:00:00+99:00", "[2021, 6, 15]", "a list or mapping", "2021-06-15 10:00:61",
    ])
    func anUnreadableTimeIsRefusedNotGuessed(value: String) {
        let read = EntryTime.read(
            fields: ["date": value], fileName: "2019-05-01.md", modified: Self.now, timeZone: Self.oslo)
        #expect(read == .failure(UnreadableTime(key: "date", value: value)), "\(value)")
        let policy = BackdatingPolicy(timeZone: Self.oslo, now: { Self.now })
        let verdict = policy.verdict(frontMatter: ["date": value], fileName: "e.md", modified: Self.now)
        #expect(verdict == .leftAlone(.unreadableTime(UnreadableTime(key: "date", value: value))))
        #expect(LaneState.of(.unreadableTime(UnreadableTime(key: "date", value: value))).reason == .unreadableTime)
        // `time: 10:30` beside no date is a time of day, not the entry's word on its date.
        #expect(
            EntryTime.read(
                fields: ["time": "10:30"], fileName: "2019-05-01.md", modified: Self.now, timeZone: Self.oslo
            )
            .map(\.source) == .success(.fileName))
    }

    /// Ahead of now: by a few minutes it is now; by less than a day it waits (today east of here); further, it is
    /// left alone. A modification time ahead is the machine's clock, and current.
    @Test func aTimeAheadWaitsOrIsLeftAlone() {
        let policy = BackdatingPolicy(timeZone: Self.oslo, now: { Self.now })
        func verdict(
            _ fields: [String: String] = [:], name: String = "e.md", modified: Date = Self.now
        )
            -> BackdatingPolicy.Verdict
        {
            policy.verdict(frontMatter: fields, fileName: name, modified: modified)
        }
        guard case .current = verdict(["date": "2026-11-23 12:04"]) else {
            Issue.record("four minutes ahead is a clock a little apart")
            return
        }
        #expect(
            verdict(["date": "2026-11-23 20:00"])
                == .ahead(self.time(["date": "2026-11-23 20:00"]), wait: .seconds(8 * 3600)))
        // Tomorrow here is today in Auckland: it waits for midnight here (12 h).
        #expect(verdict(["date": "2026-11-24"]) == .ahead(self.time(["date": "2026-11-24"]), wait: .seconds(12 * 3600)))
        #expect(verdict(name: "2026-11-24.md") == .ahead(self.time(name: "2026-11-24.md"), wait: .seconds(12 * 3600)))
        let far = self.time(["date": "2027-03-01"])
        #expect(verdict(["date": "2027-03-01"]) == .leftAlone(.future(far)))
        #expect(LeftAloneReason.future(far).description.contains("later than today anywhere on Earth"))
        guard case .current = verdict(modified: Self.now.addingTimeInterval(86_400 * 3)) else {
            Issue.record("a modification time ahead is the machine's clock")
            return
        }
    }

    @Test func theFrontMatterTimeFieldsAreReadByLines() {
        let text =
            "---\ntitle: x\ndate: 2019-05-01 # the day\n\"created\": '2019-05-02'\nnested:\n  time: 10:00\n---\nB\n"
        #expect(FrontMatterStamper.timeFields(Array(text.utf8)) == ["date": "2019-05-01", "created": "'2019-05-02'"])
        #expect(FrontMatterStamper.timeFields(Array("date: 2019-05-01\n".utf8)).isEmpty, "no front matter")
        let list = "---\ndate:\n  - 2021\n  - 6\ncreated:\n---\n"
        #expect(FrontMatterStamper.timeFields(Array(list.utf8)) == ["date": "a list or mapping"], "a list is said")
    }
}

/// One time grammar for every place a person gives a time: `stamp --at`, `where TIME`, `?at=`, `--since`/`--until`.
@Suite("the time grammar")
struct TimeGrammarTests {
    @Test func everyFormIsReadAndABareDayIsItsNoon() throws {
        let utc = Zone.utc
        let rfc = try #require(EntryTime.given("2019-05-01T10:05:00Z", timeZone: utc))
        for text in ["2019-05-01 10:05", "2019-05-01T10:05", "2019-05-01 10:05:00+00:00", "2019-05-01T12:05:00+02:00"] {
            #expect(EntryTime.given(text, timeZone: utc)?.moment == rfc.moment, "\(text)")
        }
        let day = try #require(EntryTime.given("2019-05-01", timeZone: utc))
        #expect(day.dayOnly && day.moment == Date(timeIntervalSince1970: 1_556_712_000), "noon UTC")
        #expect(try EntryQuery.date("2019-05-01", parameter: "since", timeZone: utc) == day.date, "a range's start")
        #expect(try EntryQuery.date("2019-05-01 10:05", parameter: "since", timeZone: utc) == rfc.date)
        for text in ["yesterday", "2019-13-01", "10:05", ""] {
            #expect(EntryTime.given(text, timeZone: utc) == nil, "\(text)")
            #expect(throws: EntryQuery.Invalid.self) { try EntryQuery.date(text, parameter: "until") }
        }
    }

    /// The timestamp read by bytes gives the groups its expression gives, on the forms people write and on every
    /// cut and one-byte change of them.
    @Test func timestampsReadByBytesAsTheExpressionReadsThem() {
        let forms = [
            "2019-05-01", "2019-5-1", "2019-05-01 10:00", "2019-05-01T10:00:00", "2019-05-01t10:00:00.5+02:00",
            "2019-05-01 \t 9:05:07.123Z", "2019-05-01T10:00 +0530", "2019-05-01T10:00-5", "2019-05-01T10:00+530",
            "2019-05-01T10:00+5:30", "2019-05-01T10:00+05:3", "2019-05-01T10:00+05:300", "2019-05-01T10:00:00.",
            "2019-05-01T1000", "2019-05-011", "12019-05-01", "2019-05-01Z", "2019-05-01 10:00 Z", "yesterday",
            "2019-05-01T10:00:00+", "2019/05/01", "2019-05-01T10:00:60", "٢٠١٩-05-01", "2019-05-01T10:00\t+02",
        ]
        var cases = Set(forms)
        for form in forms {
            let bytes = Array(form.utf8)
            for cut in 0...bytes.count { cases.insert(String(decoding: bytes[..<cut], as: UTF8.self)) }
            for index in bytes.indices {
                for replacement in Array("0 9:-+TZ.\tx".utf8) {
                    var changed = bytes
                    changed[index] = replacement
                    cases.insert(String(decoding: changed, as: UTF8.self))
                }
            }
        }
        #expect(cases.count > 2000)
        for value in cases {
            let bytes = EntryTime.timestampGroups(value)
            let expression = EntryTime.timestampGroupsByExpression(value)
            // The expression's \d takes other scripts' digits too (٢٠١٩), which no date is read from (`Int` reads
            // ASCII digits only): the bytes do not match them at all.
            if let expression, expression[1...3].contains(where: { $0.flatMap { Int($0) } == nil }) {
                #expect(bytes == nil, "\(value.debugDescription)")
                continue
            }
            #expect(bytes == expression, "\(value.debugDescription)")
        }
    }

    /// Zero-padded numbers as `printf` writes them (`EntryTime.localDay` writes its day with them).
    @Test func zeroPaddedNumbersReadAsPrintfWritesThem() {
        for value in [0, 1, 9, 10, 99, 100, 999, 1000, 2019, 12345, -1, -5, -42, -999, -1000, Int.max, Int.min + 1] {
            for width in [0, 1, 2, 4, 6] {
                let printed = String(cFormat: "%0*ld", width, value)
                #expect(String(value, zeroPaddedTo: width) == printed, "\(value) \(width)")
            }
        }
    }
}
