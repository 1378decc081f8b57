import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// Where the author was, from what they already record: a track written by gpsd's own `gpxlogger`, an OwnTracks
/// Recorder and Home Assistant (loopback stand-ins of their APIs), a `command` asked about a time; and the most
/// accurate of several answers.
@Suite("Location plugins", .serialized)
struct LocationPluginTests {
    static let history =
        #", "history": {"enabled": true, "source": "openweather"}, "stamp": {"backdated_after_seconds": 1}"#

    static func providers(_ daemon: DaemonProcess) throws -> [[String: Any]] {
        try daemon.get("/v1/status").json["providers"] as? [[String: Any]] ?? []
    }

    /// The `<time>` of each `<trkpt>` in a GPX file, as written.
    static func pointTimes(_ path: String) -> [String] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.components(separatedBy: "<trkpt").dropFirst().compactMap { point in
            guard let start = point.range(of: "<time>"), let end = point.range(of: "</time>") else { return nil }
            return String(point[start.upperBound..<end.lowerBound])
        }
    }

    /// gpsd's `gpxlogger` records a track from the real gpsd (fed by the NMEA replay) into a folder the `track`
    /// provider follows; an entry written at one of its moments is stamped with the weather of that moment at the
    /// track's place, not the fixed provider's. A malformed file beside it is reported by line, and its good
    /// points still count.
    @Test func aTrackRecordedByGpxloggerPlacesABackDatedEntry() async throws {
        guard let gpxlogger = which("gpxlogger") else {
            throw TimeoutError(description: "gpxlogger is needed (make setup: gpsd-clients)")
        }
        try await withHarness { harness in
            let port = try await harness.startGPSD(latitude: 59.91, longitude: 10.75)
            let tracks = try harness.directory.makeDirectory("tracks")
            try harness.directory.write(
                "tracks/old.gpx",
                """
                <gpx version="1.1"><trk><trkseg>
                <trkpt lat="48.8566" lon="2.3522"><time>2019-05-01T10:00:00Z</time></trkpt>
                <trkpt lat="48.86" lon="oops"><time>2019-05-01T10:05:00Z</time></trkpt>
                <trkpt lat="48.8606" lon="2.3376"><time>2019-05-01T10:10:00Z</time></trkpt>
                </trkseg></trk></gpx>
                """)
            try harness.writeConfig(
                providers: #"""
                    [{"type": "track", "path": "\#(tracks)"},
                     {"type": "fixed", "latitude": 46.2, "longitude": 6.15}]
                    """#,
                extra: Self.history)
            let daemon = try await harness.startDaemon()
            try await poll("the malformed line reported") {
                daemon.log.contains("old.gpx") && daemon.log.contains("line 3: a <trkpt> without numeric lat")
                    ? true : nil
            }

            // The recorder starts after the daemon: the file is new, then grows a point a second.
            let recorder = try ChildProcess(
                [gpxlogger, "-e", "sockets", "-f", tracks + "/today.gpx", "127.0.0.1:\(port)"],
                stderrPath: harness.directory.file("gpxlogger.log"))
            defer { Task { await recorder.stop() } }
            let times = try await poll("three points recorded", timeout: .seconds(30)) { () -> [String]? in
                let times = Self.pointTimes(tracks + "/today.gpx")
                return times.count >= 3 ? times : nil
            }
            try await poll("the growing file followed") { () -> Bool? in
                let track = try Self.providers(daemon).first
                return Int(track?["track_points"] as? String ?? "") ?? 0 >= 2 + 3 ? true : nil
            }

            // Written at the second point's moment: back-dated (older than a second by now).
            let moment = String(times[1].prefix(19)) + "Z"
            try harness.dropByRename("walk.md", "---\ndate: \(moment)\n---\nAlong the fjord\n")
            let walk = try await harness.waitForStamp("walk.md")
            #expect(walk["kind"] as? String == "historical")
            let location = walk["location"] as? [String: Any]
            #expect(location?["source"] as? String == "track")
            let asked = try #require(try harness.standIn.timemachineQueries().last)
            #expect(asked.latitude == 59.91 && asked.longitude == 10.75, "the track's place, not the fixed one")

            // Between two points of the malformed file (the broken one between them skipped): interpolated.
            try harness.dropByRename("paris.md", "---\ndate: 2019-05-01T10:05:00Z\n---\nA walk in Paris\n")
            let paris = try await harness.waitForStamp("paris.md")
            #expect((paris["location"] as? [String: Any])?["source"] as? String == "track")
            let then = try #require(try harness.standIn.timemachineQueries().last)
            #expect(then.latitude == 48.86 && then.longitude == 2.34, "midway, to the 2 decimals requests carry")

            // `weathertag where TIME` asks the same question: between the points, interpolated; outside any
            // track, the fixed place (which always was where it is); not a time, a usage error.
            let between = try await DiaryTests.cli(["where", "2019-05-01T10:05:00Z"], harness)
            #expect(
                between.status == 0 && between.stdout.hasPrefix("48.859, 2.345 (track, 2019-05-01T10:05:00Z)"),
                "\(between)")
            let outside = try await DiaryTests.cli(["where", "2019-05-01T11:00:00Z", "--json"], harness)
            #expect(outside.stdout.contains(#""source":"fixed""#), "\(outside.stdout)")
            // The one time grammar: a YAML timestamp, as `stamp --at` and front matter take it.
            let spaced = try await DiaryTests.cli(["where", "2019-05-01 10:05:00+00:00"], harness)
            #expect(spaced.status == 0 && spaced.stdout == between.stdout, "\(spaced)")
            #expect(try await DiaryTests.cli(["where", "yesterday"], harness).status == 64)
            let badTime = try daemon.get("/v1/location?at=yesterday")
            #expect(
                badTime.status == 400 && badTime.body.contains("at: is not a date or time such as 2019-05-01"),
                "\(badTime.body)")

            let track = try #require(try Self.providers(daemon).first)
            #expect(track["type"] as? String == "track" && track["track_files"] as? String == "2")
            #expect(track["track_problems"] as? String == "1")
            #expect(try await daemon.stop() == 0)
            await recorder.stop()

            // `weathertag stamp --at` places a file outside the inbox the same way, with the daemon stopped: the
            // track is indexed for it (the index kept in the state directory is read on from where it was).
            try harness.directory.write("letter.md", "Dear diary,\n")
            let stamp = try await DiaryTests.cli(
                ["stamp", "--at", "2019-05-01T10:05:00Z", harness.directory.file("letter.md")], harness)
            #expect(stamp.status == 0, "\(stamp)")
            let letter = try String(contentsOfFile: harness.directory.file("letter.md"), encoding: .utf8)
            #expect(letter.contains("kind: historical") && letter.contains("source: track"), "\(letter)")
        }
    }
}

extension LocationPluginTests {
    /// 2019-05-01T10:00:00Z and ten minutes later: a walk the services remember.
    static let walk: [(Double, Double, Int, Double?)] = [
        (47.0, 8.0, 1_556_704_800, 20), (47.2, 8.2, 1_556_705_400, 20),
    ]

    static func now() -> Int { Int(Date().timeIntervalSince1970) }

    /// The secrets never show: not in the log, not in `/v1/status`, not in a command's environment.
    static func expectNoSecret(_ secrets: [String], in texts: [String: String]) {
        for secret in secrets {
            for (place, text) in texts {
                #expect(!text.contains(secret), "a secret in \(place)")
            }
        }
    }

    /// The Recorder answers now and then with HTTP basic auth from `token_file`; its failures (500, garbage, 401,
    /// nothing recorded) are said in `/v1/status` and the fixed place takes over.
    @Test func anOwnTracksRecorderSaysWhereThePhoneIsAndWas() async throws {
        try await withHarness { harness in
            let services = try LocationStandIn(in: harness.directory)
            defer { Task { await services.stop() } }
            try services.setPoints(Self.walk + [(48.85, 2.35, Self.now() - 60, 15)])
            try harness.directory.write("owntracks-token", LocationStandIn.ownTracksAuth + "\n")
            chmod(harness.directory.file("owntracks-token"), 0o600)
            try harness.writeConfig(
                providers: #"""
                    [{"type": "owntracks", "url": "\#(services.baseURL)", "user": "diarist", "device": "phone",
                      "token_file": "owntracks-token"},
                     {"type": "fixed", "latitude": 46.2, "longitude": 6.15}]
                    """#,
                extra: Self.history)
            let daemon = try await harness.startDaemon()
            let now = try daemon.get("/v1/location").json
            #expect(now["source"] as? String == "owntracks" && now["latitude"] as? Double == 48.85)

            try harness.dropByRename("walk.md", "---\ndate: 2019-05-01T10:05:00Z\n---\nUp the hill\n")
            let walk = try await harness.waitForStamp("walk.md")
            #expect((walk["location"] as? [String: Any])?["source"] as? String == "owntracks")
            let asked = try #require(try harness.standIn.timemachineQueries().last)
            #expect(asked.latitude == 47.1 && asked.longitude == 8.1, "midway between the Recorder's two points")
            let requests = try services.requests()
            #expect(!requests.isEmpty && requests.allSatisfy { $0["authorized"] as? Bool == true })
            let window = try #require(requests.first { $0["path"] as? String == "/api/0/locations" })
            #expect((window["query"] as? [String: String])?["from"] == "2019-05-01T09:55:00Z")
            #expect((window["query"] as? [String: String])?["to"] == "2019-05-01T10:15:00Z")

            for (mode, said) in [
                ("500", "HTTP 500"), ("garbage", "something other than"), ("401", "refused"),
                ("empty", "has no location"),
            ] {
                try services.setMode("owntracks", mode)
                // Answers are kept a moment for status bars: asked until the fixed place takes over and the
                // status says why.
                try await poll("the fixed place, and why, while the Recorder answers \(mode)") { () -> Bool? in
                    let source = try daemon.get("/v1/location").json["source"] as? String
                    let error = try Self.providers(daemon).first?["last_error"] as? String
                    return source == "fixed" && error?.contains(said) == true ? true : nil
                }
            }
            let status = try daemon.get("/v1/status").body
            #expect(try await daemon.stop() == 0)
            let basic = Data(LocationStandIn.ownTracksAuth.utf8).base64EncodedString()
            Self.expectNoSecret(
                ["recorder-secret-81", basic], in: ["the log": daemon.log, "/v1/status": status])
        }
    }

    /// Home Assistant's token from systemd's credential; `most_accurate` asks everyone and takes the smallest
    /// accuracy, now and for a back-dated entry; a `command` with `{time}` is asked about the past; Home
    /// Assistant's failures hand over to the next best.
    @Test func homeAssistantACommandOfThePastAndTheMostAccurateAnswer() async throws {
        try await withHarness { harness in
            let services = try LocationStandIn(in: harness.directory)
            defer { Task { await services.stop() } }
            try services.setPoints(Self.walk + [(48.85, 2.35, Self.now() - 60, 15)])
            let credentials = try harness.directory.makeDirectory("credentials")
            try harness.directory.write("credentials/homeassistant-token", LocationStandIn.homeAssistantToken)
            let calls = harness.directory.file("where-was-i.calls")
            try harness.directory.write(
                "where-was-i",
                """
                #!/bin/sh
                echo "$@" >> \(calls)
                env >> \(calls).env
                echo '{"latitude": 40.4168, "longitude": -3.7038, "accuracy_m": 30}'

                """)
            chmod(harness.directory.file("where-was-i"), 0o755)
            try harness.writeConfig(
                providers: #"""
                    [\#(harness.ipProvider),
                     {"type": "homeassistant", "url": "\#(services.baseURL)", "entity": "device_tracker.phone"},
                     {"type": "command", "argv": ["./where-was-i", "--at", "{time}"]},
                     {"type": "fixed", "latitude": 46.2, "longitude": 6.15, "accuracy_m": 100}],
                    "strategy": "most_accurate"
                    """#,
                extra: Self.history)
            let daemon = try await harness.startDaemon(environment: ["CREDENTIALS_DIRECTORY": credentials])
            #expect(try daemon.get("/v1/location").json["source"] as? String == "homeassistant")
            let providers = try Self.providers(daemon)
            #expect(providers.map { $0["won"] as? Bool } == [false, true, false, false])
            #expect(providers.map { $0["accuracy_m"] as? Double } == [5000, 15, 30, 100])
            #expect((providers[1]["age_seconds"] as? Double).map { (55...120).contains($0) } == true)

            // The past: Home Assistant's history (20 m) beats the command's answer (30 m), which was asked too.
            try harness.dropByRename("walk.md", "---\ndate: 2019-05-01T10:05:00Z\n---\nUp the hill\n")
            let walk = try await harness.waitForStamp("walk.md")
            #expect((walk["location"] as? [String: Any])?["source"] as? String == "homeassistant")
            let asked = try #require(try harness.standIn.timemachineQueries().last)
            #expect(asked.latitude == 47.1 && asked.longitude == 8.1)
            let argv = try String(contentsOfFile: calls, encoding: .utf8)
            #expect(argv.contains("--at 2019-05-01T10:05:00Z"), "the command asked about the entry's time: \(argv)")
            // Nothing in Home Assistant's history then: the command's answer.
            try harness.dropByRename("new-year.md", "---\ndate: 2018-01-01T12:00:00Z\n---\nFireworks\n")
            let newYear = try await harness.waitForStamp("new-year.md")
            #expect((newYear["location"] as? [String: Any])?["source"] as? String == "command")

            for (mode, said) in [("401", "refused the token"), ("500", "HTTP 500"), ("garbage", "something other")] {
                try services.setMode("homeassistant", mode)
                try await poll("the command's answer, and why, while Home Assistant answers \(mode)") { () -> Bool? in
                    let source = try daemon.get("/v1/location").json["source"] as? String
                    let error = try Self.providers(daemon)[1]["last_error"] as? String
                    return source == "command" && error?.contains(said) == true ? true : nil
                }
            }
            #expect(try services.requests().allSatisfy { $0["authorized"] as? Bool == true })
            let status = try daemon.get("/v1/status").body
            #expect(try await daemon.stop() == 0)
            let environment = try String(contentsOfFile: calls + ".env", encoding: .utf8)
            #expect(!environment.contains("CREDENTIALS_DIRECTORY"))
            Self.expectNoSecret(
                [LocationStandIn.homeAssistantToken],
                in: ["the log": daemon.log, "/v1/status": status, "the command's environment": environment])
        }
    }
}
