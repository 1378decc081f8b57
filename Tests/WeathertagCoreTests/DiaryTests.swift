import Foundation
import Testing
import WeathertagCore

@Suite("diary entries: titles, text and weather read from the file")
struct DiaryEntryTests {
    let modified = Date(timeIntervalSince1970: 1_795_431_600)
    let utc = Zone.utc

    func read(_ text: String, name: String = "e.md") -> DiaryEntry {
        DiaryEntry.read(Array(text.utf8), fileName: name, modified: self.modified, timeZone: self.utc)
    }

    @Test func theTitleIsTheFrontMattersThenTheFirstHeadingThenTheFirstLine() {
        #expect(self.read("---\ntitle: \"Snow  day\"\n---\n# Heading\ntext\n").title == "Snow day")
        #expect(self.read("---\ntags: [a]\n---\n\nintro line\n## The heading ##\ntext\n").title == "The heading")
        #expect(self.read("\n\n   First   line  \nsecond\n").title == "First line")
        #expect(self.read("#hashtag is not a heading\n").title == "#hashtag is not a heading")
        #expect(self.read("").title == "e")
        #expect(self.read("\n\n", name: "2026/11/2026-11-23.md").title == "2026-11-23")
        // CRLF and a byte-order mark change nothing.
        #expect(
            DiaryEntry.read(
                [0xEF, 0xBB, 0xBF] + Array("---\r\ntitle: Tea\r\n---\r\nBody\r\n".utf8),
                fileName: "e.md", modified: self.modified, timeZone: self.utc
            ).title == "Tea")
    }

    /// The front matter closes at the first line that is `---` or `...` once trimmed of whitespace (Unicode's too),
    /// as the `Character` view trims it; lines that merely hold dashes or dots do not close it.
    @Test func theFrontMatterClosesWhereATrimmedLineIsDashesOrDots() {
        let closings = [
            "---", "...", "  ---", "\t--- ", "\u{3000}---", "\u{A0}...\u{2003}", "\u{0B}---\u{0C}", " - --", "x---",
            "----", "--- x", ". ..", "—", "\u{301}---", "",
        ]
        for closing in closings {
            let text = "---\ntitle: Inside\n" + closing + "\nafter: line\n"
            let closes = ["---", "..."].contains(closing.trimmingWhitespace())
            let entry = self.read(text)
            #expect((entry.title == "Inside") == closes, "\(closing.debugDescription): \(entry.title)")
        }
    }

    @Test func theExcerptFollowsTheTitleAndTheBodyIsTheTextAfterTheFrontMatter() {
        let entry = self.read("---\ntitle: T\n---\n# T\n\nOne.\nTwo.\n")
        #expect(entry.excerpt == "One. Two.")
        #expect(entry.body == "# T\n\nOne.\nTwo.\n")
        let long = self.read("Title\n" + String(repeating: "word ", count: 200))
        #expect(long.excerpt.count == DiaryEntry.excerptLength)
        #expect(long.excerpt.hasSuffix("…"))
        #expect(self.read("Only a title\n").excerpt == "")
    }

    @Test func theTimeIsTheEntrysOwn() {
        #expect(self.read("---\ndate: 2025-01-05\n---\nx\n").time.dayOnly)
        #expect(self.read("---\ndate: 2025-01-05\n---\nx\n").time.source == .frontMatter(key: "date"))
        #expect(self.read("x\n", name: "2024-03-02.md").time.source == .fileName)
        #expect(self.read("x\n").time.date == self.modified)
    }

    @Test func weatherBlocksOfWeathertagAndOfOtherToolsAreRead() {
        let ours = self.read(
            """
            ---
            weather:
              condition: Snow
              description: light snow
              icon: 13d
              temperature: -2.5
              units: metric
              place: "Seoul"
              country: KR
              kind: current
              air:
                aqi: 2
            ---
            x
            """)
        #expect(
            ours.weather
                == DiaryWeather(
                    condition: "Snow", description: "light snow", icon: "13d", temperature: -2.5, units: "metric",
                    place: "Seoul", country: "KR", kind: "current", aqi: 2))
        let theirs = self.read("---\nweather: {main: Rain, temp: 8, city: Oslo}\n---\nx\n")
        #expect(theirs.weather == DiaryWeather(condition: "Rain", temperature: 8, place: "Oslo"))
        // Not YAML: no title or weather from it, and the text is still there.
        let broken = self.read("---\nweather: [1\n---\nStill here\n")
        #expect(broken.weather == nil)
        #expect(broken.title == "Still here")
    }
}

