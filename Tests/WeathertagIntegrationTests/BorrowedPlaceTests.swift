import Foundation
import Testing
import WeathertagTestSupport

/// Never weather from a borrowed place: an entry whose own clock contradicts the place this machine is or always
/// was (a `fixed` Seoul, on a machine in UTC) is not given that place's weather; one whose clock agrees with the
/// place or the machine, or names no offset, is.
@Suite("Never weather from a borrowed place", .serialized)
struct BorrowedPlaceTests {
    static let seoul = #"[{"type": "fixed", "latitude": 37.57, "longitude": 126.98, "name": "Seoul"}]"#
    static let history = #", "history": {"enabled": true}"#

    static let entries = [
        // A phone's entry written in Berlin, synced to the machine at home.
        "berlin.md": "---\ndate: 2025-07-01T14:00:00+02:00\n---\nBy the Spree.\n",
        // Seoul's own clock, the machine's (UTC), and no offset at all (the machine's clock).
        "seoul.md": "---\ndate: 2025-07-01T21:00:00+09:00\n---\nHan river.\n",
        "utc.md": "---\ndate: 2025-07-01T12:00:00Z\n---\nAt home.\n",
        "note.md": "---\ndate: 2025-07-01 12:00\n---\nNo offset.\n",
    ]

    @Test func anEntryWhoseClockContradictsThePlaceIsLeftAloneAndExplained() async throws {
        try await withHarness { harness in
            let page = harness.directory.file("site/diary.html")
            _ = try harness.directory.makeDirectory("site")
            try harness.writeConfig(
                providers: Self.seoul, key: "",
                extra: Self.history + #", "timeline": {"output": "site/diary.html"}"#)
            let daemon = try await harness.startDaemon(
                environment: ["OPENWEATHER_API_KEY": "", "TZ": "UTC", "WEATHERTAG_TEST_PAGE_INTERVAL": "1"])
            for (name, text) in Self.entries { try harness.dropByRename(name, text) }
            for name in ["seoul.md", "utc.md", "note.md"] {
                let block = try await harness.waitForStamp(name)
                #expect(block["kind"] as? String == "historical", "\(name)")
                #expect((block["location"] as? [String: Any])?["source"] as? String == "fixed", "\(name)")
            }
            let berlin = try await poll("berlin.md left alone") { () -> [String: Any]? in
                let entry = try DiaryTests.entry(daemon, "berlin.md")
                return entry?["reason"] as? String == "elsewhere" ? entry : nil
            }
            #expect(berlin["lane"] as? String == "backdated")
            let why = berlin["why"] as? String ?? ""
            #expect(why.contains("(+02:00)") && why.contains("(UTC)") && why.contains("Seoul's (+09:00)"), "\(why)")
            #expect(why.contains("track, owntracks, homeassistant"), "what would help: \(why)")
            #expect(!harness.read("berlin.md").contains("weather:"))
            #expect(harness.read("berlin.md") == Self.entries["berlin.md"])
            // Logged once, in the same words.
            #expect(daemon.log.components(separatedBy: "its own clock (+02:00)").count - 1 == 1, "\(daemon.log)")

            // `weathertag why` says the same.
            let told = try await DiaryTests.cli(["why", harness.entryPath("berlin.md")], harness)
            #expect(told.stdout.contains("neither this machine's (UTC) nor Seoul's (+09:00)"), "\(told.stdout)")
            let remedy = try #require(berlin["remedy"] as? String)
            #expect(told.stdout.contains(remedy))

            // And so does every other view: the index learnt history's answer, not only the running inbox.
            let listed = try #require(try DiaryTests.entries(daemon).first { $0["path"] as? String == "berlin.md" })
            #expect(listed["why"] as? String == why && listed["remedy"] as? String == remedy, "\(listed)")
            let status = try await DiaryTests.cli(["status"], harness)
            #expect(status.stdout.contains("latest back-dated: berlin.md: \(why)"), "\(status.stdout)")
            #expect(!status.stdout.contains("waiting for history"), "\(status.stdout)")
            let entries = try await DiaryTests.cli(["entries", "--lane", "backdated"], harness)
            #expect(entries.stdout.contains("    \(why)\n"), "\(entries.stdout)")
            let card = try await poll("the page's card says why", timeout: .seconds(30)) { () -> String? in
                guard let html = try? String(contentsOfFile: page, encoding: .utf8),
                    let card = html.components(separatedBy: "<article").first(where: { $0.contains("By the Spree") }),
                    card.contains("left without weather")
                else { return nil }
                return card
            }
            #expect(!card.contains("waits for the weather of its time"), "\(card)")
            #expect(try await daemon.stop() == 0)

            // Without the daemon, from the database: the same words.
            let stopped = try await DiaryTests.cli(["why", harness.entryPath("berlin.md")], harness)
            #expect(stopped.stdout.contains("neither this machine's (UTC) nor Seoul's (+09:00)"), "\(stopped.stdout)")
        }
    }

    /// A provider that knows where the author was (a GPX track) is asked first: the Berlin entry gets Berlin's
    /// weather, not Seoul's.
    @Test func aTrackThatKnowsWhereTheAuthorWasIsAsked() async throws {
        try await withHarness { harness in
            _ = try harness.directory.makeDirectory("tracks")
            try harness.directory.write(
                "tracks/trip.gpx",
                """
                <gpx version="1.1"><trk><trkseg>
                <trkpt lat="52.52" lon="13.40"><time>2025-07-01T11:55:00Z</time></trkpt>
                <trkpt lat="52.52" lon="13.41"><time>2025-07-01T12:05:00Z</time></trkpt>
                </trkseg></trk></gpx>
                """)
            let providers =
                #"[{"type": "fixed", "latitude": 37.57, "longitude": 126.98, "name": "Seoul"}, "#
                + #"{"type": "track", "path": "\#(harness.directory.file("tracks"))"}]"#
            try harness.writeConfig(providers: providers, key: "", extra: Self.history)
            let daemon = try await harness.startDaemon(environment: ["OPENWEATHER_API_KEY": "", "TZ": "UTC"])
            try harness.dropByRename("berlin.md", Self.entries["berlin.md"] ?? "")
            let block = try await harness.waitForStamp("berlin.md")
            let location = block["location"] as? [String: Any]
            #expect(location?["source"] as? String == "track", "\(block)")
            #expect((location?["latitude"] as? Double).map { abs($0 - 52.52) < 0.01 } == true, "\(block)")
            #expect(try await daemon.stop() == 0)
        }
    }
}
