import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport
import Yams

/// Golden files: `Golden/NAME.input.md` stamped with `Fixtures.tag` must equal `Golden/NAME.expected.md` byte for
/// byte. Set WEATHERTAG_UPDATE_GOLDEN=1 to rewrite the expected files after a deliberate format change (and review
/// the diff).
@Suite("Front-matter stamper")
struct FrontMatterStamperTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static func input(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Self.golden.appendingPathComponent("\(name).input.md")))
    }

    @Test(
        "stamps and matches the golden file",
        arguments: [
            "no-front-matter", "front-matter-comments", "crlf", "bom", "bom-front-matter", "no-trailing-newline",
            "empty-front-matter", "dots-closing", "mixed-line-ends",
        ]
    )
    func stampsGolden(name: String) throws {
        let original = try Self.input(name)
        guard case .stamped(let stamped) = FrontMatterStamper.stamp(original, lines: Fixtures.tag.stampLines) else {
            Issue.record("\(name) was not stamped")
            return
        }
        let expectedURL = Self.golden.appendingPathComponent("\(name).expected.md")
        if ProcessInfo.processInfo.environment["WEATHERTAG_UPDATE_GOLDEN"] == "1" {
            try Data(stamped).write(to: expectedURL)
        }
        let expected = Array(try Data(contentsOf: expectedURL))
        #expect(stamped == expected, "\(name): stamped output differs from \(expectedURL.lastPathComponent)")

        // Stamping is idempotent: a stamped file is never stamped again.
        #expect(FrontMatterStamper.stamp(stamped, lines: Fixtures.tag.stampLines) == .alreadyStamped)
    }

    @Test(
        "leaves files it must not touch",
        arguments: [
            ("already-stamped", StampOutcome.alreadyStamped),
            ("unterminated", .skipped(.unterminatedFrontMatter)),
            ("empty", .skipped(.empty)),
            ("toml", .skipped(.tomlFrontMatter)),
            ("weather-not-mapping", .skipped(.weatherNotMapping)),
            ("flow-mapping", .skipped(.cannotAppend)),
            ("list-front-matter", .skipped(.frontMatterNotMapping)),
        ]
    )
    func leavesAlone(name: String, expected: StampOutcome) throws {
        #expect(FrontMatterStamper.stamp(try Self.input(name), lines: Fixtures.tag.stampLines) == expected)
    }

    @Test func invalidYAMLIsReportedNotStamped() throws {
        let outcome = FrontMatterStamper.stamp(try Self.input("invalid-yaml"), lines: Fixtures.tag.stampLines)
        guard case .skipped(.invalidFrontMatter(let reason)) = outcome else {
            Issue.record("expected invalid front matter, got \(outcome)")
            return
        }
        #expect(!reason.isEmpty)
    }

    @Test func binaryAndInvalidUTF8AreNotText() {
        #expect(FrontMatterStamper.stamp([0x23, 0x00, 0x41], lines: ["weather:"]) == .skipped(.binary))
        #expect(StampSkipReason.binary.description == "the file is binary (contains NUL bytes)")
        #expect(FrontMatterStamper.stamp([0x23, 0xFF, 0xFE, 0x0A], lines: ["weather:"]) == .skipped(.notText))
    }

    /// A template's `weather:` with nothing after it marks where the weather goes: that line becomes the block.
    /// (`weather:  `, blanks after it, is one too: found by `fuzz-stamper`, whose check took its blanks for lost bytes.)
    @Test(arguments: [
        "weather:", "weather: ~", "weather: null", "weather:   # filled in by weathertag", "weather:  ", "weather:\t",
    ])
    func anEmptyWeatherKeyIsFilledInPlace(line: String) {
        let lines = ["weather:", "  icon: 10d"]
        let original = "---\ntitle: Monday\n\(line)\ntags: [walk]\n---\nBody.\n"
        let outcome = FrontMatterStamper.stamp(Array(original.utf8), lines: lines)
        let expected = "---\ntitle: Monday\nweather:\n  icon: 10d\ntags: [walk]\n---\nBody.\n"
        #expect(outcome == .stamped(Array(expected.utf8)), "\(line)")
        // CRLF files keep CRLF.
        let crlf = original.replacingOccurrences(of: "\n", with: "\r\n")
        let stampedCRLF = FrontMatterStamper.stamp(Array(crlf.utf8), lines: lines)
        #expect(stampedCRLF == .stamped(Array(expected.replacingOccurrences(of: "\n", with: "\r\n").utf8)))
        // An indented `weather:` belongs to another key: the top-level block goes at the end.
        let nested = "---\nplace:\n  weather:\n---\nBody.\n"
        #expect(
            FrontMatterStamper.stamp(Array(nested.utf8), lines: lines)
                == .stamped(Array("---\nplace:\n  weather:\nweather:\n  icon: 10d\n---\nBody.\n".utf8)))
    }

    /// Found by `fuzz-stamper` (its check misread where the block went): a template's `weather:` right before a tagged
    /// key at the top level is filled in place, the key kept after the block.
    @Test func aTemplateLineBeforeATaggedKeyIsFilledInPlace() {
        let original = "---\ntitle: done\nweather:\n! condition: Clear\n---\nBody\n"
        let lines = ["weather:", "  icon: 10d"]
        let expected = "---\ntitle: done\nweather:\n  icon: 10d\n! condition: Clear\n---\nBody\n"
        #expect(FrontMatterStamper.stamp(Array(original.utf8), lines: lines) == .stamped(Array(expected.utf8)))
        #expect(FrontMatterStamper.stamp(Array(expected.utf8), lines: lines) == .alreadyStamped)
    }

    @Test func jsonFrontMatterIsLeftAlone() {
        let hugo = "{\n  \"title\": \"Monday\",\n  \"date\": \"2026-11-23\"\n}\nBody.\n"
        #expect(FrontMatterStamper.stamp(Array(hugo.utf8), lines: ["weather:"]) == .skipped(.jsonFrontMatter))
    }

    /// YAML's own line numbers count from the front matter; the reason names the file's line.
    @Test func yamlErrorsNameTheFilesLine() {
        let original = "---\ntitle: Monday\nmood: good\nplace: a: b\n---\nBody.\n"
        guard
            case .skipped(.invalidFrontMatter(let reason)) = FrontMatterStamper.stamp(
                Array(original.utf8), lines: ["weather:"])
        else {
            Issue.record("not reported as invalid")
            return
        }
        #expect(reason.hasPrefix("line 4, column 9: "), "\(reason)")
    }

    /// Front matter past a bound (a 200 KB entry nesting 100,000 `[` killed the daemon) is left alone with the bound
    /// and the file's line in the reason; the position and time readers, which compose it too, find nothing.
    @Test func frontMatterPastABoundIsLeftAloneWithTheBound() {
        let nested = Array(("---\ntitle: ok\nx: " + String(repeating: "[", count: 100_000) + "\n---\nBody.\n").utf8)
        #expect(
            FrontMatterStamper.stamp(nested, lines: ["weather:"]) == .skipped(.frontMatterOverLimit(.depth, line: 3)))
        #expect(FrontMatterStamper.position(nested) == nil)
        let laughs = Array(("---\n" + YAMLTests.laughs + "---\n").utf8)
        guard case .skipped(.frontMatterOverLimit(.nodes, _)) = FrontMatterStamper.stamp(laughs, lines: ["weather:"])
        else {
            Issue.record("the aliases were expanded")
            return
        }
        #expect(
            LaneState.of(.content(.frontMatterOverLimit(.depth, line: 3))).detail?.english
                == "the front matter nests deeper than 64 levels (at line 3): weathertag reads no further (Limits, in docs/stamp.md)"
        )
    }

    /// Keys are compared as YAML's default resolver compares them, although a cheaper one is tried first.
    @Test func duplicateKeysAreJudgedByTheDefaultResolver() {
        func stamp(_ yaml: String) -> StampOutcome {
            FrontMatterStamper.stamp(Array("---\n\(yaml)---\nBody.\n".utf8), lines: ["weather:", "  icon: 10d"])
        }
        // `1` is an integer and `"1"` a string: two keys, not a duplicate.
        guard case .stamped = stamp("1: plain\n\"1\": quoted\n") else {
            Issue.record("plain and quoted keys were taken for duplicates")
            return
        }
        // The same key twice is.
        guard case .skipped(.invalidFrontMatter) = stamp("title: a\ntitle: b\n") else {
            Issue.record("a duplicate key was not reported")
            return
        }
        // A quoted `weather` key is the weather key.
        #expect(stamp("\"weather\":\n  icon: 01d\n") == .alreadyStamped)
    }

    @Test func everyOriginalByteSurvives() throws {
        for name in ["no-front-matter", "bom", "no-trailing-newline"] {
            let original = try Self.input(name)
            guard case .stamped(let stamped) = FrontMatterStamper.stamp(original, lines: Fixtures.tag.stampLines)
            else {
                Issue.record("\(name) not stamped")
                continue
            }
            let body = original.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(original.dropFirst(3)) : original
            #expect(Array(stamped.suffix(body.count)) == body, "\(name): original content is not intact at the end")
        }
        // With front matter, removing the inserted block gives back the original exactly.
        let original = try Self.input("front-matter-comments")
        guard case .stamped(let stamped) = FrontMatterStamper.stamp(original, lines: Fixtures.tag.stampLines) else {
            Issue.record("not stamped")
            return
        }
        let block = Array(Fixtures.tag.stampLines.map { $0 + "\n" }.joined().utf8)
        var restored = stamped
        let start = try #require(Self.find(block, in: stamped))
        restored.removeSubrange(start..<(start + block.count))
        #expect(restored == original)
    }

    @Test func stampedFrontMatterReadsBackWithYams() throws {
        // The whole block: sun, local time, air, region and country as well.
        var tag = Fixtures.tag
        tag.weather.sunrise = Fixtures.observedAt.addingTimeInterval(-8000)
        tag.weather.sunset = Fixtures.observedAt.addingTimeInterval(20000)
        tag.weather.utcOffset = 32400
        tag.weather.windDegrees = 250
        tag.region = "Seoul"
        tag.country = "KR"
        tag.airQuality = AirQuality(aqi: 2, pm2_5: 7.3)
        guard
            case .stamped(let stamped) = FrontMatterStamper.stamp(
                try Self.input("front-matter-comments"),
                lines: tag.stampLines
            )
        else {
            Issue.record("not stamped")
            return
        }
        let text = String(decoding: stamped, as: UTF8.self)
        let yaml = text.components(separatedBy: "---\n")[1]
        let document = try #require(try Yams.load(yaml: yaml) as? [String: Any])
        let weather = try #require(document["weather"] as? [String: Any])
        #expect(weather["temperature"] as? Double == 12.3)
        #expect(weather["code"] as? Int == 803)
        #expect(weather["icon"] as? String == "04d")
        #expect(weather["place"] as? String == "Seoul")
        #expect(document["title"] as? String == "Market day")
        let location = try #require(weather["location"] as? [String: Any])
        #expect(location["latitude"] as? Double == 37.5665)
        #expect(location["source"] as? String == "gpsd")
        #expect((weather["air"] as? [String: Any])?["label"] as? String == "fair")
        #expect(weather["daylight"] as? Bool == true && weather["wind_direction"] as? String == "WSW")
        #expect(
            weather["sunrise"] as? Date == tag.weather.sunrise, "an ISO 8601 time with its offset, read as a moment")
        #expect(weather["country"] as? String == "KR" && weather["moon_phase"] as? String == "waxing_gibbous")
    }

    /// A stamped front matter is handed on to the index as it composes; where the block only adds a key to a block
    /// mapping, the stamper knows it without composing the whole again (`YAMLNode.Composed.takesKeysAfterIt`), and
    /// wherever the document could read the block otherwise, it composes the whole and finds what that gives.
    @Test(
        arguments: [
            ("title: a\n", true),
            ("title: a\n# a last comment\n", true),
            ("notes: |\n  kept\n\n", true),
            ("notes: |+\n  kept, with the blank lines after it\n\n\n", true),
            ("tags:\n- a\n- b\n", true),
            ("place:\n  name: Jeonju\n  country: KR\n", true),
            ("title: a plain scalar\n  over two lines\n", true),
            ("--- # an explicit start\ntitle: a\n", true),
            ("? a key\n", true),
            ("&anchor\ntitle: a\n", false),
            ("!!map\ntitle: a\n", false),
            ("  title: indented\n", false),
            ("{title: flow}\n", false),
            ("title: a\n... # the end, then another document\ntitle: b\n", false),
            ("title: a\n--- # a second document\ntitle: b\n", false),
            ("~\n", false),
            ("# only a comment\n", false),
        ]
    )
    func theStampedFrontMatterHandedOnIsWhatItComposesTo(yaml: String, takesKeys: Bool) throws {
        #expect((try? YAMLNode.composeForAppending(yaml))?.takesKeysAfterIt == takesKeys, "\(yaml)")
        let original = Array("---\n\(yaml)---\nBody.\n".utf8)
        let (outcome, frontMatter) = FrontMatterStamper.stampComposing(original, lines: Fixtures.tag.stampLines)
        let oracle = (try? Yams.compose(yaml: yaml + Fixtures.tag.stampLines.map { $0 + "\n" }.joined())) ?? nil
        guard case .stamped = outcome else {
            // Left alone only where the block would not read as the front matter's `weather`.
            #expect(oracle?.mapping?["weather"]?.mapping == nil, "\(yaml): \(outcome)")
            return
        }
        let handedOn = try #require(frontMatter, "\(yaml)")
        #expect(try YAMLNode.compose(handedOn.yaml) == .mapping(handedOn.mapping), "\(yaml)")
        #expect(handedOn.mapping["weather"]?.mapping != nil && oracle?.mapping?["weather"]?.mapping != nil)
    }

    /// Known without composing, the stamped front matter keeps the composer's bound on nodes: the block's nodes
    /// and the front matter's are counted together, as composing the whole counts them.
    @Test func theBlockAddedCountsTowardsTheBoundOnNodes() throws {
        let lines = ["weather:", "  icon: 10d"]  // 5 nodes, its root the front matter's
        func stamp(items: Int) -> StampOutcome {
            // The front matter's root, `k`, the sequence and its items: items + 3 nodes.
            let yaml = "k: [" + String(repeating: "a,", count: items) + "]\n"
            return FrontMatterStamper.stampComposing(Array("---\n\(yaml)---\n".utf8), lines: lines).outcome
        }
        guard case .stamped = stamp(items: YAMLLimit.maximumNodes - 7) else {
            Issue.record("a front matter of the bound's nodes, once stamped, was left alone")
            return
        }
        guard case .skipped(.cannotAppend) = stamp(items: YAMLLimit.maximumNodes - 6) else {
            Issue.record("a front matter one node past the bound once stamped was stamped")
            return
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }
}

