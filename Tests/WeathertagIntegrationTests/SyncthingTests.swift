import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// A diary written on a phone and synced with Syncthing, for real: two Syncthing instances from Debian share a folder
/// on loopback (no discovery, no relays, device IDs generated here), one playing the phone, the other keeping the
/// daemon's inbox.
@Suite("Synced diaries: Syncthing", .serialized)
struct SyncthingTests {
    @Test func aPhoneAndTheDaemonShareADiaryThroughSyncthing() async throws {
        let binary = try #require(which("syncthing"), "syncthing is needed (apt-get install syncthing)")
        try await withHarness { harness in
            try harness.writeConfig(providers: SyncedDiaryTests.fixed)
            let phoneFolder = try harness.directory.makeDirectory("phone")
            let pair = try await Syncthing.Pair(
                binary: binary, phone: phoneFolder, daemon: harness.inbox, in: harness.directory)
            do {
                try await Self.roundTrip(harness, pair, phone: phoneFolder)
            } catch {
                await pair.stop()
                throw error
            }
            await pair.stop()
        }
    }

    static func roundTrip(_ harness: Harness, _ pair: Syncthing.Pair, phone: String) async throws {
        func onPhone(_ name: String) -> String {
            (try? String(contentsOfFile: phone + "/" + name, encoding: .utf8)) ?? ""
        }
        let minute = Duration.seconds(90)

        // Written on the phone, it comes back stamped.
        var daemon = try await harness.startDaemon()
        try "Morning on the train\n".write(toFile: phone + "/train.md", atomically: true, encoding: .utf8)
        _ = try await harness.waitForStamp("train.md", timeout: minute)
        try await poll("the stamped entry back on the phone", timeout: minute) {
            onPhone("train.md") == harness.read("train.md") ? true : nil
        }

        // The phone edits an entry while the daemon stamps it: both changed it since they last met.
        #expect(try await daemon.stop() == 0)
        try "Rain all day\n".write(toFile: phone + "/rain.md", atomically: true, encoding: .utf8)
        try await poll("the new entry in the inbox", timeout: minute) {
            harness.read("rain.md") == "Rain all day\n" ? true : nil
        }
        await pair.phone.stop()
        try "Rain all day\nAnd then the sun.\n".write(
            toFile: phone + "/rain.md", atomically: true, encoding: .utf8)
        daemon = try await harness.startDaemon()
        _ = try await harness.waitForStamp("rain.md", timeout: minute)
        let stamped = harness.read("rain.md")
        try await poll("the daemon's Syncthing has the stamp", timeout: minute) {
            try pair.inbox.localSize("rain.md") == stamped.utf8.count ? true : nil
        }
        try pair.phone.start()

        // Syncthing keeps the daemon's version (the older modification time: stamp.keep_mtime) as a conflict copy,
        // which is shown in its lane, not stamped and not listed; the phone's version is the entry, and gets a block.
        let copy = try await poll("a conflict copy in the inbox", timeout: minute) {
            try FileManager.default.contentsOfDirectory(atPath: harness.inbox).first {
                $0.hasPrefix("rain.sync-conflict-")
            }
        }
        let copyText = harness.read(copy)
        let lane = try await poll("the copy in the conflict lane", timeout: minute) {
            try SyncedDiaryTests.conflicts(daemon).first { $0["path"] as? String == copy }
        }
        #expect(lane["entry"] as? String == "rain.md")
        #expect(lane["remedy"] as? String == "merge it into rain.md and delete it")
        let entry = try await poll("the phone's version stamped", timeout: minute) { () -> String? in
            let text = harness.read("rain.md")
            return text.contains("And then the sun.") && text.contains("weather:") ? text : nil
        }
        #expect(entry.hasSuffix("Rain all day\nAnd then the sun.\n"))
        let listed = try await poll("the index holds both days, once each", timeout: minute) { () -> [String]? in
            let paths = try DiaryTests.paths(daemon)
            return paths.count == 2 ? paths : nil
        }
        #expect(Set(listed) == ["train.md", "rain.md"])
        #expect(harness.read(copy) == copyText)

        // The author deletes the copy on the phone: it leaves the lane, and both sides agree.
        try await poll("the copy on the phone", timeout: minute) { onPhone(copy).isEmpty ? nil : true }
        #expect(unlink(phone + "/" + copy) == 0)
        try await poll("the copy gone from the inbox and the lane", timeout: minute) {
            try SyncedDiaryTests.conflicts(daemon).isEmpty && harness.read(copy).isEmpty ? true : nil
        }
        try await poll("both sides agree", timeout: minute) {
            onPhone("rain.md") == harness.read("rain.md") ? true : nil
        }
        for folder in [phone, harness.inbox] {
            let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            #expect(names == [".stfolder", "rain.md", "train.md"], "\(folder): \(names)")
        }
        #expect(try await daemon.stop() == 0)
    }
}

/// Syncthing from Debian, configured for loopback alone.
enum Syncthing {
    /// One instance: its home (key, certificate, config, database) and its folder.
    final class Instance: @unchecked Sendable {
        let binary: String
        let home: String
        /// Ports found free when asked; another process may take one before Syncthing binds it (`Pair` then starts
        /// both again on new ones).
        private(set) var guiPort = RawHTTP.freePort()
        private(set) var listenPort = RawHTTP.freePort()
        let apiKey = "weathertag-test-\(UInt32.random(in: 0...UInt32.max))"
        let deviceID: String
        private var child: ChildProcess?

