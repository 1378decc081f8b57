import Foundation
import Glibc
import Logging
import Testing
import WeathertagCore
import WeathertagTestSupport

@testable import WeathertagDaemon

/// The `track` provider against real files, a real index (SQLite) and real inotify: what a folder of tracks goes
/// through (a file added, grown, rewritten, removed), globs, and configurations that cannot work.
@Suite("track provider", .serialized)
final class TrackProviderTests {
    let directory: TemporaryDirectory

    init() throws {
        self.directory = try TemporaryDirectory()
    }

    deinit {
        self.directory.remove()
    }

    static func gpx(_ points: [(Double, Double, String)], closed: Bool = true) -> String {
        "<gpx version=\"1.1\"><trk><trkseg>\n"
            + points.map { "<trkpt lat=\"\($0.0)\" lon=\"\($0.1)\"><time>\($0.2)</time></trkpt>\n" }.joined()
            + (closed ? "</trkseg></trk></gpx>\n" : "")
    }

    func provider(_ path: String) throws -> TrackLocationProvider {
        TrackLocationProvider(
            files: try TrackFiles(path), maximumGap: .seconds(600), maximumFixAge: .seconds(300),
            timeout: .seconds(2), stateDirectory: self.directory.file("state"), logger: Logger(label: "test"),
            now: { Date() })
    }

    static func at(_ text: String) -> Date { Date(iso8601WithOffset: text) ?? .distantPast }

    /// Waits, with a deadline, for the provider to see `expected` (nil: no answer) at `time`.
    static func expectPosition(
        _ provider: TrackLocationProvider, at time: String, latitude expected: Double?
    ) async throws {
        try await poll("latitude \(String(describing: expected)) at \(time)") { () -> Bool? in
            let position = try await provider.locate(at: Self.at(time))
            return position?.latitude == expected ? true : nil
        }
    }

