import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// The system unit's hardening, tried without systemd (PID 1 here is not systemd): `tools/unit-sandbox.py` reads
/// the unit's system-call rules (the `@system-service` allow list minus `@privileged @resources`,
/// `RestrictAddressFamilies=`, `RestrictNamespaces=`, `MemoryDenyWriteExecute=`, `RestrictSUIDSGID=`) and
/// installs them as systemd would, then runs the built daemon as an unprivileged user in the diary's group, as
/// `User=weathertag` and `SupplementaryGroups=diary` do.
@Suite("Under the units' system-call rules", .serialized)
struct SandboxTests {
    /// A system user's uid, its own group, and the diary's group (none needs to exist: ids are what count).
    static let (uid, gid, diary): (uid_t, gid_t, gid_t) = (987, 987, 986)
    static let unit = Fixtures.repositoryRoot + "/systemd/weathertag.service"
    static let userUnit = Fixtures.repositoryRoot + "/systemd/user/weathertag.service"
    static let sandbox = Fixtures.repositoryRoot + "/tools/unit-sandbox.py"

    /// The sandbox under the Debian python, where python3-seccomp installs, as `user` (`UID:GID[:GROUPS]`).
    static func launcher(
        unit: String = Self.unit,
        user: String? = "\(Self.uid):\(Self.gid):\(Self.diary)"
    ) async throws -> [String] {
        let python = "/usr/bin/python3"
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let probe = try await ChildProcess.run([python, "-c", "import seccomp"], in: directory)
        try #require(probe.status == 0, "python3-seccomp is needed: apt-get install python3-seccomp")
        return [python, Self.sandbox] + (user.map { ["--user", $0] } ?? []) + [unit, "--"]
    }

