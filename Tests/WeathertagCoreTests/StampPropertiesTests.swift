import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport
import Yams

/// `stamp.format: properties`: the stamp as Obsidian's typed properties, top-level keys holding a number, a word, a
/// checkbox or a Date & time, never a mapping; known as a stamp in any order and quoting, remembered and given back,
/// and read by the index as the block is.
@Suite("the stamp as Obsidian's properties")
struct StampPropertiesTests {
    /// Seoul on a November evening: a zone, a sunrise and a sunset, air and a place.
    static let tag: WeatherTag = {
        var tag = Fixtures.tag
        tag.weather.zone = "Asia/Seoul"
        tag.weather.utcOffset = 32_400
        tag.weather.sunrise = Date(timeIntervalSince1970: 1_795_299_660)  // 2026-11-21T22:21:00Z
        tag.weather.sunset = Date(timeIntervalSince1970: 1_795_335_540)  // 2026-11-22T08:19:00Z
        tag.airQuality = AirQuality(aqi: 2, pm2_5: 7.3, pm10: 12.1, o3: 61.5, no2: 14.2)
        return tag
    }()

    static var lines: [String] { Self.tag.stampLines(fields: StampField.all, format: .properties) }

    @Test func everyPropertyIsTopLevelAndOfATypeObsidianKnows() throws {
        let lines = Self.lines
        #expect(lines.contains("weather_local_time: 2026-11-22T18:41:00"))
        #expect(lines.contains("weather_utc_offset: \"+09:00\""))
        #expect(lines.contains("weather_zone: Asia/Seoul"))
        #expect(lines.contains("weather_sunrise: 2026-11-22T07:21:00"))
        #expect(lines.contains("weather_sunset: 2026-11-22T17:19:00"))
        #expect(!lines.contains { $0.hasPrefix("weather_observed_at") }, "the instant is the local time at its offset")
        let types = Dictionary(uniqueKeysWithValues: StampProperties.all.map { ($0.name, $0.type) })
        // Yams (YAML 1.1, as PyYAML and the tests' oracle read it) and the types Obsidian shows.
        let document = try #require(try Yams.load(yaml: lines.joined(separator: "\n")) as? [String: Any])
        #expect(document.count == lines.count, "one key a line")
        for (key, value) in document {
            let type = try #require(types[key], "\(key) is a documented property")
            switch type {
            case .number: #expect(value is Int || value is Double, "\(key): \(value)")
            case .checkbox: #expect(value is Bool, "\(key): \(value)")
            case .text: #expect(value is String, "\(key): \(value)")
            case .datetime:
                // YAML 1.1 reads a time as a timestamp; Obsidian's Date & time is this text, seconds and all.
                let text = try #require(lines.first { $0.hasPrefix(key + ": ") }).dropFirst(key.count + 2)
                #expect(text.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/) != nil, "\(key): \(text)")
            }
        }
        #expect(document["weather_temperature"] as? Double == 12.3)
        #expect(document["weather_aqi"] as? Int == 2)
        #expect(document["weather_daylight"] as? Bool == false)
    }

