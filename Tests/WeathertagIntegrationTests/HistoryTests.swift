import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// Back-dated entries get the weather of their own time (`history.enabled`), from the stand-in's One Call 3.0
/// timemachine: at their own position or the fixed provider's, cached per place and hour, within the day's calls.
@Suite("The weather of an entry's own time", .serialized)
struct HistoryTests {
    static let fixed = #"[{"type": "fixed", "latitude": 46.2, "longitude": 6.15}]"#

    static func history(_ calls: Int = 900) -> String {
        #", "history": {"enabled": true, "source": "openweather", "max_calls_per_day": \#(calls)}"#
    }

    static func entries(_ daemon: DaemonProcess) throws -> [String: Int] {
        (try daemon.get("/v1/status").json["entries"] as? [String: Any])?.compactMapValues { $0 as? Int } ?? [:]
    }

    /// Noon of a day in the machine's zone, as Unix time (an entry that gives only a day is asked about at noon).
    static func noon(_ day: String) -> Int {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        formatter.timeZone = .current
        return Int(formatter.date(from: day + " 12:00")?.timeIntervalSince1970 ?? 0)
    }

    @Test func backDatedEntriesGetTheWeatherOfTheirTimeAtTheirPlace() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed, extra: Self.history())
            var daemon = try await harness.startDaemon()

            // By its file name, no position of its own: the fixed place, at noon of that day.
            try harness.dropByRename("2019-05-01.md", "A spring day\n")
            let spring = try await harness.waitForStamp("2019-05-01.md")
            #expect(spring["kind"] as? String == "historical")
            #expect(spring["description"] as? String == "light rain" && spring["temperature"] as? Double == 8.5)
            #expect(spring["observed_at"] as? Date == Date(timeIntervalSince1970: Double(Self.noon("2019-05-01"))))
            #expect((spring["location"] as? [String: Any])?["source"] as? String == "fixed")
            var queries = try harness.standIn.timemachineQueries()
            #expect(queries.count == 1 && queries.first?.dt == Self.noon("2019-05-01"))
            #expect(queries.first?.latitude == 46.2 && queries.first?.longitude == 6.15)

            // Its own position (Obsidian Map View's `location: [lat, lon]`) and time.
            try harness.dropByRename(
                "walk.md", "---\ndate: 2019-04-30T08:30:00Z\nlocation: [47.37, 8.54]\n---\nBy the lake\n")
            let walk = try await harness.waitForStamp("walk.md")
            #expect(walk["kind"] as? String == "historical")
            let location = walk["location"] as? [String: Any]
            #expect(location?["latitude"] as? Double == 47.37 && location?["source"] as? String == "front_matter")
            queries = try harness.standIn.timemachineQueries()
            #expect(queries.count == 2 && queries.last?.dt == 1_556_613_000 && queries.last?.latitude == 47.37)

            // The same place and hour again: the kept answer, no call.
            try harness.dropByRename("2019-05-01 1215 lunch.md", "Lunch\n")
            #expect(try await harness.waitForStamp("2019-05-01 1215 lunch.md")["kind"] as? String == "historical")
            #expect(try harness.standIn.calls("timemachine") == 2)

            // An entry of now: current weather, said so.
            try harness.dropByRename("today.md", "Today\n")
            let today = try await harness.waitForStamp("today.md")
            #expect(today["kind"] as? String == "current" && today["description"] as? String == "broken clouds")
            // The back-dated entry's line: logged once it is remembered, which may come after a later stamp's file.
            try await poll("the back-dated stamp logged") {
                daemon.log.contains("stamped with the weather of its time") ? true : nil
            }
            #expect(try await daemon.stop() == 0)

            // The day's calls are counted across restarts: with 2 allowed and 2 made, a new hour waits for tomorrow.
            try harness.patchConfig(Self.history(), Self.history(2))
            daemon = try await harness.startDaemon()
            try harness.dropByRename("2018-01-01.md", "New year\n")
            try await poll("the entry waiting for tomorrow's calls") {
                daemon.log.contains("history.max_calls_per_day") ? true : nil
            }
            #expect(try Self.entries(daemon)["waiting"] == 1)
            #expect(!harness.read("2018-01-01.md").contains("weather:"))
            #expect(try harness.standIn.calls("timemachine") == 2)
            #expect(try await daemon.stop() == 0)
        }
    }

    /// A 401 from the timemachine: said once, in words, and current weather goes on; an entry with no position
    /// for its time is left alone with that reason; without history.enabled, with that one.
    @Test func whenTheWeatherThenCannotBeHadTheEntryIsLeftAloneAndSaysWhy() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: "[\(harness.ipProvider)]", extra: Self.history())
            try harness.standIn.control(#"{"timemachine": {"mode": "401"}}"#)
            let daemon = try await harness.startDaemon()
            // Only IP geolocation, which knows only the present, and no position in the entry.
            try harness.dropByRename("2019-05-01.md", "Somewhere\n")
            // Its own position, but the key has no One Call 3.0 subscription.
            try harness.dropByRename(
                "trip.md", "---\ndate: 2019-05-02\nlatitude: 47.37\nlongitude: 8.54\n---\nZurich\n")
            try harness.dropByRename("today.md", "Today\n")
            #expect(try await harness.waitForStamp("today.md")["kind"] as? String == "current")
            try await poll("both back-dated entries left alone") {
                try Self.entries(daemon)["backdated"] == 2 ? true : nil
            }
            #expect(daemon.log.contains("there is no position for that time"))
            #expect(daemon.log.contains("this key has no One Call 3.0 subscription"))
            #expect(
                !harness.read("2019-05-01.md").contains("weather:") && !harness.read("trip.md").contains("weather:"))
            #expect(try harness.standIn.calls("timemachine") == 1)
            #expect(try await daemon.stop() == 0)
        }
    }

    /// `weathertag stamp --at TIME FILE`: the time given, the same rules.
    @Test func stampAtATimeFollowsTheSameRules() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed, extra: Self.history())
            let config = harness.directory.file("config.json")
            let note = harness.directory.file("note.md")
            try Data("Written down later\n".utf8).write(to: URL(fileURLWithPath: note))
            let stamped = try await ChildProcess.run(
                [DaemonProcess.binary, "stamp", "--config", config, "--at", "2019-06-01", note], in: harness.directory)
            #expect(stamped.status == 0 && stamped.stdout.contains("1 stamped"), "\(stamped.stdout)\(stamped.stderr)")
            let text = try String(contentsOfFile: note, encoding: .utf8)
            #expect(text.contains("  kind: historical\n") && text.contains("light rain"), "\(text)")
            #expect(try harness.standIn.timemachineQueries().last?.dt == Self.noon("2019-06-01"))

            // A time without a zone is the machine's, summer time included: 10:00 in Oslo in June is 08:00 UTC.
            // (The binary links no ICU: the machine's zone is the C library's, from TZ.)
            let summer = harness.directory.file("summer.md")
            try Data("In Oslo\n".utf8).write(to: URL(fileURLWithPath: summer))
            var oslo = ProcessInfo.processInfo.environment
            oslo["TZ"] = "Europe/Oslo"
            let inOslo = try await ChildProcess.run(
                [DaemonProcess.binary, "stamp", "--config", config, "--at", "2019-06-01 10:00", summer],
                environment: oslo, in: harness.directory)
            #expect(inOslo.status == 0, "\(inOslo.stdout)\(inOslo.stderr)")
            #expect(try harness.standIn.timemachineQueries().last?.dt == 1_559_376_000)

            // Without history: left alone, exit 65, the reason named.
            try harness.patchConfig(Self.history(), "")
            let other = harness.directory.file("other.md")
            try Data("Another\n".utf8).write(to: URL(fileURLWithPath: other))
            let refused = try await ChildProcess.run(
                [DaemonProcess.binary, "stamp", "--config", config, "--at", "2019-06-01 10:00", other],
                in: harness.directory)
            #expect(refused.status == 65 && refused.stderr.contains("needs history.enabled"), "\(refused.stderr)")
            #expect(refused.stderr.contains("written 2019-06-01 10:00 (by --at)"), "\(refused.stderr)")

            let bad = try await ChildProcess.run(
                [DaemonProcess.binary, "stamp", "--config", config, "--at", "last tuesday", other],
                in: harness.directory)
            #expect(bad.status == 64)
            #expect(bad.stderr.contains("--at last tuesday is not a date or time such as 2019-05-01"))
        }
    }
}