    /// The sandbox is real: what the unit forbids is refused, with systemd's answers.
    @Test(.enabled(if: geteuid() == 0, "switching users takes root"))
    func theSandboxRefusesWhatTheUnitForbids() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("own", "")
        let launcher = try await Self.launcher(user: nil)
        let python = "/usr/bin/python3"
        for (what, command, error) in [
            ("chown, even to oneself (@privileged)", ["chown", "0", directory.file("own")], "Operation not permitted"),
            ("nice (@resources)", [python, "-c", "import os; os.nice(5)"], "Operation not permitted"),
            (
                "a writable executable mapping (MemoryDenyWriteExecute=)",
                [python, "-c", "import mmap; mmap.mmap(-1, 4096, prot=mmap.PROT_WRITE | mmap.PROT_EXEC)"],
                "Operation not permitted"
            ),
            (
                "a netlink socket (RestrictAddressFamilies=)",
                [python, "-c", "import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW)"],
                "Address family not supported"
            ),
            ("a mount namespace (RestrictNamespaces=)", ["unshare", "--mount", "true"], "Operation not permitted"),
            (
                "a set-uid bit (RestrictSUIDSGID=)",
                [python, "-c", "import os; os.chmod('\(directory.file("own"))', 0o4644)"], "Operation not permitted"
            ),
        ] {
            let result = try await ChildProcess.run(launcher + command, in: directory)
            #expect(result.status != 0, "\(what) was allowed")
            #expect(result.stderr.contains(error), "\(what): \(result.stderr)")
        }
        // And what a service needs is not.
        let allowed = try await ChildProcess.run(
            launcher + [python, "-c", "print(open('/etc/hostname').read())"], in: directory)
        #expect(allowed.status == 0, "\(allowed.stderr)")
    }

    /// The daemon's whole round under the unit's rules, as another user: gpsd through libgps, a command provider
    /// that times out and is killed, OpenWeather and the icon through libcurl, inotify, stamping in a setgid
    /// group folder, the socket, a reload and a clean stop. Nothing it does may be refused.
    @Test(.enabled(if: geteuid() == 0, "switching users takes root"))
    func theDaemonRunsUnderTheSystemUnitsRules() async throws {
        let launcher = try await Self.launcher()
        try await withHarness { harness in
            // The service's own folder (its cache, its socket); the inbox belongs to the diary's group, setgid.
            #expect(chown(harness.directory.path, Self.uid, Self.gid) == 0)
            #expect(chmod(harness.directory.path, 0o755) == 0)
            #expect(chown(harness.inbox, 0, Self.diary) == 0)
            #expect(chmod(harness.inbox, 0o2775) == 0)
            let gpsd = try await harness.startGPSD(latitude: 48.8566, longitude: 2.3522)
            try harness.directory.write("too-slow", "#!/bin/sh\nexec sleep 30\n")
            chmod(harness.directory.file("too-slow"), 0o755)
            try harness.writeConfig(
                providers: """
                    [{"type": "command", "argv": ["\(harness.directory.file("too-slow"))"], "timeout_seconds": 0.3},
                     {"type": "gpsd", "host": "127.0.0.1", "port": \(gpsd)}]
                    """
            )
            let daemon = try await harness.startDaemon(launcher: launcher)
            // The daemon itself (the launcher executed it in place) runs filtered, as the diary's user.
            let process = try String(contentsOfFile: "/proc/\(daemon.child.pid)/status", encoding: .utf8)
            #expect(process.contains("NoNewPrivs:\t1") && process.contains("Seccomp:\t2"), "\(process)")
            #expect(process.contains("Seccomp_filters:\t5"), "one filter per rule set, as systemd loads them")
            #expect(process.contains("Uid:\t\(Self.uid)\t") && process.contains("Groups:\t\(Self.diary)"))

            // The author's entries: one the diary's group may write, one only its owner may.
            try harness.dropByRename("shared.md", "Written by the group\n", permissions: 0o664)
            try harness.dropByRename("private.md", "Only mine\n", permissions: 0o644)
            let weather = try await harness.waitForStamp("shared.md")
            #expect(weather["icon"] as? String == "04d")
            let location = try #require(weather["location"] as? [String: Any])
            #expect(location["source"] as? String == "gpsd")
            var shared = stat()
            #expect(stat(harness.entryPath("shared.md"), &shared) == 0)
            #expect(shared.st_uid == Self.uid, "the replacement is the service's")
            #expect(shared.st_gid == Self.diary && shared.st_mode & 0o7777 == 0o664, "the author may still write it")
            #expect(harness.read("shared.md").hasSuffix("---\nWritten by the group\n"))

            // Stamped, the private entry would be the service's and its author could no longer write it.
            try await poll("the private entry left alone") {
                daemon.log.contains("is not group-writable") ? true : nil
            }
            #expect(harness.read("private.md") == "Only mine\n")
            var mine = stat()
            #expect(stat(harness.entryPath("private.md"), &mine) == 0 && mine.st_uid == 0)
            let tempFiles = try FileManager.default.contentsOfDirectory(atPath: harness.inbox)
                .filter { $0.hasSuffix(".weathertag-tmp") }
            #expect(tempFiles.isEmpty)

            #expect(try daemon.get("/v1/tag").status == 200)
            let status = try daemon.get("/v1/status").json
            let providers = try #require(status["providers"] as? [[String: Any]])
            #expect((providers.first?["last_error"] as? String)?.contains("no position within") == true)

            daemon.child.signal(SIGHUP)
            try await poll("the reload") { daemon.log.contains("configuration reloaded") ? true : nil }
            try harness.dropByRename("after-reload.md", "After the reload\n", permissions: 0o664)
            _ = try await harness.waitForStamp("after-reload.md")
            #expect(try await daemon.stop() == 0)
            #expect(!daemon.log.contains("not permitted"), "a call the unit forbids: \(daemon.log)")
            #expect(!daemon.log.contains("Address family not supported"), "\(daemon.log)")
        }
    }

    /// The user unit's rules (seccomp only) as the diary's owner, whose entries stay theirs, mode and all.
    @Test(.enabled(if: geteuid() == 0, "switching users takes root"))
    func theDaemonRunsUnderTheUserUnitsRules() async throws {
        let launcher = try await Self.launcher(unit: Self.userUnit, user: "\(Self.uid):\(Self.gid)")
        try await withHarness { harness in
            #expect(chown(harness.directory.path, Self.uid, Self.gid) == 0)
            #expect(chmod(harness.directory.path, 0o755) == 0)
            #expect(chown(harness.inbox, Self.uid, Self.gid) == 0)
            let gpsd = try await harness.startGPSD(latitude: 48.8566, longitude: 2.3522)
            try harness.writeConfig(providers: #"[{"type": "gpsd", "host": "127.0.0.1", "port": \#(gpsd)}]"#)
            let daemon = try await harness.startDaemon(launcher: launcher)
            let process = try String(contentsOfFile: "/proc/\(daemon.child.pid)/status", encoding: .utf8)
            #expect(process.contains("Seccomp_filters:\t5") && process.contains("Uid:\t\(Self.uid)\t"), "\(process)")

            try harness.dropByRename("mine.md", "My own entry\n", permissions: 0o644, owner: (Self.uid, Self.gid))
            let weather = try await harness.waitForStamp("mine.md")
            #expect((weather["location"] as? [String: Any])?["source"] as? String == "gpsd")
            var mine = stat()
            #expect(stat(harness.entryPath("mine.md"), &mine) == 0)
            #expect(mine.st_uid == Self.uid && mine.st_gid == Self.gid && mine.st_mode & 0o7777 == 0o644)
            #expect(harness.read("mine.md").hasSuffix("---\nMy own entry\n"))
            #expect(try daemon.get("/v1/tag").status == 200)
            #expect(try await daemon.stop() == 0)
            #expect(!daemon.log.contains("not permitted"), "a call the unit forbids: \(daemon.log)")
        }
    }
}