@Suite("entry queries: parameters, search words and cursors")
struct EntryQueryTests {
    let utc = Zone.utc

    @Test func parametersAreCheckedAndTheBadOneIsNamed() throws {
        let query = try EntryQuery(
            parameters: [
                "since": "2026-01-01", "until": "2026-01-31", "lane": "left_alone", "limit": "10", "q": "snow",
            ],
            timeZone: self.utc)
        // Days on each entry's own calendar: exact by day, the instants widened to every clock's day (+14:00 to
        // −12:00) for the key range.
        #expect(query.sinceDay == "2026-01-01" && query.untilDay == "2026-01-31")
        #expect(query.since == Date(timeIntervalSince1970: 1_767_225_600 - 14 * 3600))
        let until = try #require(query.until).timeIntervalSince1970
        #expect(abs(until - (1_767_225_600 + 31 * 86_400 + 12 * 3600 - 0.001)) < 1e-5)
        #expect(query.includes(localDay: "2026-01-01") && query.includes(localDay: "2026-01-31"))
        #expect(!query.includes(localDay: "2025-12-31") && !query.includes(localDay: "2026-02-01"))
        // Asked again as the command line asks the daemon: the days stay days.
        #expect(query.parameters.contains { $0 == ("since", "2026-01-01") })
        #expect(query.parameters.contains { $0 == ("until", "2026-01-31") })
        #expect(query.lane == .leftAlone)
        #expect(query.limit == 10)
        for (parameters, named) in [
            (["lane": "done"], "lane"), (["limit": "0"], "limit"), (["limit": "1001"], "limit"),
            (["limit": "ten"], "limit"), (["since": "last week"], "since"), (["cursor": "x"], "cursor"),
            (["q": "+-*"], "q"), (["sort": "asc"], "sort"), (["since": "2026-02-01", "until": "2026-01-01"], "until"),
        ] {
            #expect(throws: EntryQuery.Invalid.self) { try EntryQuery(parameters: parameters) }
            do {
                _ = try EntryQuery(parameters: parameters, timeZone: self.utc)
            } catch {
                #expect(error.parameter == named, "\(parameters)")
            }
        }
        // A time is an instant, not a day.
        let instant = try EntryQuery(parameters: ["since": "2026-01-05T08:00:00+09:00"])
        #expect(instant.since == Date(timeIntervalSince1970: 1_767_567_600) && instant.sinceDay == nil)
    }

    @Test func searchWordsArePrefixesAndFTSSyntaxCannotBeInjected() {
        #expect(EntryQuery.searchExpression("snow man") == #""snow"* AND "man"*"#)
        #expect(EntryQuery.searchExpression(#"walk "han river""#) == #""walk"* AND "han river""#)
        #expect(
            EntryQuery.searchExpression("NEAR(a b) -c ^d col:e")
                == #""NEAR"* AND "a"* AND "b"* AND "c"* AND "d"* AND "col"* AND "e"*"#)
        #expect(EntryQuery.searchExpression("한강을") == #""한강 강을""#)
        #expect(EntryQuery.searchExpression("\" * ") == nil)
    }

    @Test func keysOrderByTimeAndCursorsRoundTrip() throws {
        let day = Date(timeIntervalSince1970: 1_795_431_600)
        #expect(DiaryOrder.key(day) < DiaryOrder.key(day.addingTimeInterval(0.001)))
        #expect(DiaryOrder.key(Date(timeIntervalSince1970: -86_400)) < DiaryOrder.key(Date(timeIntervalSince1970: 0)))
        #expect(DiaryOrder.key(Date.distantFuture) > DiaryOrder.key(day))
        let cursor = EntryQuery.Cursor(id: DiaryOrder.key(Date(timeIntervalSince1970: 1_795_431_600.123)) + 3)
        #expect(EntryQuery.Cursor(cursor.description) == cursor)
        #expect(EntryQuery.Cursor("nonsense") == nil)
        let query = EntryQuery(condition: "Snow", text: "a b", lane: .waiting, limit: 5, cursor: cursor)
        #expect(try EntryQuery(parameters: Dictionary(uniqueKeysWithValues: query.parameters)) == query)
    }
}

