import Foundation
import Glibc
import Testing
import WeathertagCore
import WeathertagTestSupport

/// `stamp.format: properties`, as an Obsidian diary keeps it: the real daemon writes the stamp as properties
/// Obsidian types; the front matter is written again as an editor does (js-yaml, Debian's node-js-yaml, run by
/// nodejs: `tools/obsidian-rewrite.js`), in other orders and quoting and with a property added, and is stamped once
/// and left as it is; an editor that drops them gets them back; every command reads them; `stamp`, `new` and
/// `import` write them too.
@Suite("An Obsidian diary: the stamp as properties", .serialized)
struct ObsidianTests {
    static let fixed = #"[{"type": "fixed", "latitude": 37.5665, "longitude": 126.978, "name": "Seoul"}]"#
    static let properties = #", "stamp": {"format": "properties"}"#
    static let history = #", "history": {"enabled": true, "source": "openweather", "max_calls_per_day": 900}"#
    static let script = Fixtures.repositoryRoot + "/tools/obsidian-rewrite.js"

    /// Runs the editor's serialiser on `file`.
    static func node(_ arguments: [String], _ harness: Harness) async throws -> String {
        let run = try await ChildProcess.run(
            ["/usr/bin/env", "NODE_PATH=/usr/share/nodejs", "node", Self.script] + arguments, in: harness.directory)
        #expect(run.status == 0, "\(arguments): \(run.stderr)")
        return run.stdout
    }

    static func front(_ text: String) -> String {
        guard text.hasPrefix("---\n"), let end = text.range(of: "\n---\n") else { return "" }
        return String(text[text.startIndex..<end.lowerBound])
    }

