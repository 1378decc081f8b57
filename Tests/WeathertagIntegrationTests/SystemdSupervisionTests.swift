import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// `WATCHDOG=1` and `STATUS=` through a datagram socket standing in for `$NOTIFY_SOCKET`, against a stamping loop
/// wedged for real: the inbox is an ext4 filesystem frozen with `fsfreeze`, so creating the temp file blocks in
/// the kernel until it is thawed.
@Suite("systemd watchdog and status", .serialized)
struct SystemdSupervisionTests {
    @Test(.enabled(if: geteuid() == 0, "mounting and freezing a filesystem needs root"))
    func watchdogPingsOnlyWhileStampingMakesProgress() async throws {
        try await withHarness { harness in
            let image = harness.directory.file("inbox.img")
            try await Self.run(["truncate", "-s", "32M", image], in: harness)
            try await Self.run(["mkfs.ext4", "-q", "-F", image], in: harness)
            try await Self.run(["mount", "-o", "loop", image, harness.inbox], in: harness)
            defer {
                _ = Glibc.system("fsfreeze -u '\(harness.inbox)' 2>/dev/null")
                umount2(harness.inbox, Int32(MNT_DETACH))
            }

            try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 1, "longitude": 2}]"#)
            // No weather at first: the entry waits in the queue.
            try harness.standIn.control(#"{"weather": {"mode": "503"}}"#)
            // One second: pings every half second; stamping that finishes nothing for a second is stuck.
            let daemon = try await harness.startDaemon(environment: ["WATCHDOG_USEC": "1000000"])
            func pings() -> Int { daemon.notifications.filter { $0.contains("WATCHDOG=1") }.count }
            try await poll("two watchdog pings") { pings() >= 2 ? true : nil }

            try harness.dropByRename("frozen.md", "Written before the freeze.\n")
            try await daemon.waitForNotification("1 waiting, 0 stamped")
            try await Self.run(["fsfreeze", "-f", harness.inbox], in: harness)
            try harness.standIn.control(#"{"weather": {"mode": "ok"}}"#)

            // Weather comes, the stamp blocks on the frozen folder, and the pings stop.
            try await poll("the ping withheld", timeout: .seconds(30)) {
                daemon.log.contains("withholding the watchdog ping") ? true : nil
            }
            let pingsWhenWithheld = pings()
            // The status line counts the seconds; three more of them, and not one ping.
            try await daemon.waitForNotification("STATUS=stamping stuck for 3 s")
            #expect(pings() == pingsWhenWithheld, "pings went on while stamping was stuck")
            #expect(harness.read("frozen.md") == "Written before the freeze.\n")

            try await Self.run(["fsfreeze", "-u", harness.inbox], in: harness)
            let weather = try await harness.waitForStamp("frozen.md")
            #expect(weather["description"] as? String == "broken clouds")
            try await poll("pings again") { pings() > pingsWhenWithheld ? true : nil }
            #expect(daemon.log.contains("watchdog pings resume"))
            try await daemon.waitForNotification("fixed · 12.3°C broken clouds")
            try await daemon.waitForNotification("0 waiting, 1 stamped")
            #expect(try await daemon.stop() == 0)
            #expect(daemon.notifications.contains { $0.contains("STOPPING=1") })
        }
    }

    /// A watchdog meant for another process (`WATCHDOG_PID`) is not ours to feed.
    @Test func watchdogForAnotherProcessIsIgnored() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 1, "longitude": 2}]"#)
            let daemon = try await harness.startDaemon(environment: ["WATCHDOG_USEC": "200000", "WATCHDOG_PID": "1"])
            // STATUS goes out all the same; an entry stamped proves the loops ran for a while.
            try harness.dropByRename("entry.md", "Text\n")
            _ = try await harness.waitForStamp("entry.md")
            try await daemon.waitForNotification("0 waiting, 1 stamped")
            #expect(!daemon.notifications.contains { $0.contains("WATCHDOG=1") })
            #expect(try await daemon.stop() == 0)
        }
    }

    /// A `$NOTIFY_SOCKET` nobody reads fills after a few datagrams; the daemon must neither stall nor hang at stop.
    @Test func aNotifySocketNobodyReadsStallsNothing() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 1, "longitude": 2}]"#)
            let unread = try DatagramSocket(path: harness.directory.file("unread.sock"), reading: false)
            let child = try ChildProcess(
                [DaemonProcess.binary, "serve", "--config", harness.directory.file("config.json")],
                // A 100 ms watchdog: a ping every 50 ms, so the socket's queue is full within a second.
                environment: [
                    "PATH": "/usr/bin:/bin", "HOME": harness.directory.path, "NOTIFY_SOCKET": unread.path,
                    "WATCHDOG_USEC": "100000",
                ],
                stderrPath: harness.directory.file("daemon.log")
            )
            // A daemon that hangs (the failure this test is for) must not outlive it.
            defer { if child.isRunning { child.signal(SIGKILL) } }
            // Entries keep being stamped while the queue is full.
            try await poll("the socket") { FileManager.default.fileExists(atPath: harness.socketPath) ? true : nil }
            for index in 0..<15 {
                try harness.dropByRename("entry-\(index).md", "Entry \(index)\n")
                _ = try await harness.waitForStamp("entry-\(index).md")
            }
            try await poll("two seconds of pings") { () -> Bool? in
                let status = try RawHTTP.request(.unix(path: harness.socketPath), "GET", "/v1/status").json
                return (status["uptime_seconds"] as? Int ?? 0) >= 2 ? true : nil
            }
            child.signal(SIGTERM)
            #expect(try await child.waitForExit(timeout: .seconds(10)) == 0, "\(child.stderr)")
        }
    }

    private static func run(_ arguments: [String], in harness: Harness) async throws {
        let path = ["/usr/sbin/", "/sbin/", "/usr/bin/", "/bin/"].map { $0 + arguments[0] }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        let executable = try #require(path, "\(arguments[0]) is needed")
        let result = try await ChildProcess.run([executable] + arguments.dropFirst(), in: harness.directory)
        try #require(result.status == 0, "\(arguments.joined(separator: " ")): \(result.stderr)")
    }
}
