import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// Stamped once: an entry that comes back without its weather block (an editor's old buffer, rsync, tar, unzip,
/// git) gets the same block back, through restarts, kill -9 and a lost or broken database.
@Suite("Stamped once", .serialized)
struct MemoryTests {
    static let fixed = #"[{"type": "fixed", "latitude": 46.2, "longitude": 6.15}]"#
    static let names = ["editor.md", "2026/11/rsync.md", "2026/11/tar.md", "zip.md", "git.md"]

    static func shell(_ script: String, in harness: Harness) async throws {
        // In the test's folder: `src/` and the archives are there.
        let result = try await ChildProcess.run(
            ["/bin/sh", "-c", "cd '\(harness.directory.path)' && " + script], in: harness.directory)
        guard result.status == 0 else { throw TimeoutError(description: "\(script): \(result.stderr)") }
    }

    static func entries(_ daemon: DaemonProcess) throws -> [String: Int] {
        (try daemon.get("/v1/status").json["entries"] as? [String: Any])?.compactMapValues { $0 as? Int } ?? [:]
    }

    /// Waits until `/v1/status` counts `count` restored entries.
    static func waitForRestored(_ count: Int, _ daemon: DaemonProcess) async throws {
        try await poll("\(count) restored entries", timeout: .seconds(30)) {
            try Self.entries(daemon)["restored"] == count ? true : nil
        }
    }

    /// The unstamped originals in `src/`, the same in git's history of the inbox.
    static func writeOriginals(_ harness: Harness) async throws {
        try FileManager.default.createDirectory(
            atPath: harness.directory.file("src/2026/11"), withIntermediateDirectories: true)
        for name in Self.names {
            try harness.directory.write("src/" + name, "---\ntitle: \(name)\n---\nWhat happened today, in \(name).\n")
        }
        try await Self.shell(
            """
            cp -a src/. '\(harness.inbox)/' && cd '\(harness.inbox)' && git init -q && git add -A \
            && git -c user.name=t -c user.email=t@t commit -qm originals
            """, in: harness)
    }

    @Test func whateverWritesTheUnstampedVersionAgainTheSameBlockComesBack() async throws {
        for tool in ["rsync", "tar", "zip", "unzip", "git"] where which(tool) == nil {
            throw TimeoutError(description: "\(tool) is needed (make setup)")
        }
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            try await Self.writeOriginals(harness)
            let daemon = try await harness.startDaemon()
            var stamped: [String: String] = [:]
            for name in Self.names {
                _ = try await harness.waitForStamp(name)
                stamped[name] = harness.read(name)
            }
            // Weather that any new stamp would carry: never seen below.
            try harness.standIn.control(#"{"weather": {"main": "Snow", "description": "heavy snow", "temp_c": -9}}"#)
            func expectTheSameBlocks(after what: String) {
                for name in Self.names {
                    #expect(harness.read(name) == stamped[name], "\(name) after \(what)")
                }
            }

            // rsync writes a temp file and renames it over each entry.
            try await Self.shell("rsync -a src/ '\(harness.inbox)/'", in: harness)
            try await Self.waitForRestored(5, daemon)
            expectTheSameBlocks(after: "rsync")
            // tar unlinks each file and creates it again.
            try await Self.shell("tar -C src -cf all.tar . && tar -C '\(harness.inbox)' -xf all.tar", in: harness)
            try await Self.waitForRestored(10, daemon)
            expectTheSameBlocks(after: "tar")
            try await Self.shell(
                "cd src && zip -qr ../all.zip . && unzip -qo ../all.zip -d '\(harness.inbox)'", in: harness)
            try await Self.waitForRestored(15, daemon)
            expectTheSameBlocks(after: "unzip")
            // git puts back the committed (unstamped) versions.
            try await Self.shell("cd '\(harness.inbox)' && git checkout -q -- .", in: harness)
            try await Self.waitForRestored(20, daemon)
            expectTheSameBlocks(after: "git checkout")
            // An editor that read the entry before its stamp saves its old buffer in place.
            try harness.dropInPlace(
                "editor.md", try String(contentsOfFile: harness.directory.file("src/editor.md"), encoding: .utf8))
            try await Self.waitForRestored(21, daemon)
            expectTheSameBlocks(after: "an old buffer saved")

            // Renamed within the inbox, the memory follows: the unstamped version written under the new name gets
            // the old name's block.
            try await Self.shell(
                "mv '\(harness.inbox)/zip.md' '\(harness.inbox)/2026/moved.md' && cp src/zip.md '\(harness.inbox)/2026/moved.md'",
                in: harness)
            try await Self.waitForRestored(22, daemon)
            #expect(harness.read("2026/moved.md") == stamped["zip.md"])

            // A new entry meanwhile is stamped (with the cached weather): counted apart from the restores.
            try harness.dropByRename("new.md", "Something new\n")
            _ = try await harness.waitForStamp("new.md")
            // The file lands before its batch is counted (the exchange comes before the batch's report): wait
            // for the count, then look at both.
            let counts = try await poll("the new entry counted") { () -> [String: Int]? in
                let counts = try Self.entries(daemon)
                return counts["waiting"] == 0 ? counts : nil
            }
            #expect(counts["stamped"] == 6 && counts["restored"] == 22, "\(counts)")
            for name in Self.names + ["2026/moved.md"]
            where FileManager.default.fileExists(atPath: harness.entryPath(name)) {
                #expect(!harness.read(name).contains("heavy snow"), "\(name) got new weather")
            }
            #expect(daemon.log.contains("restored its weather block"))
            #expect(try await daemon.stop() == 0)
        }
    }