@Suite("lanes: every result in one lane, in words")
struct LaneTests {
    @Test func resultsAreInTheirLanes() {
        let version = FileVersion(device: 1, inode: 2, size: 3, modifiedSeconds: 4, modifiedNanoseconds: 5)
        #expect(LaneState.of(.stamped(version)) == LaneState(.stamped, .stamped))
        #expect(LaneState.of(.restored(version))?.reason == .restored)
        #expect(LaneState.of(.alreadyStamped(version))?.reason == .found)
        #expect(LaneState.of(.vanished) == nil)
        #expect(LaneState.of(.inUse)?.lane == .waiting)
        #expect(
            LaneState.of(.leftAlone(.readOnly, version))
                == LaneState(.leftAlone, .readOnly, detail: Said("it is read-only")))
        #expect(LaneState.of(.leftAlone(.content(.empty), nil))?.reason == .empty)
        let time = EntryTime(date: Date(timeIntervalSince1970: 0), dayOnly: true, source: .fileName, timeZone: .current)
        #expect(LaneState.of(.leftAlone(.backdated(time, .noPosition), nil))?.lane == .backdated)
        #expect(LaneState.of(.leftAlone(.backdated(time, .noPosition), nil))?.reason == .noPosition)
        #expect(LaneState.of(.wantsHistory(HistoryRequest(time: time, position: nil)))?.reason == .waitingForHistory)
    }

    @Test func theRunningInboxHasTheLastWordOnWaitingEntries() {
        let editor = LaneState(.waiting, .editor, detail: Said(verbatim: ".a.md.swp"))
        let stamped = LaneState(.stamped, .stamped)
        let inUse = LaneState(.waiting, .inUse)
        let history = LaneState(.backdated, .waitingForHistory)
        #expect(LaneState.shown(indexed: stamped, live: editor, inboxRunning: true) == stamped, "not waiting")
        #expect(LaneState.shown(indexed: .queued, live: editor, inboxRunning: true) == editor)
        #expect(LaneState.shown(indexed: .queued, live: nil, inboxRunning: true).reason == .stamping)
        #expect(LaneState.shown(indexed: inUse, live: nil, inboxRunning: true) == inUse)
        #expect(LaneState.shown(indexed: editor, live: nil, inboxRunning: false).reason == .notRunning)
        #expect(LaneState.shown(indexed: editor, live: nil, inboxRunning: false).detail == Said(verbatim: ".a.md.swp"))
        #expect(LaneState.shown(indexed: history, live: nil, inboxRunning: false) == history)
        #expect(LaneState.shown(indexed: history, live: nil, inboxRunning: true) == history)
    }

    /// The codes `GET /v1/entries`, `why` and the index give, byte for byte: a renamed case must keep its code.
    @Test func reasonCodesAreTheAPIs() {
        #expect(
            LaneReason.allCases.map(\.rawValue) == [
                "no_weather", "editor", "syncing", "in_use", "settling", "changing", "disk_refused", "queued",
                "stamping", "dated_ahead", "not_running", "stamped", "restored", "found", "waiting_for_history",
                "history_disabled", "no_position", "history_refused", "elsewhere", "not_regular_file",
                "permission_denied", "hard_links", "read_only", "no_read_permission", "too_large", "empty",
                "over_limit",
                "content", "owner_would_lose_access", "keeps_changing", "stopped_the_daemon", "unreadable_time",
                "future", "template", "stamped_template", "other_time",
            ])
        #expect(Lane.allCases.map(\.rawValue) == ["waiting", "stamped", "backdated", "left_alone", "other_time"])
        // An index a newer version wrote: an unknown code reads as its lane's most general reason.
        #expect(LaneReason.indexed("found", in: .stamped) == .found)
        #expect(LaneReason.indexed("a_new_reason", in: .waiting) == .queued)
        #expect(LaneReason.indexed("a_new_reason", in: .leftAlone) == .content)
        for reason in LaneReason.allCases {
            let state = LaneState(.leftAlone, reason)
            #expect(state.sentence.hasSuffix(".") && !state.remedy.isEmpty, "\(reason)")
        }
    }

    @Test func everyReasonHasASentenceAndARemedy() {
        let states = [
            LaneState(.waiting, .noWeather, detail: Said(verbatim: "HTTP 500")),
            LaneState(.waiting, .editor, detail: Said(verbatim: ".a.md.swp")),
            LaneState(.waiting, .notRunning), LaneState(.stamped, .restored),
            LaneState(.backdated, .historyDisabled), LaneState.of(.readOnly),
        ]
        for state in states {
            #expect(state.sentence.hasSuffix("."), "\(state)")
            #expect(!state.remedy.isEmpty)
        }
        #expect(LaneState(.waiting, .editor, detail: Said(verbatim: ".a.md.swp")).sentence.contains(".a.md.swp"))
        #expect(LaneState(.waiting, .noWeather, detail: Said(verbatim: "HTTP 500")).sentence.contains("HTTP 500"))
    }

    /// A template and a block of another time, in the words every view gives them (`LaneWords`): the lane, the
    /// code, the sentence and the remedy, from the reasons the stamp gives.
    @Test func templatesAndOtherTimesInWords() {
        let folder = VaultLayout.Place(
            "Templates", setting: "Templater, .obsidian/plugins/templater-obsidian/data.json")
        let written = Date(timeIntervalSince1970: 1_762_160_400)  // 2025-11-03 09:00 UTC
        let entry = EntryTime(
            date: Date(timeIntervalSince1970: 1_796_601_600), dayOnly: true, source: .fileName, timeZone: .utc)
        let table: [(LeftAloneReason, Lane, LaneReason, String, String)] = [
            (
                .template(.folder(folder)), .leftAlone, .template,
                "It is left as it is: a template: it is in Templates/, the templates folder of Templater, "
                    + ".obsidian/plugins/templater-obsidian/data.json.",
                "Nothing: a template is never stamped; each note made from it gets its own weather."
            ),
            (
                .template(.placeholder("{{date:YYYY-MM-DD}}"), .written(at: written)), .leftAlone, .stampedTemplate,
                "It is left as it is: a template: it holds {{date:YYYY-MM-DD}}, which a template plugin fills in "
                    + "when it makes a note of it; it holds a weather block weathertag wrote there on 2025-11-03, "
                    + "before it knew templates (`weathertag stamp --remove` takes out that block and nothing else).",
                "`weathertag stamp --remove FILE` takes out the block weathertag wrote there and nothing else; notes "
                    + "made from it meanwhile get their own weather."
            ),
            (
                .template(
                    .file(VaultLayout.Place("Daily.md", setting: "Daily notes, .obsidian/daily-notes.json")),
                    .unknown), .leftAlone, .template,
                "It is left as it is: a template: Daily notes, .obsidian/daily-notes.json names it as one; the "
                    + "weather block in it is not one weathertag remembers writing, and stays as it is.",
                "Nothing: a template is never stamped; each note made from it gets its own weather."
            ),
            (
                .anotherTime(AnotherTime(block: written, blockDay: "2025-11-03", entry: entry)), .otherTime,
                .otherTime,
                "It holds weather from another time: its weather block is the weather of 2025-11-03, but it was "
                    + "written 2026-12-07 (by its file name): weathertag did not write that block for it, and "
                    + "leaves it as it is.",
                "If the block is not yours, `weathertag stamp --fresh FILE` replaces it with the weather of the "
                    + "entry's own time; its weather is counted nowhere meanwhile."
            ),
        ]
        for (reason, lane, code, sentence, remedy) in table {
            let state = LaneState.of(reason)
            #expect(state.lane == lane && state.reason == code, "\(state)")
            #expect(state.sentence == sentence)
            #expect(state.remedy == remedy)
            #expect(!state.weatherIsItsOwn)
        }
        #expect(LaneState(.stamped, .found).weatherIsItsOwn && LaneState.of(.readOnly).weatherIsItsOwn)
    }
}

