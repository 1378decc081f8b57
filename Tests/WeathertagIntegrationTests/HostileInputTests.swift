import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// Files no one here wrote: what a broken sync or a hostile share can leave in the inbox. The daemon stays alive,
/// leaves them byte for byte, explains them, and stamps the next entry; a file that kills it anyway (a bug not
/// found yet, provoked here by a debug build's test fault) is set aside, not taken up again at every start.
@Suite("Faults: hostile files", .serialized)
struct HostileInputTests {
    static let fixed = #"[{"type": "fixed", "latitude": 46.2, "longitude": 6.15}]"#

    /// Name, bytes, and what `why` says of it.
    static let hostile: [(name: String, bytes: [UInt8], why: String)] = [
        (
            "brackets.md",
            Array(("---\ntitle: x\ntags: " + String(repeating: "[", count: 100_000) + "\n---\nBody\n").utf8),
            "nests deeper than 64 levels (at line 3)"
        ),
        (
            "mappings.md", Array(("---\n" + String(repeating: "{a: ", count: 50_000) + "\n---\n").utf8),
            "nests deeper than 64 levels"
        ),
        ("laughs.md", Array(("---\n" + Self.laughs + "---\nBody\n").utf8), "holds more than 10000 nodes"),
        ("latin1.md", Array("---\ntitle: caf".utf8) + [0xE9] + Array("\n---\n".utf8), "not UTF-8"),
        ("nul.md", Array("---\ntitle: a\u{0}b\n---\n".utf8), "binary"),
        // Times no one can read are not replaced by the modification time (they were: today's weather, silently).
        ("bad-day.md", Array("---\ndate: 2021-02-30\n---\nBody\n".utf8), "date (2021-02-30) is not a date"),
        ("yesterday.md", Array("---\ndate: yesterday\n---\nBody\n".utf8), "date (yesterday) is not a date"),
        ("minutes.md", Array("---\ndate: 2021-06-15 10:75\n---\nBody\n".utf8), "(2021-06-15 10:75) is not"),
        ("zone.md", Array("---\ndate: 2021-06-15T10:00+99:00\n---\n".utf8), "is not a date"),
        ("list.md", Array("---\ndate:\n  - 2021\n  - 6\n---\n".utf8), "date (a list or mapping) is not"),
        ("future.md", Array("---\ndate: 2099-06-01\n---\nBody\n".utf8), "later than today anywhere on Earth"),
    ]