    /// The memory is SQLite in WAL mode in `state.directory`: it survives a restart and kill -9; an entry that lost
    /// its block while the daemon was down gets it back at start; a deleted database is filled again from the
    /// stamped files; a broken one is moved aside with a warning. Nothing is restored twice, nothing lost.
    @Test func theMemorySurvivesRestartsKillAndALostOrBrokenDatabase() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            let original = "---\ntitle: Kept\n---\nBody\n"
            var daemon = try await harness.startDaemon()
            for name in ["a.md", "b.md", "c.md"] { try harness.dropByRename(name, original) }
            var stamped: [String: String] = [:]
            for name in ["a.md", "b.md", "c.md"] {
                _ = try await harness.waitForStamp(name)
                stamped[name] = harness.read(name)
            }
            try harness.standIn.control(#"{"weather": {"main": "Snow", "description": "heavy snow", "temp_c": -9}}"#)

            // kill -9 right after the stamps: what was committed is there (WAL).
            _ = try await daemon.stop(signal: SIGKILL)
            daemon = try await harness.startDaemon()
            try harness.dropInPlace("a.md", original)
            try await Self.waitForRestored(1, daemon)
            #expect(harness.read("a.md") == stamped["a.md"])

            // Written while no daemon ran: given back at start.
            #expect(try await daemon.stop() == 0)
            try harness.dropInPlace("b.md", original)
            daemon = try await harness.startDaemon()
            try await Self.waitForRestored(1, daemon)
            #expect(harness.read("b.md") == stamped["b.md"])

            // The database deleted: the memory is filled again from the stamped files as the inbox is listed.
            #expect(try await daemon.stop() == 0)
            for suffix in ["", "-wal", "-shm"] { unlink(harness.state + "/state.sqlite" + suffix) }
            daemon = try await harness.startDaemon()
            try await poll("the first listing") { try Self.entries(daemon)["already_stamped"] == 3 ? true : nil }
            try harness.dropInPlace("c.md", original)
            try await Self.waitForRestored(1, daemon)
            #expect(harness.read("c.md") == stamped["c.md"])

            // Broken: moved aside with a warning, a new one made (from the files again), stamping goes on.
            #expect(try await daemon.stop() == 0)
            for suffix in ["-wal", "-shm"] { unlink(harness.state + "/state.sqlite" + suffix) }
            try harness.directory.write("state/state.sqlite", "this is not a database")
            daemon = try await harness.startDaemon()
            try await poll("the first listing") { try Self.entries(daemon)["already_stamped"] == 3 ? true : nil }
            #expect(daemon.log.contains("the state database was unreadable; moved it aside"))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: harness.state).contains {
                    $0.hasPrefix("state.sqlite.corrupt-")
                })
            try harness.dropInPlace("a.md", original)
            try await Self.waitForRestored(1, daemon)
            #expect(harness.read("a.md") == stamped["a.md"])
            // Nothing was stamped anew, and nothing restored twice: a marker entry stamped after shows it.
            try harness.dropByRename("marker.md", "Marker\n")
            _ = try await harness.waitForStamp("marker.md")
            // Counted once its batch reports, a moment after its file lands.
            let counts = try await poll("the marker counted") { () -> [String: Int]? in
                let counts = try Self.entries(daemon)
                return counts["waiting"] == 0 ? counts : nil
            }
            #expect(counts["stamped"] == 1 && counts["restored"] == 1, "\(counts)")
            for name in ["a.md", "b.md", "c.md"] { #expect(harness.read(name) == stamped[name]) }
            #expect(try await daemon.stop() == 0)
        }
    }

    /// `stamp --fresh`: new weather on purpose, over the block there, and remembered from then on.
    @Test func freshAsksForNewWeatherOnPurposeAndTheMemoryFollows() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            let original = "---\ntitle: Again\n---\nBody\n"
            var daemon = try await harness.startDaemon()
            try harness.dropByRename("entry.md", original)
            #expect(try await harness.waitForStamp("entry.md")["description"] as? String == "broken clouds")
            #expect(try await daemon.stop() == 0)

            // No daemon: the command asks OpenWeather itself (its cache emptied, so the weather is new).
            try FileManager.default.removeItem(atPath: harness.cache)
            try harness.standIn.control(#"{"weather": {"main": "Snow", "description": "heavy snow", "temp_c": -9}}"#)
            let config = harness.directory.file("config.json")
            let plain = try await ChildProcess.run(
                [DaemonProcess.binary, "stamp", "--config", config, harness.entryPath("entry.md")],
                in: harness.directory)
            #expect(plain.status == 0 && plain.stdout.contains("1 already stamped"), "\(plain.stdout)\(plain.stderr)")
            let fresh = try await ChildProcess.run(
                [DaemonProcess.binary, "stamp", "--config", config, "--fresh", harness.entryPath("entry.md")],
                in: harness.directory)
            #expect(fresh.status == 0 && fresh.stdout.contains("1 stamped"), "\(fresh.stdout)\(fresh.stderr)")
            let freshText = harness.read("entry.md")
            #expect(freshText.contains("heavy snow") && !freshText.contains("broken clouds"))
            #expect(freshText.hasPrefix("---\ntitle: Again\nweather:\n") && freshText.hasSuffix("---\nBody\n"))

            // The memory holds the fresh block: written without it, the entry gets that one back.
            try harness.standIn.control(#"{"weather": {"main": "Clear", "description": "clear sky", "temp_c": 20}}"#)
            daemon = try await harness.startDaemon()
            try harness.dropInPlace("entry.md", original)
            try await Self.waitForRestored(1, daemon)
            #expect(harness.read("entry.md") == freshText)

            // Without the daemon, `stamp` on a file of the inbox restores as the daemon would.
            #expect(try await daemon.stop() == 0)
            try harness.dropInPlace("entry.md", original)
            let again = try await ChildProcess.run(
                [DaemonProcess.binary, "stamp", "--config", config, harness.entryPath("entry.md")],
                in: harness.directory)
            #expect(again.status == 0 && again.stdout.contains("1 restored"), "\(again.stdout)\(again.stderr)")
            #expect(harness.read("entry.md") == freshText)
        }
    }
}
