import Foundation
import Testing
import WeathertagTestSupport

/// Every entry keeps its own clock: listed at the wall-clock time it was written, marked with its offset where
/// the reader's clock differs, through the socket and the command line, whatever the daemon's and the reader's
/// zones.
@Suite("Each entry on its own clock", .serialized)
struct OwnClockTests {
    /// A dinner in Cairns (+10:00), an afternoon in Berlin (+02:00), and a note that names no offset (the
    /// machine's: the daemon runs in UTC).
    static let trip = [
        "cairns.md": "---\ntitle: Dinners\ndate: 2021-03-10T20:25:00+10:00\n---\nPrawns by the pier.\n",
        "berlin.md": "---\ntitle: Spree\ndate: 2025-07-01T14:00:00+02:00\n---\nBy the river.\n",
        "note.md": "---\ntitle: A note\ndate: 2025-07-02 09:00\n---\nNo zone here.\n",
    ]

    @Test func aTripIsListedAsItWasLived() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: OnThisDayTests.fixed)
            for (name, text) in Self.trip { try harness.directory.write("inbox/" + name, text) }
            let daemon = try await harness.startDaemon(environment: ["TZ": "UTC"])
            try await poll("the diary read") { () -> Bool? in
                let entries = try DiaryTests.entries(daemon)
                return entries.count == 3 && entries.allSatisfy { $0["time_source"] as? String == "front_matter:date" }
                    ? true : nil
            }
            // The socket: RFC 3339 with each entry's own offset.
            let times = Dictionary(
                uniqueKeysWithValues: try DiaryTests.entries(daemon).map {
                    ($0["path"] as? String ?? "", $0["time"] as? String ?? "")
                })
            #expect(times["cairns.md"] == "2021-03-10T20:25:00+10:00", "\(times)")
            #expect(times["berlin.md"] == "2025-07-01T14:00:00+02:00", "\(times)")
            #expect(times["note.md"] == "2025-07-02T09:00:00+00:00", "\(times)")

            // The command line, read in UTC and in Berlin: the dinner at 8:25 PM, marked +10:00 in both.
            let format = ["entries", "--format", "{path}|{date}"]
            let utc = try await DiaryTests.cli(format, harness, zone: "UTC")
            #expect(utc.status == 0, "\(utc.stderr)")
            let inUTC = Self.lines(utc.stdout)
            #expect(inUTC["cairns.md"] == "Mar 10, 2021, 8:25 PM +10:00", "\(utc.stdout)")
            #expect(inUTC["berlin.md"] == "Jul 1, 2025, 2:00 PM +02:00", "\(utc.stdout)")
            #expect(inUTC["note.md"] == "Jul 2, 2025, 9:00 AM", "the reader's own clock: no mark")
            let berlin = try await DiaryTests.cli(format, harness, zone: "Europe/Berlin")
            let inBerlin = Self.lines(berlin.stdout)
            #expect(inBerlin["cairns.md"] == "Mar 10, 2021, 8:25 PM +10:00", "\(berlin.stdout)")
            #expect(inBerlin["berlin.md"] == "Jul 1, 2025, 2:00 PM", "Berlin's clock then: no mark")
            #expect(inBerlin["note.md"] == "Jul 2, 2025, 9:00 AM UTC", "\(berlin.stdout)")

            #expect(try await daemon.stop() == 0)
        }
    }

    static func lines(_ output: String) -> [String: String] {
        Dictionary(
            output.split(separator: "\n").map { line in
                let parts = line.split(separator: "|", maxSplits: 1).map(String.init)
                return (parts.first ?? "", parts.count > 1 ? parts[1] : "")
            }, uniquingKeysWith: { first, _ in first })
    }
}