    /// Every value of `file`'s front matter as JavaScript reads it: each of the stamp's properties of its
    /// Obsidian type, and no object anywhere.
    static func expectObsidianTypes(_ file: String, _ harness: Harness) async throws {
        let output = try await Self.node([file, "types"], harness)
        let types = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String])
        let declared = Dictionary(uniqueKeysWithValues: StampProperties.all.map { ($0.name, $0.type) })
        #expect(types.values.allSatisfy { $0 != "object" }, "\(types)")
        #expect(types.keys.contains("weather_temperature") && types.keys.contains("weather_local_time"), "\(types)")
        for (key, type) in types where key.hasPrefix("weather_") {
            let expected: String
            switch try #require(declared[key], "\(key) is a documented property") {
            case .number: expected = "number"
            case .checkbox: expected = "boolean"
            case .text, .datetime: expected = "string"
            }
            #expect(type == expected, "\(key): \(type)")
        }
    }

    @Test func anObsidianDiaryIsStampedOnceAndReadBackByEveryCommand() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed, extra: Self.properties)
            let daemon = try await harness.startDaemon()
            let file = harness.entryPath("market.md")
            try harness.dropByRename("market.md", "---\ntitle: Market day\ntags:\n  - market\n---\nBought plums.\n")
            let stamped = try await poll("stamped with properties") { () -> String? in
                let text = harness.read("market.md")
                return text.contains("weather_condition: ") ? text : nil
            }
            #expect(!Self.front(stamped).contains("weather:"), "no mapping: \(stamped)")
            #expect(stamped.hasSuffix("---\nBought plums.\n") && stamped.hasPrefix("---\ntitle: Market day\n"))
            try await Self.expectObsidianTypes(file, harness)

            // Written again as an editor does, a property added each time: stamped once, left as it is.
            for (mood, style) in ["sorted", "quoted", "reversed"].enumerated() {
                _ = try await Self.node([file, "rewrite", style, #"{"mood": \#(mood + 2)}"#], harness)
                let rewritten = harness.read("market.md")
                let entry = try await poll("the \(style) front matter read") { () -> [String: Any]? in
                    let entry = try DiaryTests.entry(daemon, "market.md")
                    return entry?["mood"] as? Double == Double(mood + 2) ? entry : nil
                }
                // (Its reason stays: the block found is the one weathertag wrote.)
                #expect(entry["lane"] as? String == "stamped" && entry["reason"] as? String == "stamped", "\(entry)")
                #expect(harness.read("market.md") == rewritten, "\(style): not stamped again")
                #expect(rewritten.components(separatedBy: "weather_condition").count == 2, "\(rewritten)")
                try await Self.expectObsidianTypes(file, harness)
            }

            // Every command reads it: the list, why, the statistics, the socket's entry with its weather and place.
            let entry = try #require(try DiaryTests.entry(daemon, "market.md"))
            let weather = try #require(entry["weather"] as? [String: Any])
            #expect(weather["condition"] as? String == "Clouds" && weather["place"] as? String == "Seoul", "\(weather)")
            #expect((weather["observed_at"] as? String)?.hasSuffix("Z") == true, "\(weather)")
            let listed = try await DiaryTests.cli(["entries", "--format", "{condition}|{place}|{title}"], harness)
            #expect(listed.stdout == "Clouds|Seoul|Market day\n", "\(listed.stdout)\(listed.stderr)")
            let why = try await DiaryTests.cli(["why", file], harness)
            #expect(why.stdout.contains("It is stamped") && why.stdout.contains("weather: "), "\(why.stdout)")
            let stats = try await DiaryTests.cli(["stats"], harness)
            #expect(stats.stdout.contains("Clouds"), "\(stats.stdout)")

            // An editor drops the properties: the remembered ones come back, as the editor last wrote them.
            let before = Self.front(harness.read("market.md"))
            let remembered = before.split(separator: "\n").filter { $0.hasPrefix("weather_") }
            _ = try await Self.node([file, "drop", "weather_"], harness)
            let restored = try await poll("the properties given back") { () -> String? in
                let text = harness.read("market.md")
                return text.contains("weather_condition") ? text : nil
            }
            for line in remembered { #expect(restored.contains(line + "\n"), "\(line): \(restored)") }
            let given = try await poll("the index says given back") { () -> [String: Any]? in
                let entry = try DiaryTests.entry(daemon, "market.md")
                return entry?["reason"] as? String == "restored" ? entry : nil
            }
            #expect(given["lane"] as? String == "stamped")
            #expect(try await daemon.stop() == 0)
        }
    }

    /// `weathertag stamp`, `new` and `import` write the configured form too.
    @Test func stampNewAndImportWriteProperties() async throws {
        try await withHarness { harness in
            let config = try harness.writeConfig(providers: Self.fixed, extra: Self.properties + Self.history)
            // `stamp`, by itself (no daemon), of a file outside the inbox.
            try harness.directory.write("note.md", "---\ntitle: A note\n---\nText.\n")
            let stamp = try await ChildProcess.run(
                [DaemonProcess.binary, "stamp", "--config", config, harness.directory.file("note.md")],
                in: harness.directory)
            #expect(stamp.status == 0, "\(stamp.stdout)\(stamp.stderr)")
            let note = try String(contentsOfFile: harness.directory.file("note.md"), encoding: .utf8)
            #expect(note.contains("\nweather_condition: ") && !Self.front(note).contains("weather:"), "\(note)")

            // `new`, back-dated: the weather of its hour, from history, as properties.
            let made = try await ChildProcess.run(
                [DaemonProcess.binary, "new", "Market", "--at", "2019-05-01 10:00", "--config", config],
                in: harness.directory)
            #expect(made.status == 0, "\(made.stdout)\(made.stderr)")
            let new = try String(contentsOfFile: harness.inbox + "/2019/05/2019-05-01-1000.md", encoding: .utf8)
            #expect(new.contains("\nweather_kind: historical\n") && !Self.front(new).contains("weather:"), "\(new)")

            // `import` of a Day One journal: its own weather as properties.
            try harness.directory.write("Trip.json", ImportCommandTests.tripJournal)
            let diary = harness.directory.file("diary")
            try FileManager.default.createDirectory(atPath: diary, withIntermediateDirectories: true)
            let imported = try await ChildProcess.run(
                [
                    DaemonProcess.binary, "import", "dayone", harness.directory.file("Trip.json"), "--into", diary,
                    "--config", config,
                ], in: harness.directory)
            #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
            let trip = try String(contentsOfFile: diary + "/2018/01/2018-01-31-0022.md", encoding: .utf8)
            #expect(
                trip.contains("\nweather_service: HAMweather\n") && trip.contains("\nweather_icon: 10n\n"), "\(trip)")
            #expect(!Self.front(trip).contains("\nweather:"), "\(trip)")
            // Its place as Obsidian's Map View writes one, read back as the entry's own.
            #expect(trip.contains("\nlocation: [22.283, 114.136]\n"), "\(trip)")
            #expect(trip.contains("\nlocation_name: "), "\(trip)")
            try await Self.expectObsidianTypes(diary + "/2018/01/2018-01-31-0022.md", harness)
        }
    }
}