    static let laughs =
        "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        + (1..<10).map { level in
            "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n"
        }.joined()

    static func cli(
        _ arguments: [String], _ harness: Harness
    ) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try await ChildProcess.run(
            [DaemonProcess.binary] + arguments + ["--config", harness.directory.file("config.json")],
            environment: ProcessInfo.processInfo.environment, in: harness.directory)
    }

    func bytes(_ harness: Harness, _ name: String) -> [UInt8] {
        Array((try? Data(contentsOf: URL(fileURLWithPath: harness.entryPath(name)))) ?? Data())
    }

    @Test func hostileFilesLeaveTheDaemonAliveAndTheFilesAsTheyWere() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            // Some there before the start (the first listing), some dropped while it runs (the watcher).
            for file in Self.hostile.prefix(2) {
                try Data(file.bytes).write(to: URL(fileURLWithPath: harness.entryPath(file.name)))
            }
            var daemon = try await harness.startDaemon()
            for file in Self.hostile.dropFirst(2) {
                try Data(file.bytes).write(to: URL(fileURLWithPath: harness.entryPath(file.name)))
            }
            try harness.dropByRename("next.md", "The next entry\n")
            _ = try await harness.waitForStamp("next.md")
            try await poll("each hostile file left alone") { () -> Bool? in
                Self.hostile.allSatisfy { daemon.log.contains("entry=\($0.name) ") } ? true : nil
            }
            #expect(daemon.child.isRunning)
            for file in Self.hostile {
                #expect(self.bytes(harness, file.name) == file.bytes, "\(file.name) changed")
                let why = try await Self.cli(["why", harness.entryPath(file.name)], harness)
                #expect(why.stdout.contains("left as it is") && why.stdout.contains(file.why), "\(why.stdout)")
                // Logged once, however often it is looked at.
                #expect(InboxFaultTests.lines(daemon.log, "entry left as it is", entry: file.name) == 1)
            }
            // `stamp` reads them with the same bounds: it reports them and lives.
            let stamp = try await Self.cli(["stamp", "--dry-run", harness.entryPath("brackets.md")], harness)
            #expect(stamp.status != 128 + SIGSEGV && stamp.stdout.contains("nests deeper"), "\(stamp)")

            // Killed and started again: no loop, the files as they were, the next entry stamped.
            #expect(try await daemon.stop(signal: SIGKILL) == 128 + SIGKILL)
            daemon = try await harness.startDaemon()
            try harness.dropByRename("after.md", "After the restart\n")
            _ = try await harness.waitForStamp("after.md")
            #expect(daemon.child.isRunning)
            for file in Self.hostile { #expect(self.bytes(harness, file.name) == file.bytes) }
            #expect(try await daemon.stop() == 0)
        }
    }

    /// Files that crash the daemon while they are stamped (a trap, a stack overflow): each start after a crash sets
    /// the file it crashed on aside (left alone, explained) and stamps the rest of its batch and everything after; a
    /// later restart keeps them aside; a change takes one up.
    @Test func aFileThatKillsTheDaemonIsSetAsideNotLoopedOn() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            let faults = ["WEATHERTAG_TEST_FAULTS": "1"]
            let poisons = [
                "entry-3-trap.md": "---\ntitle: poison\nweathertag-test-fault: crash\n---\nBody\n",
                "entry-5-overflow.md": "---\ntitle: poison\nweathertag-test-fault: overflow\n---\nBody\n",
            ]
            // One batch: the first listing takes them all.
            let innocents = (0..<6).map { "entry-\($0).md" }
            for name in innocents { try harness.directory.write("inbox/" + name, "Entry \(name)\n") }
            for (name, text) in poisons { try harness.directory.write("inbox/" + name, text) }

            // Each poison kills one run (before or after READY); then a run stays up.
            var crashes: [Int32] = []
            var daemon: DaemonProcess?
            while daemon == nil, crashes.count <= poisons.count {
                let started = try? await harness.startDaemon(environment: faults)
                guard let started else {
                    crashes.append(try await harness.daemons.last?.child.waitForExit() ?? -1)
                    continue
                }
                try harness.dropByRename("next-\(crashes.count).md", "The next entry\n")
                // Up for good: the next entry stamped and nothing left in hand (a batch still out may hold a poison:
                // two are stamped at once, and under load the next entry's can finish first), or a crash. Swift's
                // backtracer takes seconds on a loaded machine before the process is gone.
                let stamped: ()? = try? await poll("a stamp and nothing in hand, or a crash", timeout: .seconds(90)) {
                    () -> ()? in
                    if !started.child.isRunning { return () }
                    guard harness.read("next-\(crashes.count).md").contains("weather:"),
                        let status = try? started.get("/v1/status").json,
                        (status["entries"] as? [String: Any])?["waiting"] as? Int == 0
                    else { return nil }
                    return ()
                }
                if started.child.isRunning, stamped != nil {
                    daemon = started
                } else {
                    crashes.append(try await started.child.waitForExit())
                }
            }
            #expect(crashes.count == 2 && crashes.allSatisfy { $0 > 128 }, "\(crashes)")
            var running = try #require(daemon)
            for name in innocents { _ = try await harness.waitForStamp(name) }
            for (name, text) in poisons {
                #expect(harness.read(name) == text)
                let why = try await Self.cli(["why", harness.entryPath(name)], harness)
                #expect(why.stdout.contains("the daemon crashed while stamping this file"), "\(why.stdout)")
                let logs = harness.daemons.map(\.log).joined()
                #expect(logs.contains("the daemon crashed while stamping this entry") && logs.contains("entry=\(name)"))
            }

            // Stopped and started again: still aside.
            #expect(try await running.stop() == 0)
            running = try await harness.startDaemon(environment: faults)
            try harness.dropByRename("later.md", "Later\n")
            _ = try await harness.waitForStamp("later.md")
            #expect(running.child.isRunning)
            for (name, text) in poisons { #expect(harness.read(name) == text) }

            // Changed (the author took the fault out): stamped.
            try harness.dropInPlace("entry-3-trap.md", "---\ntitle: mended\n---\nBody\n")
            _ = try await harness.waitForStamp("entry-3-trap.md")
            #expect(try await running.stop() == 0)
        }
    }

    /// A provider the chain never reached (the one before it answered) is shown as not tried, not as failed.
    @Test func statusSaysNotTriedNotFailed() async throws {
        try await withHarness { harness in
            try harness.writeConfig(
                providers: "[" + #"{"type": "fixed", "latitude": 46.2, "longitude": 6.15}, "# + harness.ipProvider + "]"
            )
            let daemon = try await harness.startDaemon()
            try harness.dropByRename("today.md", "Today\n")
            _ = try await harness.waitForStamp("today.md")
            let status = try await Self.cli(["status"], harness)
            #expect(status.stdout.contains("✓ fixed") && status.stdout.contains("· ip not tried"), "\(status.stdout)")
            #expect(!status.stdout.contains("✗"), "\(status.stdout)")
            #expect(try harness.standIn.calls("ip") == 0)
            #expect(try await daemon.stop() == 0)
        }
    }
}
