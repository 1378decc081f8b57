import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// The fault suite, part 2: the inbox folder itself misbehaving, and files the daemon must not touch.
@Suite("Faults: the inbox and bad files", .serialized)
struct InboxFaultTests {
    static let fixed = #"[{"type": "fixed", "latitude": 46.2, "longitude": 6.15}]"#

    /// Log lines that say `message` about `entry`.
    static func lines(_ log: String, _ message: String, entry: String) -> Int {
        log.split(separator: "\n").filter { $0.contains(message) && $0.contains(" entry=\(entry) ") }.count
    }

    @Test func aQueueOverflowTriggersAFullRescan() async throws {
        // The kernel's limit is read, never changed: it is machine-wide, and other tests' daemons run meanwhile.
        let limitText = try String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8)
        let limit = try #require(Int(limitText.trimmingCharacters(in: .whitespacesAndNewlines)))
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            let daemon = try await harness.startDaemon()
            // Frozen, the daemon reads no events: hidden files written and closed fill its queue (two names in
            // turn, since the kernel merges an event identical to the one before), and the events of the entries
            // dropped after that are lost. Only a rescan finds them.
            daemon.child.signal(SIGSTOP)
            // Every thread stopped (state T) before the noise: a reader still running would drain the queue.
            let pid = daemon.child.pid
            try await poll("the daemon stopped") { () -> Bool? in
                let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
                let stopped = tasks.allSatisfy { task in
                    let stat = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8)) ?? ""
                    return stat.split(separator: ")").last?.split(separator: " ").first == "T"
                }
                return !tasks.isEmpty && stopped ? true : nil
            }
            for index in 0...(limit + 200) {
                let fd = open(harness.entryPath(index % 2 == 0 ? ".noise-a" : ".noise-b"), O_WRONLY | O_CREAT, 0o600)
                close(fd)
            }
            for index in 0..<20 { try harness.dropByRename("burst\(index).md", "Entry \(index)\n") }
            daemon.child.signal(SIGCONT)
            for index in 0..<20 { _ = try await harness.waitForStamp("burst\(index).md") }
            #expect(daemon.log.contains("inotify queue overflowed, rescanning the inbox"))
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func theInboxDeletedOrRenamedAndRecreatedIsWatchedAgain() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            let daemon = try await harness.startDaemon()
            try harness.dropByRename("first.md", "First\n")
            _ = try await harness.waitForStamp("first.md")

            // Renamed away: what is in it now is out of reach and untouched.
            let away = harness.directory.file("inbox-away")
            #expect(rename(harness.inbox, away) == 0)
            try await poll("the daemon to notice") {
                daemon.log.contains("inbox folder was removed or moved away") ? true : nil
            }
            try "Dropped into the moved folder\n".write(toFile: away + "/late.md", atomically: true, encoding: .utf8)

            // A new folder under the old name is watched again and rescanned.
            try FileManager.default.createDirectory(atPath: harness.inbox, withIntermediateDirectories: false)
            try harness.directory.write("inbox/waiting.md", "Was there before the watch came back\n")
            try await poll("the inbox watched again") {
                daemon.log.contains("inbox is back, watching again") ? true : nil
            }
            _ = try await harness.waitForStamp("waiting.md")
            try harness.dropInPlace("second.md", "Second\n")
            _ = try await harness.waitForStamp("second.md")
            #expect(try String(contentsOfFile: away + "/late.md", encoding: .utf8) == "Dropped into the moved folder\n")

            // Deleted and recreated.
            try FileManager.default.removeItem(atPath: harness.inbox)
            try FileManager.default.createDirectory(atPath: harness.inbox, withIntermediateDirectories: false)
            try await poll("the recreated inbox watched") {
                daemon.log.components(separatedBy: "inbox is back, watching again").count >= 3 ? true : nil
            }
            try harness.dropByRename("third.md", "Third\n")
            _ = try await harness.waitForStamp("third.md")
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func pollingFindsEntriesInotifyNeverReports() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed, extra: "")
            try harness.patchConfig(
                #""path": "\#(harness.inbox)""#, #""path": "\#(harness.inbox)", "poll_seconds": 0.3"#)
            let daemon = try await harness.startDaemon()
            // A hard link made and its first name removed: inotify reports only IN_CREATE, which a watcher must
            // ignore, the way a network filesystem reports nothing for another machine's file.
            try harness.directory.write("inbox/.staging", "Arrived without an event\n")
            #expect(link(harness.entryPath(".staging"), harness.entryPath("remote.md")) == 0)
            #expect(unlink(harness.entryPath(".staging")) == 0)
            _ = try await harness.waitForStamp("remote.md")
            #expect(daemon.log.contains("poll_seconds=0.3"))
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func syncToolTemporariesArePickedUpOnceComplete() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            let daemon = try await harness.startDaemon()
            // Syncthing, Nextcloud/ownCloud, browsers and rsync write under a temporary name, then rename.
            let temporaries = [
                "~syncthing~synced.md.tmp": "synced.md", ".syncthing.other.md.tmp": "other.md",
                "nextcloud.md.part": "nextcloud.md", ".rsync.md.Xa12Bc": "rsync.md",
                "download.md.crdownload": "download.md",
            ]
            for (temporary, _) in temporaries {
                try harness.dropInPlace(temporary, "half of it")
                let fd = open(harness.entryPath(temporary), O_WRONLY | O_APPEND | O_CLOEXEC)
                _ = " and the rest\n".withCString { write(fd, $0, strlen($0)) }
                close(fd)
            }
            try harness.dropByRename("marker.md", "marker\n")
            _ = try await harness.waitForStamp("marker.md")
            for (temporary, _) in temporaries {
                #expect(harness.read(temporary) == "half of it and the rest\n", "\(temporary) must not be touched")
            }
            for (temporary, final) in temporaries {
                #expect(rename(harness.entryPath(temporary), harness.entryPath(final)) == 0)
            }
            for (_, final) in temporaries {
                _ = try await harness.waitForStamp(final)
                #expect(harness.read(final).hasSuffix("---\nhalf of it and the rest\n"))
                #expect(harness.read(final).components(separatedBy: "weather:").count == 2)
            }
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func badFilesAreLeftIntactAndLoggedOnce() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            try harness.patchConfig(
                #""path": "\#(harness.inbox)""#,
                #""path": "\#(harness.inbox)", "poll_seconds": 0.2, "max_bytes": 4096"#
            )
            let outside = harness.directory.file("outside.md")
            try "Outside the inbox\n".write(toFile: outside, atomically: true, encoding: .utf8)
            var left: [String: [UInt8]] = [
                "empty.md": [],
                "big.md": Array(String(repeating: "long line\n", count: 500).utf8),
                "binary.md": [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D],
                "invalid-utf8.md": Array("Caf".utf8) + [0xE9, 0x0A],
                "unterminated.md": Array("---\ntitle: never closed\n\nText\n".utf8),
                "toml.md": Array("+++\ntitle = \"TOML\"\n+++\nText\n".utf8),
                "weather-scalar.md": Array("---\nweather: sunny, I think\n---\nText\n".utf8),
                "already.md": Array("---\nweather:\n  description: \"by hand\"\n---\nText\n".utf8),
                "readonly.md": Array("Read-only by its author\n".utf8),
                "noread.md": Array("Not readable\n".utf8),
                "hardlink.md": Array("Two names\n".utf8),
            ]
            for (name, bytes) in left { try Data(bytes).write(to: URL(fileURLWithPath: harness.entryPath(name))) }
            #expect(chmod(harness.entryPath("readonly.md"), 0o444) == 0)
            #expect(chmod(harness.entryPath("noread.md"), 0o200) == 0)
            #expect(link(harness.entryPath("hardlink.md"), harness.entryPath("hardlink-2.md")) == 0)
            left["hardlink-2.md"] = left["hardlink.md"]
            try FileManager.default.createSymbolicLink(
                atPath: harness.entryPath("link-out.md"), withDestinationPath: outside)
            try harness.directory.write("inbox/target.txt", "Inside, not an entry\n")
            try FileManager.default.createSymbolicLink(
                atPath: harness.entryPath("link-in.md"), withDestinationPath: harness.entryPath("target.txt"))
            #expect(mkfifo(harness.entryPath("fifo.md"), 0o644) == 0)
            // A device node takes root to make; without root that one case is left out.
            let root = geteuid() == 0
            if root {
                #expect(mknod(harness.entryPath("device.md"), S_IFCHR | 0o644, dev_t(0x103) /* 1:3, /dev/null */) == 0)
            }
            try FileManager.default.createDirectory(
                atPath: harness.entryPath("folder.md"), withIntermediateDirectories: false)
            // A folder named like an entry is a folder of the diary (watched, walked), not an entry to refuse.
            let special = ["link-out.md", "link-in.md", "fifo.md"] + (root ? ["device.md"] : [])
            // Stampable oddities: a BOM, CRLF and mixed line ends.
            let stampable = [
                "bom.md": "\u{FEFF}Starts with a byte order mark\n", "crlf.md": "Windows\r\nline ends\r\n",
                "mixed.md": "First line LF\nsecond CRLF\r\nthird LF\n",
            ]
            for (name, text) in stampable { try harness.directory.write("inbox/" + name, text) }

            let daemon = try await harness.startDaemon()
            for name in stampable.keys.sorted() { _ = try await harness.waitForStamp(name) }
            // (String(contentsOfFile:) drops a BOM: read the bytes.)
            let bom = try Data(contentsOf: URL(fileURLWithPath: harness.entryPath("bom.md")))
            #expect(Array(bom).starts(with: [0xEF, 0xBB, 0xBF, 0x2D, 0x2D, 0x2D, 0x0A]))
            #expect(harness.read("crlf.md").hasPrefix("---\r\nweather:\r\n"))
            #expect(harness.read("crlf.md").hasSuffix("---\r\nWindows\r\nline ends\r\n"))
            #expect(harness.read("mixed.md").hasSuffix("---\nFirst line LF\nsecond CRLF\r\nthird LF\n"))

            // Let the poll rescan the inbox several times: nothing is logged twice.
            let rescans = daemon.log.components(separatedBy: "rescanned the inbox").count
            try await poll("five more rescans") {
                daemon.log.components(separatedBy: "rescanned the inbox").count >= rescans + 5 ? true : nil
            }
            let log = daemon.log
            for (name, bytes) in left {
                #expect(
                    Array((try? Data(contentsOf: URL(fileURLWithPath: harness.entryPath(name)))) ?? Data()) == bytes,
                    "\(name) changed")
                let expected = name == "already.md" ? 0 : 1
                #expect(
                    Self.lines(log, "entry left as it is", entry: name) == expected,
                    "\(name) logged \(Self.lines(log, "entry left as it is", entry: name)) times")
            }
            for name in special {
                #expect(Self.lines(log, "entry left as it is", entry: name) == 1, "\(name)")
            }
            #expect(try String(contentsOfFile: outside, encoding: .utf8) == "Outside the inbox\n")
            #expect(harness.read("target.txt") == "Inside, not an entry\n")
            var info = stat()
            #expect(lstat(harness.entryPath("link-out.md"), &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
            #expect(log.contains(#"reason="it is a symbolic link"#))
            #expect(log.contains(#"reason="it is a FIFO"#) && (!root || log.contains(#"reason="it is a device"#)))
            #expect(!log.contains(#"reason="it is a folder"#) && log.contains(#"reason="it is read-only"#))

            // The empty file is stamped once something is written to it.
            try harness.directory.write("inbox/empty.md", "Now with words\n")
            _ = try await harness.waitForStamp("empty.md")
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test(.enabled(if: geteuid() == 0, "mounting a tmpfs takes root"))
    func aFullDiskLeavesEntriesWaitingUntouchedUntilThereIsRoom() async throws {
        try await withHarness { harness in
            // The inbox on a 256 KiB tmpfs, filled up but for a few KiB.
            guard mount("tmpfs", harness.inbox, "tmpfs", 0, "size=256k,mode=0755") == 0 else {
                Issue.record("cannot mount a tmpfs: \(String(cString: strerror(errno)))")
                return
            }
            defer { umount2(harness.inbox, Int32(MNT_DETACH)) }
            try harness.writeConfig(providers: Self.fixed)
            let filler = harness.entryPath(".filler")
            let fd = open(filler, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            var chunk = [UInt8](repeating: 0x41, count: 4096)
            while chunk.withUnsafeMutableBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
            close(fd)
            let entry = String(repeating: "A page of text.\n", count: 100)
            // Room for the entry itself but not for its stamped copy: free one page and write the entry there.
            var info = stat()
            #expect(stat(filler, &info) == 0 && truncate(filler, info.st_size - 4096) == 0)
            let daemon = try await harness.startDaemon()
            try harness.dropInPlace("full.md", entry)
            try await poll("the write to fail") { () -> Bool? in
                let status = try daemon.get("/v1/status").json
                let waiting = (status["entries"] as? [String: Any])?["waiting"] as? Int
                return (status["last_error"] as? String)?.contains("No space left on device") == true && waiting == 1
                    ? true : nil
            }
            #expect(harness.read("full.md") == entry)
            #expect(
                ((try? FileManager.default.contentsOfDirectory(atPath: harness.inbox)) ?? []).allSatisfy {
                    !$0.hasSuffix("weathertag-tmp")
                })
            // Room again: the entry is stamped by the retry, with no new event.
            #expect(unlink(filler) == 0)
            _ = try await harness.waitForStamp("full.md")
            #expect(harness.read("full.md").hasSuffix("---\n" + entry))
            try await poll("the recovery logged") { daemon.log.contains("stamping works again") ? true : nil }
            #expect(
                daemon.log.components(separatedBy: "cannot stamp entries").count == 2,
                "logged once: \(daemon.log.split(separator: "\n").filter { $0.contains("cannot stamp") })")
            #expect(try await daemon.stop() == 0)
        }
    }
}
