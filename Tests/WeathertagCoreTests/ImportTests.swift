import Foundation
import Testing
import WeathertagCore
import Yams

/// Reading other diary apps' exports: a real Day One export and a real jrnl export (`Exports/PROVENANCE.md`), each
/// checked against the export as an independent JSON reader (Foundation's) sees it, and the files written checked
/// with Yams.
@Suite("Importing Day One and jrnl exports")
struct ImportTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Exports")

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Self.folder.appendingPathComponent(name)))
    }

    /// The export's entries as Foundation reads them: the oracle.
    static func oracle(_ name: String) throws -> [[String: Any]] {
        let document = try JSONSerialization.jsonObject(with: Data(Self.bytes(name))) as? [String: Any]
        return try #require(document?["entries"] as? [[String: Any]])
    }

    static func frontMatter(_ markdown: String) throws -> [String: Any] {
        let parts = markdown.components(separatedBy: "---\n")
        try #require(parts.count >= 3 && parts[0].isEmpty)
        return try #require(try Yams.load(yaml: parts[1]) as? [String: Any])
    }

    @Test func aRealDayOneExportIsReadEntryByEntry() throws {
        let name = "dayone-daygram2dayone-journal.json"
        let entries = try DayOneExport.read(Self.bytes(name))
        let oracle = try Self.oracle(name)
        #expect(entries.count == oracle.count)
        for (entry, expected) in zip(entries, oracle) {
            #expect(entry.id == expected["uuid"] as? String)
            let creationDate = try #require(expected["creationDate"] as? String)
            let created = try #require(ISO8601DateFormatter().date(from: creationDate))
            #expect(entry.date == created)
            #expect(entry.zone.identifier == expected["timeZone"] as? String)
            #expect(entry.starred == (expected["starred"] as? Bool ?? false))
            let weather = expected["weather"] as? [String: Any]
            #expect(entry.weather?.temperatureCelsius == (weather?["temperatureCelsius"] as? NSNumber)?.doubleValue)
            #expect(entry.weather?.description == weather?["conditionsDescription"] as? String)
            #expect(entry.weather?.service == weather?["weatherServiceName"] as? String)
            let location = expected["location"] as? [String: Any]
            // Foundation's reader rounds in the 15th digit (`-36.71798706054686` for `-36.717987060546875`).
            let latitude = (location?["latitude"] as? NSNumber)?.doubleValue
            #expect((entry.place?.latitude).map { abs($0 - (latitude ?? .nan)) < 1e-12 } ?? (latitude == nil))
            #expect(entry.place?.name == location?["placeName"] as? String)
            // Day One's escapes taken away where they mean nothing: `diary\.` is `diary.`.
            let text = expected["text"] as? String ?? ""
            #expect(entry.body == text.replacingOccurrences(of: "\\.", with: "."))
        }
        // An entry with no text at all is still an entry, without a title.
        let empty = try #require(entries.first { $0.id == "FD4D78E9E27240258DBD7585EF30F965" })
        #expect(empty.body.isEmpty && empty.title == nil)
    }

    /// The file an entry with Day One's weather becomes: its instant in its own zone's offset, the weather as Day
    /// One kept it (its service named, its words as written), the place rounded as `privacy` says.
    @Test func anEntryWithDayOnesWeatherKeepsItAndSaysWhose() throws {
        let entries = try DayOneExport.read(Self.bytes("dayone-daygram2dayone-journal.json"))
        let entry = try #require(entries.first { $0.id == "5F65EAB713694536A5899A1C9A6165DE" })
        let markdown = entry.markdown(
            privacy: PrivacyPolicy(stampCoordinates: .rounded, decimals: 3, requestDecimals: 2), fields: StampField.all,
            units: .metric)
        let front = try Self.frontMatter(markdown)
        // 2020-05-05T00:00:00Z is noon in Auckland (NZST, +12:00).
        #expect("\(front["date"] ?? "")".hasPrefix("2020-05-05") || front["date"] is Date)
        #expect(markdown.contains("date: 2020-05-05T12:00:00+12:00\n"))
        #expect(front["title"] as? String == "This is something happened in history.")
        #expect(front["dayone_uuid"] as? String == entry.id)
        #expect(front["starred"] as? Bool == false)
        let location = try #require(front["location"] as? [String: Any])
        #expect(location["name"] as? String == "Fernhill Reserve, Oteha, Auckland, New Zealand")
        #expect((location["latitude"] as? Double) == -36.718)
        #expect((location["longitude"] as? Double) == 174.717)
        let weather = try #require(front["weather"] as? [String: Any])
        #expect(weather["weather_source"] as? String == "dayone")
        #expect(weather["weather_service"] as? String == "HAMweather")
        #expect(weather["description"] as? String == "Light Rain")
        #expect(weather["condition"] as? String == "Rain")
        // Noon, between the day's sunrise and sunset: a day icon.
        #expect(weather["icon"] as? String == "10d")
        #expect(weather["temperature"] as? Int == 16)
        #expect(weather["humidity"] as? Int == 68)
        #expect(weather["pressure"] as? Int == 1006)
        #expect(weather["wind_deg"] as? Int == 250)
        // 31 km/h is 8.61 m/s.
        #expect(weather["wind_speed"] as? Double == 8.61)
        #expect(weather["local_time"] as? String == "2020-05-05T12:00:00+12:00" || weather["local_time"] is Date)
        #expect(markdown.hasSuffix("---\n# This is something happened in history.\n"))
        // In imperial units, as the configuration asks.
        let imperial = try Self.frontMatter(
            entry.markdown(privacy: .exact, fields: [.temperature, .windSpeed, .units], units: .imperial))
        let hot = try #require(imperial["weather"] as? [String: Any])
        #expect((hot["temperature"] as? Double ?? Double(hot["temperature"] as? Int ?? 0)) == 60.8)
        #expect(hot["units"] as? String == "imperial")
    }

    @Test func anEntryInAPrivacyZoneNamesTheZoneAndNoCoordinates() throws {
        let entries = try DayOneExport.read(Self.bytes("dayone-daygram2dayone-journal.json"))
        let entry = try #require(entries.first { $0.id == "2BF9C546AC724EE38ED861AC0758ECA8" })
        let home = PrivacyPolicy.Area(name: "Home", latitude: -36.7175, longitude: 174.7177, radiusMeters: 300)
        let privacy = PrivacyPolicy(stampCoordinates: .exact, decimals: 3, requestDecimals: 2, zones: [home])
        let markdown = entry.markdown(privacy: privacy, fields: StampField.all, units: .metric)
        #expect(!markdown.contains("Candlestick"))
        #expect(!markdown.contains("-36.7"))
        #expect(!markdown.contains("174.7"))
        let front = try Self.frontMatter(markdown)
        #expect((front["location"] as? [String: Any])?["name"] as? String == "Home")
        #expect((front["weather"] as? [String: Any])?["place"] as? String == "Home")
    }

    /// Day One's weather words of every era, and what they are in OpenWeather's terms.
    @Test(arguments: [
        ("fair", "", "Clouds", 801, "02"), ("mostly-cloudy-night", "Mostly Cloudy", "Clouds", 803, "04"),
        ("showers", "Showers", "Rain", 521, "09"), ("hazy", "Hazy", "Haze", 721, "50"),
        ("clear-night", "Mostly Clear", "Clear", 800, "01"), ("rain-night", "Light Rain", "Rain", 501, "10"),
        ("wind", "Breezy and Partly Cloudy", "Clouds", 802, "03"), ("flurries", "", "Snow", 600, "13"),
        ("tstorms", "", "Thunderstorm", 211, "11"), ("snow-showers", "", "Snow", 621, "13"),
        ("wind", "", "Unknown", 0, ""), ("no-such-code", "Freezing Drizzle", "Rain", 511, "13"),
    ])
    func dayOneWeatherWords(code: String, description: String, condition: String, id: Int, icon: String) {
        let mapped = DayOneWeatherCode(code: code, description: description)
        #expect(mapped.condition == condition)
        #expect(mapped.openWeatherID == id)
        #expect(mapped.iconNumber == icon)
    }

    @Test func aNightCodeDrawsANightIcon() throws {
        let weather = DayOneWeather(temperatureCelsius: 9, description: "Mostly Cloudy", code: "mostly-cloudy-night")
        let tag = weather.tag(
            at: Date(timeIntervalSince1970: 1_544_130_279), zone: try #require(Zone.named("Europe/Zurich")),
            position: Position(latitude: 47.3, longitude: 8.59, source: "dayone", takenAt: .distantPast),
            units: .metric)
        #expect(tag.weather.icon == "04n")
    }

    @Test(arguments: [
        (#"This is my second diary\."#, "This is my second diary."),
        (#"\(yes\) and 3\+4\=7\!"#, "(yes) and 3+4=7!"),
        (#"a \- b"#, "a - b"),
        (#"\- not a list"#, #"\- not a list"#),
        (#"  \+ not a list either"#, #"  \+ not a list either"#),
        (#"1\. not an ordered list"#, #"1\. not an ordered list"#),
        (##"\# not a heading"##, ##"\# not a heading"##),
        (#"\*not emphasis\*"#, #"\*not emphasis\*"#),
        (#"a\_b and \[c\]"#, #"a\_b and \[c\]"#),
        ("line\n\\- kept\nthen \\- gone", "line\n\\- kept\nthen - gone"),
        (#"1999\. A year"#, #"1999\. A year"#),
        (#"In 1999\. A year"#, "In 1999. A year"),
        (#"back\\slash"#, #"back\\slash"#),
    ])
    func dayOneEscapesComeOffWhereTheyMeanNothing(escaped: String, unescaped: String) {
        #expect(DayOneText.unescaped(escaped) == unescaped)
    }

    @Test func photoLinksAreRewrittenToTheCopiedFiles() {
        let text = "![](dayone-moment://A4EE1B8F)\n\nand ![](dayone-moment:/UNKNOWN1) stays"
        #expect(DayOneText.linkedIdentifiers(text) == ["A4EE1B8F", "UNKNOWN1"])
        #expect(
            DayOneText.rewritingLinks(text, ["A4EE1B8F": "photos/e03a.jpeg"])
                == "![](photos/e03a.jpeg)\n\nand ![](dayone-moment:/UNKNOWN1) stays")
    }

    /// Three entries of the same second in the export get three files, in the export's order.
    @Test func entriesOfTheSameMinuteGetTheirOwnNames() throws {
        let entries = try DayOneExport.read(Self.bytes("dayone-daygram2dayone-journal.json"))
        let same = entries.filter { $0.date == Date(timeIntervalSince1970: 1_588_888_006) }
        #expect(same.count == 3)
        let layout = DiaryLayout.default
        let paths = same.indices.map { layout.path(for: same[$0].wallClock, ordinal: $0 + 1) }
        #expect(
            paths == ["2020/05/2020-05-08-0946.md", "2020/05/2020-05-08-0946-2.md", "2020/05/2020-05-08-0946-3.md"])
    }

    @Test func aRealJrnlExportIsReadInTheZoneGiven() throws {
        let name = "jrnl-4.6-export.json"
        let zurich = try #require(Zone.named("Europe/Zurich"))
        let entries = try JrnlExport.read(Self.bytes(name), zone: zurich)
        let oracle = try Self.oracle(name)
        #expect(entries.count == oracle.count)
        for (entry, expected) in zip(entries, oracle) {
            #expect(entry.title == expected["title"] as? String)
            #expect(entry.body == expected["body"] as? String)
            #expect(entry.starred == expected["starred"] as? Bool)
            let tags = (expected["tags"] as? [String] ?? []).map { String($0.dropFirst()) }
            #expect(entry.tags == tags)
            let day = try #require(expected["date"] as? String)
            let time = try #require(expected["time"] as? String)
            #expect(entry.dateLine.hasPrefix("\(day)T\(time):00+0"))
            #expect(entry.weather == nil && entry.place == nil)
        }
        // May in Zurich is summer time.
        #expect(entries[0].dateLine == "2019-05-01T10:00:00+02:00")
        // Two entries of one minute and one title are two entries.
        #expect(entries[0].id != entries[1].id)
        #expect(Set(entries.map(\.id)).count == entries.count)
        // The same export read again names every entry the same.
        #expect(try JrnlExport.read(Self.bytes(name), zone: zurich).map(\.id) == entries.map(\.id))
        let front = try Self.frontMatter(entries[0].markdown(privacy: .exact, fields: StampField.all, units: .metric))
        #expect(front["jrnl_id"] as? String == entries[0].id)
        #expect(front["tags"] as? [String] == ["plums"])
        #expect(front["starred"] as? Bool == true)
        #expect(front["weather"] == nil)
    }

    /// A bad export is refused with what is wrong and which entry; nothing is read from it.
    @Test(arguments: [
        (
            #"{"entries": [{"uuid": "A1", "creationDate": "2020-05-03T00:00:00Z"}, {"creationDate": "2020-05-03T00:00:00Z"}]}"#,
            "entry 2: it has no uuid"
        ),
        (
            #"{"entries": [{"uuid": "A1", "creationDate": "yesterday"}]}"#,
            #"entry 1 (A1): its creationDate "yesterday""#
        ),
        (
            #"{"entries": [{"uuid": "A1", "creationDate": "2020-05-03T00:00:00Z", "timeZone": "Mars/Olympus"}]}"#,
            #"entry 1 (A1): its timeZone "Mars/Olympus""#
        ),
        (
            #"{"entries": [{"uuid": "A1", "creationDate": "2020-05-03T00:00:00Z", "text": 12}]}"#,
            #"entry 1 (A1): "text" is not"#
        ),
        ("{\n\"entries\": [\n{\"uuid\": \"A1\",\n\"creationDate\": }]}", "at line 4"),
        (#"{"metadata": {}}"#, "it has no \"entries\""),
        (#"[1, 2, 3]"#, "not Day One's JSON export"),
    ])
    func aBadDayOneExportIsRefusedNamingTheEntry(json: String, message: String) {
        #expect {
            _ = try DayOneExport.read(Array(json.utf8))
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func aBadJrnlExportIsRefusedNamingTheEntry() {
        let json =
            #"{"entries": [{"title": "ok", "date": "2020-01-01", "time": "10:00"}, {"title": "Feb", "date": "2021-02-30", "time": "10:00"}]}"#
        #expect {
            _ = try JrnlExport.read(Array(json.utf8), zone: .utc)
        } throws: { error in
            "\(error)".contains(#"entry 2 ("Feb")"#) && "\(error)".contains("2021-02-30")
        }
    }

    @Test func theLayoutMakesTheDiarysNamesAndRefusesWhatCouldLeaveIt() throws {
        let time = WallClock(year: 2019, month: 5, day: 1, hour: 10, minute: 7, second: 9)
        #expect(DiaryLayout.default.path(for: time) == "2019/05/2019-05-01-1007.md")
        #expect(try DiaryLayout("%Y-%m-%d %H.%M.%S.markdown").path(for: time) == "2019-05-01 10.07.09.markdown")
        #expect(try DiaryLayout("journal/%Y/%d%%.md").path(for: time, ordinal: 3) == "journal/2019/01%-3.md")
        for bad in [
            "/abs/%d.md", "%Y/%m.md", "../%d.md", "%Y/./%d.md", "%Y//%d.md", "%d.txt", "%d-%q.md", ".hidden/%d.md",
        ] {
            #expect(throws: DiaryLayout.Invalid.self) { try DiaryLayout(bad) }
        }
        // The wall clock of an instant, at an offset, across a day's end.
        #expect(
            WallClock(Date(timeIntervalSince1970: 1_588_888_006), utcOffset: 43_200)
                == WallClock(year: 2020, month: 5, day: 8, hour: 9, minute: 46, second: 46))
        #expect(
            WallClock(Date(timeIntervalSince1970: -1), utcOffset: 0)
                == WallClock(year: 1969, month: 12, day: 31, hour: 23, minute: 59, second: 59))
    }
}