        init(binary: String, home: String, in directory: TemporaryDirectory) async throws {
            self.binary = binary
            self.home = home
            let result = try await ChildProcess.run(
                [binary, "generate", "--home=\(home)", "--no-default-folder"], in: directory)
            let generated = result.stdout + result.stderr
            guard let line = generated.split(separator: "\n").first(where: { $0.contains("Device ID:") }),
                let id = line.split(separator: " ").last
            else { throw TimeoutError(description: "syncthing generate printed no device ID: \(generated)") }
            self.deviceID = String(id)
        }

        /// Writes config.xml: one folder shared with `peer`, whom this instance dials (`dials`) or waits for. What it
        /// leaves out takes its zero value, not Syncthing's default: `maxConflicts` 0 would delete conflict copies.
        func configure(folder: String, peer: Instance, dials: Bool) throws {
            let peerAddress = dials ? "tcp://127.0.0.1:\(peer.listenPort)" : "dynamic"
            let config = """
                <configuration version="36">
                    <folder id="diary" label="diary" path="\(folder)" type="sendreceive" rescanIntervalS="10" fsWatcherEnabled="true" fsWatcherDelayS="1">
                        <device id="\(self.deviceID)"></device>
                        <device id="\(peer.deviceID)"></device>
                        <minDiskFree unit="%">0</minDiskFree>
                        <maxConflicts>10</maxConflicts>
                    </folder>
                    <device id="\(self.deviceID)" name="self" compression="metadata"><address>dynamic</address></device>
                    <device id="\(peer.deviceID)" name="peer" compression="metadata"><address>\(peerAddress)</address></device>
                    <gui enabled="true" tls="false"><address>127.0.0.1:\(self.guiPort)</address><apikey>\(self.apiKey)</apikey></gui>
                    <options>
                        <listenAddress>tcp://127.0.0.1:\(self.listenPort)</listenAddress>
                        <globalAnnounceEnabled>false</globalAnnounceEnabled>
                        <localAnnounceEnabled>false</localAnnounceEnabled>
                        <relaysEnabled>false</relaysEnabled>
                        <natEnabled>false</natEnabled>
                        <startBrowser>false</startBrowser>
                        <urAccepted>-1</urAccepted>
                        <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
                        <crashReportingEnabled>false</crashReportingEnabled>
                        <reconnectionIntervalS>1</reconnectionIntervalS>
                        <minHomeDiskFree unit="%">0</minHomeDiskFree>
                    </options>
                </configuration>
                """
            try config.write(toFile: self.home + "/config.xml", atomically: true, encoding: .utf8)
        }

        func start() throws {
            var environment = ProcessInfo.processInfo.environment
            environment["STNODEFAULTFOLDER"] = "1"
            environment["STNOUPGRADE"] = "1"
            self.child = try ChildProcess(
                [
                    self.binary, "serve", "--no-browser", "--no-restart", "--home=\(self.home)",
                    "--logfile=\(self.home)/syncthing.log", "--logflags=3",
                ],
                environment: environment, stderrPath: self.home + "/syncthing.stderr")
        }

        func stop() async {
            await self.child?.stop()
            self.child = nil
        }

        /// New ports, for a start again after one was taken.
        func reassignPorts() {
            self.guiPort = RawHTTP.freePort()
            self.listenPort = RawHTTP.freePort()
        }

        /// Whether this instance's REST API answers and it is connected to `peer`.
        func isConnected(to peer: Instance) -> Bool {
            guard
                let response = try? RawHTTP.request(
                    .tcp(port: self.guiPort), "GET", "/rest/system/connections", headers: ["X-API-Key": self.apiKey]),
                let connections = response.json["connections"] as? [String: Any],
                let link = connections[peer.deviceID] as? [String: Any]
            else { return false }
            return link["connected"] as? Bool == true
        }

        /// The size of `name` as this instance's database has it from its own folder (after its scan).
        func localSize(_ name: String) throws -> Int? {
            let response = try RawHTTP.request(
                .tcp(port: self.guiPort), "GET", "/rest/db/file?folder=diary&file=\(name)",
                headers: ["X-API-Key": self.apiKey])
            return (response.json["local"] as? [String: Any])?["size"] as? Int
        }
    }

    /// The phone and the machine that runs the daemon; the inbox's instance dials the phone's.
    struct Pair {
        let phone: Instance
        let inbox: Instance

        init(
            binary: String, phone folder: String, daemon inbox: String, in directory: TemporaryDirectory
        ) async throws {
            self.phone = try await Instance(
                binary: binary, home: try directory.makeDirectory("syncthing-phone"), in: directory)
            self.inbox = try await Instance(
                binary: binary, home: try directory.makeDirectory("syncthing-inbox"), in: directory)
            // Started until the two are connected: a port found free may be taken by the time Syncthing binds it (a
            // full parallel run opens many connections), which once left the pair apart for the whole test.
            for attempt in 1...3 {
                try self.phone.configure(folder: folder, peer: self.inbox, dials: false)
                try self.inbox.configure(folder: inbox, peer: self.phone, dials: true)
                try self.phone.start()
                try self.inbox.start()
                let (phone, machine) = (self.phone, self.inbox)
                if (try? await poll("the two Syncthing instances connected", timeout: .seconds(45)) {
                    machine.isConnected(to: phone) ? true : nil
                }) != nil {
                    return
                }
                await self.phone.stop()
                await self.inbox.stop()
                guard attempt < 3 else {
                    throw TimeoutError(description: "the two Syncthing instances never connected (3 starts)")
                }
                self.phone.reassignPorts()
                self.inbox.reassignPorts()
            }
        }

        func stop() async {
            await self.phone.stop()
            await self.inbox.stop()
        }
    }
}