    @Test func anEntryIsStampedOnceInEitherFormAndTheAuthorsBytesStay() throws {
        let original = Array("---\ntitle: Market day\ntags: [market]\n---\nBought plums.\n".utf8)
        guard case .stamped(let stamped) = FrontMatterStamper.stamp(original, lines: Self.lines) else {
            Issue.record("not stamped")
            return
        }
        let text = String(decoding: stamped, as: UTF8.self)
        #expect(
            text == "---\ntitle: Market day\ntags: [market]\n" + Self.lines.map { $0 + "\n" }.joined()
                + "---\nBought plums.\n")
        #expect(FrontMatterStamper.stamp(stamped, lines: Self.lines) == .alreadyStamped)
        // A configuration changed to the block does not stamp it again, nor one in properties a block entry.
        #expect(FrontMatterStamper.stamp(stamped, lines: Self.tag.stampLines) == .alreadyStamped)
        let block = try #require(FrontMatterStamper.stamp(original, lines: Self.tag.stampLines).bytes)
        #expect(FrontMatterStamper.stamp(block, lines: Self.lines) == .alreadyStamped)
        // An entry without front matter gets one of properties.
        let bare = try #require(FrontMatterStamper.stamp(Array("Rain all day.\n".utf8), lines: Self.lines).bytes)
        #expect(String(decoding: bare, as: UTF8.self).hasPrefix("---\nweather_condition: Clouds\n"))
    }

    /// Obsidian writes the whole front matter again when a property is edited in its panel: its own order and
    /// quoting, a property added. Still stamped, and the memory reads the properties where they now stand.
    @Test func aFrontMatterWrittenAgainInAnotherOrderAndQuotingIsStillStamped() throws {
        let rewritten = Array(
            """
            ---
            weather_temperature: 12.3
            title: "Market day"
            "weather_condition": 'Clouds'
            mood: 4
            weather_local_time: 2026-11-22T18:41:00
            weather_utc_offset: "+09:00"
            weather_place: >-
              Seoul
            ---
            Bought plums.

            """.utf8)
        #expect(FrontMatterStamper.stamp(rewritten, lines: Self.lines) == .alreadyStamped)
        let remembered = try #require(FrontMatterStamper.weatherBlock(rewritten, checked: true))
        #expect(
            remembered == [
                "weather_temperature: 12.3", "\"weather_condition\": 'Clouds'",
                "weather_local_time: 2026-11-22T18:41:00",
                "weather_utc_offset: \"+09:00\"", "weather_place: >-", "  Seoul",
            ])
        #expect(FrontMatterStamper.weatherBlock(rewritten) == remembered)

        // An editor dropped them all: the remembered lines go back, the rest as it is.
        let dropped = Array("---\ntitle: \"Market day\"\nmood: 4\n---\nBought plums.\n".utf8)
        let restored = try #require(FrontMatterStamper.stamp(dropped, lines: remembered).bytes)
        #expect(
            String(decoding: restored, as: UTF8.self)
                == "---\ntitle: \"Market day\"\nmood: 4\n" + remembered.map { $0 + "\n" }.joined()
                + "---\nBought plums.\n")
        #expect(FrontMatterStamper.stamp(restored, lines: Self.lines) == .alreadyStamped)

        // Read by the index as the block is: the weather, its instant, its place.
        let entry = DiaryEntry.read(rewritten, fileName: "a.md", modified: Fixtures.observedAt)
        #expect(entry.weather?.condition == "Clouds" && entry.weather?.temperature == 12.3)
        #expect(entry.weather?.place == "Seoul")
        #expect(entry.weather?.observedAt == "2026-11-22T09:41:00Z")
        #expect(entry.title == "Market day" && entry.mood == 4)
    }

    @Test func theIndexReadsEveryPropertyAsTheBlocksField() throws {
        let stamped = try #require(FrontMatterStamper.stamp(Array("Plums.\n".utf8), lines: Self.lines).bytes)
        let fromProperties = DiaryEntry.read(stamped, fileName: "a.md", modified: Fixtures.observedAt)
        let block = try #require(FrontMatterStamper.stamp(Array("Plums.\n".utf8), lines: Self.tag.stampLines).bytes)
        let fromBlock = DiaryEntry.read(block, fileName: "a.md", modified: Fixtures.observedAt)
        #expect(fromProperties.weather == fromBlock.weather)
        #expect(fromProperties.location == fromBlock.location && fromProperties.location?.latitude == 37.5665)
        #expect(fromProperties.weather?.aqi == 2)
    }

    @Test func aTemplatesEmptyPropertiesAreFilledAndAnAuthorsOwnWeatherStays() throws {
        let template = Array("---\ntitle: Day\nweather_temperature:\nweather_condition: ~\ntags: []\n---\nText.\n".utf8)
        let filled = try #require(FrontMatterStamper.stamp(template, lines: Self.lines).bytes)
        #expect(
            String(decoding: filled, as: UTF8.self)
                == "---\ntitle: Day\n" + Self.lines.map { $0 + "\n" }.joined() + "tags: []\n---\nText.\n")
        // `weather: sunny` is the author's: beside properties it stays; a block cannot be written over it.
        let own = Array("---\nweather: sunny\n---\nText.\n".utf8)
        let beside = try #require(FrontMatterStamper.stamp(own, lines: Self.lines).bytes)
        #expect(String(decoding: beside, as: UTF8.self).hasPrefix("---\nweather: sunny\nweather_condition: Clouds\n"))
        #expect(FrontMatterStamper.stamp(own, lines: Self.tag.stampLines) == .skipped(.weatherNotMapping))
        // What an entry needs while there is no weather is asked in the same form: it is not left alone for it.
        let decision = StampDecision.decide(
            own, name: "a.md", modified: Fixtures.observedAt, lines: nil, format: .properties)
        #expect(decision == .needsWeather)
    }

    @Test func freshWeatherReplacesTheProperties() throws {
        let stamped = Array(
            "---\ntitle: Day\nweather_temperature: 1\nmood: 3\nweather_condition: Snow\n---\nText.\n".utf8)
        let fresh = try #require(FrontMatterStamper.stamp(stamped, lines: Self.lines, replacing: true).bytes)
        #expect(
            String(decoding: fresh, as: UTF8.self)
                == "---\ntitle: Day\n" + Self.lines.map { $0 + "\n" }.joined() + "mood: 3\n---\nText.\n")
    }

    /// A line that only looks like a property, inside a flow sequence, is never taken out: the entry is left alone
    /// with the reason rather than lose it.
    @Test func onlyTheStampsOwnLinesAreTakenOut() {
        let tricky = Array("---\na: [1,\nweather_pm10: 2]\nweather_condition:\n---\nText.\n".utf8)
        #expect(FrontMatterStamper.stamp(tricky, lines: Self.lines) == .skipped(.cannotAppend))
    }
}

