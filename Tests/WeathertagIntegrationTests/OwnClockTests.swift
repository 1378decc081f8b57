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
        // 1 April in Cairns, still 31 March in UTC and in Berlin.
        "breakfast.md": "---\ntitle: Breakfast\ndate: 2021-04-01T07:30:00+10:00\n---\nMangoes.\n",
    ]

    @Test func aTripIsListedAsItWasLived() async throws {
        try await withHarness { harness in
            let daemon = try await Self.readTrip(harness)
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

    /// Days are named on each entry's own calendar: the breakfast written on 1 April in Cairns is on 1 April for
    /// `--since`/`--until`, `/v1/entries`, `stats` and the timeline's month headings, read in UTC or in Berlin (where
    /// it was still 31 March).
    @Test func daysAreTheEntriesOwnDays() async throws {
        try await withHarness { harness in
            let daemon = try await Self.readTrip(harness)
            #expect(try DiaryTests.paths(daemon, "since=2021-04-01&until=2021-04-01") == ["breakfast.md"])
            #expect(try DiaryTests.paths(daemon, "since=2021-03-31&until=2021-03-31") == [])
            #expect(try DiaryTests.paths(daemon, "until=2021-03-31") == ["cairns.md"])
            // An instant is an instant: 2021-03-31T23:00Z is after the breakfast (21:30Z).
            #expect(try DiaryTests.paths(daemon, "since=2021-03-31T23:00:00Z&until=2021-04-02") == [])

            for zone in ["UTC", "Europe/Berlin"] {
                let april = try await DiaryTests.cli(
                    ["entries", "--since", "2021-04-01", "--until", "2021-04-01", "--format", "{path}"], harness,
                    zone: zone)
                #expect(april.status == 0, "\(april.stderr)")
                #expect(april.stdout == "breakfast.md\n", "\(zone): \(april.stdout)")
                let march = try await DiaryTests.cli(
                    ["entries", "--since", "2021-03-01", "--until", "2021-03-31", "--format", "{path}"], harness,
                    zone: zone)
                #expect(march.stdout == "cairns.md\n", "\(zone): \(march.stdout)")

                let stats = try await DiaryTests.cli(["stats", "--by", "month", "--json"], harness, zone: zone)
                #expect(stats.status == 0, "\(stats.stderr)")
                #expect(stats.stdout.contains("\"2021-04\""), "\(zone): \(stats.stdout)")
                #expect(stats.stdout.contains("\"2021-03\""), "\(zone): \(stats.stdout)")

                let page = harness.directory.file("timeline-\(zone.replacingOccurrences(of: "/", with: "-")).html")
                let timeline = try await DiaryTests.cli(["timeline", "--output", page], harness, zone: zone)
                #expect(timeline.status == 0, "\(timeline.stderr)")
                let html = try String(contentsOfFile: page, encoding: .utf8)
                let sections = html.components(separatedBy: "<section class=\"month\">").dropFirst()
                let april2021 = sections.first { $0.contains("<h2>April 2021</h2>") } ?? ""
                #expect(april2021.contains("Breakfast"), "\(zone): \(html)")
                #expect(!april2021.contains("Dinners"), "\(zone)")
                let march2021 = sections.first { $0.contains("<h2>March 2021</h2>") } ?? ""
                #expect(march2021.contains("Dinners") && !march2021.contains("Breakfast"), "\(zone)")
                #expect(sections.filter { $0.contains("<h2>March 2021</h2>") }.count == 1, "one section a month")
            }
            #expect(try await daemon.stop() == 0)
        }
    }

    /// The trip in the inbox, read by a daemon in UTC (every entry's time from its front matter, not only seen).
    static func readTrip(_ harness: Harness) async throws -> DaemonProcess {
        try harness.writeConfig(providers: OnThisDayTests.fixed)
        for (name, text) in Self.trip { try harness.directory.write("inbox/" + name, text) }
        let daemon = try await harness.startDaemon(environment: ["TZ": "UTC"])
        try await poll("the diary read") { () -> Bool? in
            let entries = try DiaryTests.entries(daemon)
            let read = entries.allSatisfy { $0["time_source"] as? String == "front_matter:date" }
            return entries.count == Self.trip.count && read ? true : nil
        }
        return daemon
    }

    static func lines(_ output: String) -> [String: String] {
        Dictionary(
            output.split(separator: "\n").map { line in
                let parts = line.split(separator: "|", maxSplits: 1).map(String.init)
                return (parts.first ?? "", parts.count > 1 ? parts[1] : "")
            }, uniquingKeysWith: { first, _ in first })
    }
}