    @Test func aFolderIsFollowedAsItsFilesComeGrowChangeAndGo() async throws {
        let tracks = try self.directory.makeDirectory("tracks")
        try self.directory.write(
            "tracks/monday.gpx", Self.gpx([(10, 20, "2026-11-16T10:00:00Z"), (10.2, 20, "2026-11-16T10:05:00Z")]))
        let provider = try self.provider(tracks)
        let running = Task { try await provider.run() }
        defer { running.cancel() }
        try await Self.expectPosition(provider, at: "2026-11-16T10:02:30Z", latitude: 10.1)

        // A new file in a folder made later (a Recorder's rec/USER/DEVICE/), read as it comes.
        let folder = tracks + "/rec/me/phone"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try self.directory.write(
            "tracks/rec/me/phone/2026-11.rec",
            #"2026-11-22T08:00:00Z\#t*\#t{"_type":"location","lat":30,"lon":40,"tst":1795334400,"acc":5}"# + "\n")
        try await Self.expectPosition(provider, at: "2026-11-22T08:00:00Z", latitude: 30)

        // Growing in place, without closing tags yet (gpxlogger): read on from the last complete point.
        let growing = tracks + "/today.gpx"
        try Self.gpx([(50, 60, "2026-11-18T09:00:00Z")], closed: false).write(
            toFile: growing, atomically: false, encoding: .utf8)
        try await Self.expectPosition(provider, at: "2026-11-18T09:00:00Z", latitude: 50)
        let handle = try #require(FileHandle(forWritingAtPath: growing))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"<trkpt lat="51" lon="60"><time>2026-11-18T09:01:00Z</time></trkpt>"#.utf8))
        try handle.close()
        try await Self.expectPosition(provider, at: "2026-11-18T09:00:30Z", latitude: 50.5)

        // Rewritten (a sync replacing it): its old points go with the old version.
        try self.directory.write("tracks/monday.gpx", Self.gpx([(-10, 20, "2026-11-16T12:00:00Z")]))
        try await Self.expectPosition(provider, at: "2026-11-16T10:02:30Z", latitude: nil)
        try await Self.expectPosition(provider, at: "2026-11-16T12:00:00Z", latitude: -10)
        // Removed: its points go.
        unlink(tracks + "/monday.gpx")
        try await Self.expectPosition(provider, at: "2026-11-16T12:00:00Z", latitude: nil)
        #expect(provider.details["track_files"] == "2")

        // The index is only an index: deleted, it is built again from the files.
        running.cancel()
        _ = try? await running.value
        for suffix in ["", "-wal", "-shm"] { unlink(self.directory.file("state/tracks.sqlite" + suffix)) }
        let again = try self.provider(tracks)
        let rerun = Task { try await again.run() }
        defer { rerun.cancel() }
        try await Self.expectPosition(again, at: "2026-11-18T09:00:30Z", latitude: 50.5)
    }

    /// A stop during the first indexing (the daemon stopping or reloading) ends the read at its next chunk with
    /// what was read kept; the next start reads on from there, and every point is in the index once.
    @Test func anIndexingStoppedHalfwayGoesOnFromWhereItStopped() async throws {
        let tracks = try self.directory.makeDirectory("tracks")
        let count = 400_000
        var text = "<gpx version=\"1.1\"><trk><trkseg>\n"
        text.reserveCapacity(count * 90)
        for step in 0..<count {
            let time = Date(timeIntervalSince1970: 1_735_689_600 + Double(step) * 10).iso8601
            text += "<trkpt lat=\"\(Double(step % 1000) / 100)\" lon=\"20\"><time>\(time)</time></trkpt>\n"
        }
        try self.directory.write("tracks/year.gpx", text + "</trkseg></trk></gpx>\n")
        // The indexing thread waits after its first part is written until the stop has reached it: polled from
        // here, a loaded machine read the whole file before the stop came.
        let written = Latch()
        let stopped = DispatchSemaphore(value: 0)
        let provider = TrackLocationProvider(
            files: try TrackFiles(tracks), maximumGap: .seconds(600), maximumFixAge: .seconds(300),
            timeout: .seconds(2), stateDirectory: self.directory.file("state"), logger: Logger(label: "test"),
            now: { Date() },
            afterWrite: {
                written.open()
                stopped.wait()
            })
        let running = Task { try await provider.run() }
        let index = try TrackIndex.open(directory: self.directory.file("state"))
        try await written.wait()
        running.cancel()
        stopped.signal()
        _ = try? await running.value
        let halfway = try #require(try index.files().first)
        #expect(halfway.points < count, "stopped at the next chunk, not at the end of the file")
        #expect(halfway.resume.offset > 0 && halfway.version.size == 0, "kept, marked unfinished")

        let again = try self.provider(tracks)
        let rerun = Task { try await again.run() }
        defer { rerun.cancel() }
        let last = Date(timeIntervalSince1970: 1_735_689_600 + Double(count - 1) * 10).iso8601
        try await Self.expectPosition(again, at: last, latitude: Double((count - 1) % 1000) / 100)
        let done = try #require(try index.files().first)
        #expect(done.points == count)
        #expect(try index.pointCount() == count, "every point once")
    }

    @Test func aGlobPicksTheFilesOfItsFolder() throws {
        let tracks = try self.directory.makeDirectory("gpslogger")
        for name in ["20261116.gpx", "20261117.gpx", "notes.gpx.bak", "other.rec"] {
            try self.directory.write("gpslogger/" + name, "")
        }
        let files = try TrackFiles(tracks + "/2026*.gpx")
        #expect(files.folder == tracks && files.pattern?.description == "2026*.gpx")
        #expect(files.list().map(\.path) == [tracks + "/20261116.gpx", tracks + "/20261117.gpx"])
        #expect(try TrackFiles(tracks).list().count == 3, "a folder: every .gpx and .rec")
    }

    /// The same glob syntax as `inbox.exclude`: `**` for any folders, wildcards in any part, `[!…]` classes.
    @Test func aGlobReachesIntoFoldersAsInboxExcludeDoes() throws {
        let tracks = try self.directory.makeDirectory("phone")
        for name in ["2025/11/a.gpx", "2026/11/b.gpx", "2026/11/c.rec", "2026/d.gpx", "e.gpx", "2026/x/f.gpx"] {
            _ = try self.directory.makeDirectory(
                "phone/" + (name.split(separator: "/").dropLast().joined(separator: "/")))
            try self.directory.write("phone/" + name, "")
        }
        let everyYear = try TrackFiles(tracks + "/**/*.gpx")
        #expect(everyYear.folder == tracks)
        #expect(
            everyYear.list().map(\.path).sorted()
                == ["2025/11/a.gpx", "2026/11/b.gpx", "2026/d.gpx", "2026/x/f.gpx", "e.gpx"].map { tracks + "/" + $0 })
        let months = try TrackFiles(tracks + "/2026/[0-9][0-9]/*")
        #expect(
            months.folder == tracks + "/2026"
                && months.list().map(\.path) == [tracks + "/2026/11/b.gpx", tracks + "/2026/11/c.rec"])
        // A class with `!`: names not starting with 2, in the folder itself (`*` does not cross a `/`).
        #expect(try TrackFiles(tracks + "/[!2]*.gpx").list().map(\.path) == [tracks + "/e.gpx"])
    }

    func decode(_ providers: String, strategy: String? = nil, environment: [String: String] = [:]) -> String {
        let text =
            #"{"openweather": {"api_key": "k"}, "inbox": {"path": "\#(self.directory.path)"}, "#
            + #""location": {"providers": \#(providers)\#(strategy.map { #", "strategy": "\#($0)""# } ?? "")}}"#
        do {
            let json = try JSONParser.parse(Array(text.utf8))
            _ = try Configuration.decode(
                json, environment: environment, plugins: .builtIns, configDirectory: self.directory.path,
                files: LocalConfigurationFiles())
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    @Test func configurationsThatCannotWorkNameTheField() throws {
        #expect(
            self.decode(#"[{"type": "fixed", "latitude": 1, "longitude": 2}]"#, strategy: "best")
                == #"location.strategy: unknown value "best"; expected one of: first, most_accurate"#)
        #expect(
            self.decode(#"[{"type": "track", "path": "/nonexistent/tracks"}]"#)
                == "location.providers[0].path: /nonexistent/tracks is not a folder")
        #expect(
            self.decode(#"[{"type": "homeassistant", "url": "http://ha.lan:8123", "entity": "device_tracker.phone"}]"#)
                .hasPrefix("location.providers[0].token_file: Home Assistant needs a long-lived access token"))
        #expect(
            self.decode(
                #"[{"type": "homeassistant", "url": "http://ha.lan:8123", "entity": "phone", "token_file": "t"}]"#
            )
            .hasPrefix(#"location.providers[0].entity: "phone" is not an entity id"#))
        #expect(
            self.decode(
                #"[{"type": "owntracks", "url": "http://r.lan", "user": "me", "device": "p", "token_file": "missing"}]"#
            )
                == "location.providers[0].token_file: cannot read \(self.directory.path)/missing")
        // The credential, when systemd gives one, and no token file needed.
        let credentials = try self.directory.makeDirectory("credentials")
        try self.directory.write("credentials/homeassistant-token", "secret\n")
        #expect(
            self.decode(
                #"[{"type": "homeassistant", "url": "http://ha.lan:8123", "entity": "device_tracker.phone"}]"#,
                environment: ["CREDENTIALS_DIRECTORY": credentials]) == "no error")
    }
}