/// docs/obsidian.md and what it ships: the types Obsidian is told are the properties' own, the Base reads only them.
@Suite("the Obsidian page and its files")
struct ObsidianDocumentationTests {
    static let folder = Fixtures.repositoryRoot + "/docs/obsidian"

    @Test func typesJSONDeclaresEveryPropertyWithItsType() throws {
        let data = try #require(FileManager.default.contents(atPath: Self.folder + "/types.json"))
        let types = try #require(
            (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["types"] as? [String: String])
        let expected = Dictionary(uniqueKeysWithValues: StampProperties.all.map { ($0.name, $0.type.rawValue) })
        #expect(types == expected, "docs/obsidian/types.json: \(expected)")
    }

    @Test func theBaseIsYAMLAndReadsOnlyThePropertiesAndThePageNamesEveryOne() throws {
        let base = try String(contentsOfFile: Self.folder + "/diary-by-weather.base", encoding: .utf8)
        let document = try #require(try Yams.load(yaml: base) as? [String: Any])
        #expect(document["views"] is [Any] && document["filters"] is [String: Any])
        let named = Set(base.matches(of: /weather_[a-z0-9_]+/).map { String($0.output) })
        #expect(named.isSubset(of: Set(StampProperties.all.map(\.name))), "\(named)")
        let page = try String(contentsOfFile: Fixtures.repositoryRoot + "/docs/obsidian.md", encoding: .utf8)
        for (name, _) in StampProperties.all { #expect(page.contains("`\(name)`"), "\(name) in docs/obsidian.md") }
    }
}

extension StampOutcome {
    fileprivate var bytes: [UInt8]? {
        if case .stamped(let bytes) = self { bytes } else { nil }
    }
}
