import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// Where the author was, from what they already record: a track written by gpsd's own `gpxlogger`, an OwnTracks
/// Recorder and Home Assistant (loopback stand-ins of their APIs), a `command` asked about a time; and the most
/// accurate of several answers.
@Suite("Location plugins", .serialized)
struct LocationPluginTests {
    static let history = #", "history": {"enabled": true}, "stamp": {"backdated_after_seconds": 1}"#

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

            let track = try #require(try Self.providers(daemon).first)
            #expect(track["type"] as? String == "track" && track["track_files"] as? String == "2")
            #expect(track["track_problems"] as? String == "1")
            #expect(try await daemon.stop() == 0)
            await recorder.stop()
        }
    }
}