@Suite("YAML scalars")
struct YAMLScalarTests {
    @Test(
        "strings read back as the same string",
        arguments: [
            "broken clouds", "04d", "Seoul", "yes", "No", "null", "~", "123", "1e3", "0x1F", "2026-11-22",
            "Zürich", "서울", "São Paulo", "a: b", "# not a comment", "- dash", "quote \" inside", "back\\slash",
            "trailing space ", "tab\there", "line\nbreak", "@at", "/var/cache/icons/04d@2x.png", "", "'single'",
            "{braces}", "[brackets]", "*star", "&amp", "!bang", "%percent", "|pipe", ">gt", "`tick`",
        ]
    )
    func roundTrips(value: String) throws {
        let yaml = "key: \(YAMLScalar.string(value))\n"
        let document = try #require(try Yams.load(yaml: yaml) as? [String: Any])
        #expect(document["key"] as? String == value, "\(yaml) read back as \(String(describing: document["key"]))")
    }

    @Test func numbers() {
        #expect(YAMLScalar.number(12.3, places: 2) == "12.3")
        #expect(YAMLScalar.number(12.0, places: 2) == "12")
        #expect(YAMLScalar.number(-0.004, places: 2) == "0")
        #expect(YAMLScalar.number(126.978, places: 6) == "126.978")
    }
}