@Suite("entries shown: the reader's locale and templates")
struct DiaryFormattingTests {
    func entry(time: String, dayOnly: Bool = false) -> EntryDocument {
        EntryDocument(
            path: "2025/01/old.md", title: "산책", time: time, dayOnly: dayOnly, timeSource: "file_name",
            lane: "stamped", reason: "stamped", detail: nil, why: "It is stamped.", excerpt: "x",
            weather: DiaryWeather(condition: "Snow", icon: "13d", temperature: -2.4, units: "metric", place: "Seoul"))
    }

    @Test func theLocaleComesFromTheEnvironmentAsTheCLibraryPicksIt() {
        #expect(DiaryFormatting.locale(environment: ["LANG": "ko_KR.UTF-8"]).identifier == "ko_KR")
        #expect(
            DiaryFormatting.locale(environment: ["LANG": "ko_KR.UTF-8", "LC_TIME": "de_DE.UTF-8"]).identifier == "de_DE"
        )
        #expect(
            DiaryFormatting.locale(environment: ["LC_ALL": "fr_FR@euro", "LC_TIME": "de_DE"]).identifier == "fr_FR")
        #expect(DiaryFormatting.locale(environment: ["LANG": "C.UTF-8"]).identifier == "en_US")
        #expect(DiaryFormatting.locale(environment: [:]).identifier == "en_US")
    }

    @Test func datesInEnglishAndKorean() {
        let utc = Zone.utc
        let english = DiaryFormatting(locale: DateLocale.english, timeZone: utc)
        let korean = DiaryFormatting(locale: DateLocale(identifier: "ko_KR"), timeZone: utc)
        #expect(english.date(self.entry(time: "2025-01-05T00:00:00+00:00", dayOnly: true)) == "Jan 5, 2025")
        // Korean as CLDR writes it, whether or not the machine has the ko_KR locale.
        #expect(korean.date(self.entry(time: "2025-01-05T00:00:00+00:00", dayOnly: true)) == "2025. 1. 5.")
        #expect(korean.date(self.entry(time: "2025-01-05T15:30:00+00:00")) == "2025. 1. 5. 오후 3:30")
        #expect(english.date(self.entry(time: "2025-01-05T15:30:00+00:00")) == "Jan 5, 2025, 3:30 PM")
        // A locale CLDR does not have: English, not an empty date.
        let missing = DiaryFormatting(locale: DateLocale(identifier: "xx_XX"), timeZone: utc)
        #expect(missing.date(self.entry(time: "2025-01-05T00:00:00+00:00", dayOnly: true)) == "Jan 5, 2025")
    }

    /// An entry at the wall-clock time it was written, marked with its own offset where the reader's clock differs
    /// at that moment; a day alone is its own day.
    @Test func anEntryIsShownOnItsOwnClock() throws {
        let utc = DiaryFormatting(locale: DateLocale.english, timeZone: .utc)
        let berlin = DiaryFormatting(locale: DateLocale.english, timeZone: try #require(Zone.named("Europe/Berlin")))
        let cairns = DiaryFormatting(locale: DateLocale.english, timeZone: .fixed(secondsFromGMT: 36_000))
        let dinner = self.entry(time: "2021-03-10T20:25:00+10:00")
        #expect(utc.date(dinner) == "Mar 10, 2021, 8:25 PM +10:00")
        #expect(berlin.date(dinner) == "Mar 10, 2021, 8:25 PM +10:00")
        #expect(cairns.date(dinner) == "Mar 10, 2021, 8:25 PM", "the reader's own clock: no mark")
        // Berlin in summer is +02:00, in winter +01:00: the mark follows the reader's clock at that moment.
        #expect(berlin.date(self.entry(time: "2025-07-01T14:00:00+02:00")) == "Jul 1, 2025, 2:00 PM")
        #expect(berlin.date(self.entry(time: "2025-01-01T14:00:00+02:00")) == "Jan 1, 2025, 2:00 PM +02:00")
        #expect(berlin.date(self.entry(time: "2025-07-02T09:00:00Z")) == "Jul 2, 2025, 9:00 AM UTC")
        #expect(utc.date(self.entry(time: "2025-07-02T09:00:00-03:30")) == "Jul 2, 2025, 9:00 AM -03:30")
        // Midnight of its own day, not the reader's day before.
        #expect(utc.date(self.entry(time: "2021-03-11T00:00:00+10:00", dayOnly: true)) == "Mar 11, 2021")
        #expect(DiaryFormatting.utcOffset(ofRFC3339: "2021-03-10T20:25:00+10:00") == 36_000)
        #expect(DiaryFormatting.utcOffset(ofRFC3339: "2021-03-10T20:25:00-09:30") == -34_200)
        #expect(DiaryFormatting.utcOffset(ofRFC3339: "2021-03-10T20:25:00Z") == 0)
        #expect(DiaryFormatting.utcOffset(ofRFC3339: "2021-03-10T20:25:00+99:00") == nil)
    }

    @Test func templatesAndTables() {
        let formatting = DiaryFormatting(locale: DateLocale.english, timeZone: .utc)
        let entry = self.entry(time: "2025-01-05T00:00:00+00:00", dayOnly: true)
        #expect(formatting.line("{date} {icon} {temperature} {title} {nope}", entry) == "Jan 5, 2025 ❄️ -2°C 산책 {nope}")
        #expect(DiaryFormatting.unknownPlaceholders(in: "{date} {nope}") == ["nope"])
        let table = formatting.table([entry, self.entry(time: "2025-01-05T00:00:00+00:00", dayOnly: true)])
        #expect(table == "Jan 5, 2025  ❄️  -2°C  Seoul  산책\nJan 5, 2025  ❄️  -2°C  Seoul  산책\n")
    }
}
