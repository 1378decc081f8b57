import Foundation
import Testing
import WeathertagTestSupport
import Yams

/// With no key and nothing downloaded, every place is named and zoned: the towns index `make setup` builds beside
/// the binary (`.build/towns`, tools/towns.py) is the default geocoder.
@Suite("Every place named with no key", .serialized)
struct KeylessPlaceTests {
    static let seoul = #"[{"type": "fixed", "latitude": 37.5665, "longitude": 126.978}]"#

    static func block(_ path: String) throws -> [String: Any] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let yaml = String(text.split(separator: "---\n")[0])
        return try #require(try Yams.load(yaml: yaml) as? [String: Any])["weather"] as? [String: Any] ?? [:]
    }

    /// `weathertag stamp` of a new note with `config`, keyless, on a machine in UTC: the note's path.
    static func stampANote(_ harness: Harness, config: String) async throws -> String {
        let note = harness.directory.file("note.md")
        try Data("A note\n".utf8).write(to: URL(fileURLWithPath: note))
        let stamp = try await ChildProcess.run(
            [DaemonProcess.binary, "stamp", "--config", config, note],
            environment: ["PATH": "/usr/bin:/bin", "OPENWEATHER_API_KEY": "", "TZ": "UTC"], in: harness.directory)
        #expect(stamp.status == 0, "\(stamp.stderr)")
        return note
    }

    /// The daemon of a keyless configuration: current and back-dated stamps name Seoul, and `tag` says it.
    @Test func stampsAndTheTagNameThePlace() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.seoul, key: "", extra: #", "history": {"enabled": true}"#)
            let daemon = try await harness.startDaemon(environment: ["OPENWEATHER_API_KEY": "", "TZ": "UTC"])
            try harness.dropByRename("today.md", "Today\n")
            try harness.dropByRename("2019-05-01.md", "A spring day\n")
            let today = try await harness.waitForStamp("today.md")
            #expect(today["place"] as? String == "Seoul" && today["country"] as? String == "KR", "\(today)")
            #expect(today["region"] as? String == "Seoul", "\(today)")
            let spring = try await harness.waitForStamp("2019-05-01.md")
            #expect(spring["kind"] as? String == "historical" && spring["place"] as? String == "Seoul", "\(spring)")
            let tag = try await ChildProcess.run(
                [DaemonProcess.binary, "tag", "--socket", harness.socketPath], in: harness.directory)
            #expect(tag.stdout.contains("Seoul"), "\(tag.stdout)\(tag.stderr)")
            #expect(try await daemon.stop() == 0)
        }
    }

    /// The towns index names a place in `weather.lang` where it has that name (`서울` for `ko`, `ケアンズ` for `ja`),
    /// else in its own (`Seoul` for `de`).
    @Test(arguments: [
        ("ko", 37.5665, 126.978, "서울"), ("fr", 37.5665, 126.978, "Séoul"), ("ja", -16.92, 145.77, "ケアンズ"),
        ("de", 37.5665, 126.978, "Seoul"),
    ])
    func thePlaceIsNamedInTheReadersLanguage(
        lang: String, latitude: Double, longitude: Double, name: String
    )
        async throws
    {
        try await withHarness { harness in
            let config = try harness.writeConfig(
                providers: #"[{"type": "fixed", "latitude": \#(latitude), "longitude": \#(longitude)}]"#, key: "",
                extra: #", "weather": {"providers": [{"type": "met-norway"}], "lang": "\#(lang)"}"#)
            let note = try await Self.stampANote(harness, config: config)
            let block = try Self.block(note)
            #expect(block["place"] as? String == name, "\(block)")
        }
    }

    /// MET Norway names no zone: its local time is the place's own (Seoul's +09:00) with no GeoNames folder
    /// given, on a machine in UTC.
    @Test func metNorwaysLocalTimeIsThePlacesClock() async throws {
        try await withHarness { harness in
            let config = try harness.writeConfig(
                providers: Self.seoul, key: "", extra: #", "weather": {"providers": [{"type": "met-norway"}]}"#)
            let note = try await Self.stampANote(harness, config: config)
            let block = try Self.block(note)
            #expect(block["weather_source"] as? String == "met-norway" && block["place"] as? String == "Seoul")
            // As written (a YAML reader makes the time an instant and forgets its offset).
            let text = try String(contentsOfFile: note, encoding: .utf8)
            let local = text.split(separator: "\n").first { $0.hasPrefix("  local_time: ") } ?? ""
            #expect(local.hasSuffix("+09:00"), "\(text)")
        }
    }
}
