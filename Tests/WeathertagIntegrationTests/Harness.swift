import Foundation
import Glibc
import Testing
import WeathertagTestSupport
import Yams

/// One test's world: a temp folder with an inbox, a cache and a socket path, the OpenWeather stand-in, and
/// optionally a real gpsd.
final class Harness: @unchecked Sendable {
    let directory: TemporaryDirectory
    let inbox: String
    let cache: String
    /// The state database's folder.
    let state: String
    let socketPath: String
    let standIn: WeatherStandIn
    var gpsd: GPSDStandIn?
    var daemons: [DaemonProcess] = []

    init() throws {
        self.directory = try TemporaryDirectory()
        self.inbox = try self.directory.makeDirectory("inbox")
        self.cache = self.directory.file("cache")
        self.state = self.directory.file("state")
        self.socketPath = self.directory.file("wt.sock")
        self.standIn = try WeatherStandIn(in: self.directory)
    }

    func startGPSD(latitude: Double, longitude: Double, feed: String = "fix") async throws -> Int {
        let gpsd = try await GPSDStandIn(latitude: latitude, longitude: longitude, feed: feed, in: self.directory)
        self.gpsd = gpsd
        return gpsd.port
    }

    /// Writes `config.json` with the given providers (JSON text) and returns its path.
    @discardableResult
    func writeConfig(providers: String, key: String = WeatherStandIn.apiKey, extra: String = "") throws -> String {
        let config = """
            {
              "openweather": {"api_key": "\(key)", "base_url": "\(self.standIn.baseURL)",
                              "icon_base_url": "\(self.standIn.baseURL)/img/wn", "timeout_seconds": 5},
              "open_meteo": {"base_url": "\(self.standIn.baseURL)", "archive_url": "\(self.standIn.baseURL)",
                             "air_quality_url": "\(self.standIn.baseURL)"},
              "met_norway": {"base_url": "\(self.standIn.baseURL)", "contact": "diarist@example.org"},
              "location": {"providers": \(providers)},
              "cache": {"directory": "\(self.cache)", "ttl_seconds": 600},
              "state": {"directory": "\(self.state)"},
              "inbox": {"path": "\(self.inbox)", "settle_seconds": 0},
              "socket": {"path": "\(self.socketPath)"}\(extra)
            }
            """
        try self.directory.write("config.json", config)
        return self.directory.file("config.json")
    }

    /// Replaces `text` in `config.json` (to add keys next to ones `writeConfig` wrote).
    func patchConfig(_ text: String, _ replacement: String) throws {
        let config = try String(contentsOfFile: self.directory.file("config.json"), encoding: .utf8)
        guard config.contains(text) else { throw TimeoutError(description: "config.json has no \(text)") }
        try self.directory.write("config.json", config.replacingOccurrences(of: text, with: replacement))
    }

    var ipProvider: String {
        #"{"type": "ip", "service": "ip-api", "url": "\#(self.standIn.baseURL)/json/", "timeout_seconds": 3}"#
    }

    func startDaemon(
        environment: [String: String] = [:],
        stderrPath: String? = nil,
        launcher: [String] = []
    ) async throws -> DaemonProcess {
        let daemon = try await DaemonProcess(
            config: self.directory.file("config.json"),
            socketPath: self.socketPath,
            in: self.directory,
            environment: environment,
            stderrPath: stderrPath,
            launcher: launcher
        )
        self.daemons.append(daemon)
        return daemon
    }

    /// A log file to be the daemon's stderr, and the `$JOURNAL_STREAM` value (`device:inode`) that names it, so the
    /// daemon takes its stderr for the journal.
    func journalStream(_ name: String) throws -> (log: String, value: String) {
        let log = self.directory.file(name)
        guard FileManager.default.createFile(atPath: log, contents: nil) else {
            throw TimeoutError(description: "cannot create \(log)")
        }
        var info = stat()
        guard stat(log, &info) == 0 else { throw TimeoutError(description: "cannot stat \(log)") }
        return (log, "\(info.st_dev):\(info.st_ino)")
    }

    func entryPath(_ name: String) -> String { self.inbox + "/" + name }

    func read(_ name: String) -> String {
        (try? String(contentsOfFile: self.entryPath(name), encoding: .utf8)) ?? ""
    }

    /// Drops an entry the way `mv` and atomic-saving editors do: written elsewhere in the folder, renamed in.
    /// `permissions` and `owner` are set before the rename, so the entry never appears with others.
    func dropByRename(
        _ name: String,
        _ text: String,
        permissions: mode_t? = nil,
        owner: (uid: uid_t, gid: gid_t)? = nil
    ) throws {
        // A hidden temp file beside the entry (in its folder, for an entry in a folder).
        let slash = name.lastIndex(of: "/")
        let folder = slash.map { self.inbox + "/" + name[..<$0] } ?? self.inbox
        let temporary = folder + "/." + (slash.map { String(name[name.index(after: $0)...]) } ?? name) + ".part"
        try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
        if let permissions, chmod(temporary, permissions) != 0 {
            throw TimeoutError(description: "cannot chmod \(temporary): errno \(errno)")
        }
        if let owner, chown(temporary, owner.uid, owner.gid) != 0 {
            throw TimeoutError(description: "cannot chown \(temporary): errno \(errno)")
        }
        try FileManager.default.moveItem(atPath: temporary, toPath: self.entryPath(name))
    }

    /// Drops an entry the way `cp` and in-place editors do: created, written, closed.
    func dropInPlace(_ name: String, _ text: String) throws {
        guard FileManager.default.createFile(atPath: self.entryPath(name), contents: nil) else {
            throw TimeoutError(description: "cannot create \(name)")
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: self.entryPath(name)))
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    /// Waits until the entry has a `weather:` block and returns its front matter's `weather` mapping.
    func waitForStamp(_ name: String, timeout: Duration = .seconds(20)) async throws -> [String: Any] {
        try await poll("a stamp in \(name)", timeout: timeout) { () -> [String: Any]? in
            // CRLF entries get a CRLF block: compare with LF line ends.
            let text = self.read(name).replacingOccurrences(of: "\r\n", with: "\n")
            guard text.hasPrefix("---\n"),
                let end = text.range(of: "\n---\n", range: text.index(text.startIndex, offsetBy: 3)..<text.endIndex)
            else { return nil }
            let yaml = String(text[text.index(text.startIndex, offsetBy: 4)..<end.lowerBound])
            return (try? Yams.load(yaml: yaml) as? [String: Any])?["weather"] as? [String: Any]
        }
    }

    func shutdown() async {
        for daemon in self.daemons where daemon.child.isRunning {
            _ = try? await daemon.stop()
        }
        await self.gpsd?.stop()
        await self.standIn.stop()
        self.directory.remove()
    }
}

/// Runs `body` with a fresh harness and always shuts it down (children stopped, folder removed), even on failure.
func withHarness(_ body: (Harness) async throws -> Void) async throws {
    let harness = try Harness()
    do {
        try await body(harness)
    } catch {
        await harness.shutdown()
        throw error
    }
    await harness.shutdown()
}
