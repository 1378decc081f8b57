import Foundation
import Glibc
import Synchronization
import Testing
import WeathertagCore
import WeathertagTestSupport

@testable import WeathertagDaemon

/// Stamping one file on a real filesystem.
@Suite("Stamping a file on disk")
final class EntryFileTests {
    let directory: TemporaryDirectory
    let lines = Fixtures.tag.stampLines

    init() throws {
        self.directory = try TemporaryDirectory()
        // As the daemon does (Runtime): a writer that breaks a lease in the instant between taking it and clearing
        // its owner sends SIGIO, whose default action ends the process. The racing-saves test makes that instant
        // come up.
        signal(SIGIO, SIG_IGN)
    }

    deinit {
        self.directory.remove()
    }

    func contents(_ name: String) throws -> String {
        try String(contentsOfFile: self.directory.file(name), encoding: .utf8)
    }

    /// No `*.weathertag-tmp` file may be left behind, whatever happened.
    func temporaries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: self.directory.path).filter {
            $0.hasSuffix("weathertag-tmp")
        }
    }

    func stamp(_ name: String) throws -> EntryResult {
        try Self.stamp(path: self.directory.file(name), lines: self.lines)
    }

    /// `EntryFile.stamp`, tried again while the file counts as open for writing. Other tests in this process spawn
    /// children, and a child holds a copy of our (close-on-exec) descriptors until its exec; a file just written
    /// here can look open for writing for those microseconds.
    static func stamp(
        path: String,
        lines: [String],
        beforeRename: @escaping () -> Void = {},
        beforeExchange: @escaping () -> Void = {},
        afterExchange: @escaping () -> Void = {}
    ) throws -> EntryResult {
        for _ in 0..<1000 {
            let result = try EntryFile.stamp(
                path: path, lines: lines,
                hooks: EntryFile.Hooks(
                    beforeRename: beforeRename, beforeExchange: beforeExchange, afterExchange: afterExchange)
            ).result
            guard result == .inUse else { return result }
            usleep(5000)
        }
        return .inUse
    }

    /// Opens `path` for writing on another thread, the way an editor saving in place does: the open waits while
    /// our lease is being broken, then it writes `text`. Returns a semaphore signalled when the write is done.
    func writeConcurrently(_ path: String, _ text: String) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        Thread {
            let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
            if fd >= 0 {
                _ = text.withCString { write(fd, $0, strlen($0)) }
                close(fd)
            }
            done.signal()
        }.start()
        return done
    }

    /// Waits until another thread's open is blocked on our lease.
    func waitForLeaseBreak(_ path: String) {
        var info = stat()
        _ = stat(path, &info)
        // /proc/locks lists a lease being broken as "LEASE  BREAKING" (or "BREAKER" for the waiting opener).
        let inode = ":\(info.st_ino) "
        for _ in 0..<5000 {
            let locks = (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
            if locks.split(separator: "\n").contains(where: { $0.contains("BREAK") && $0.contains(inode) }) { return }
            usleep(1000)
        }
    }

    @Test func stampsKeepingModeAndLeavingNoTemporaryFile() throws {
        try self.directory.write("entry.md", "Dear diary\n")
        chmod(self.directory.file("entry.md"), 0o600)
        guard case .stamped(let version) = try self.stamp("entry.md") else {
            Issue.record("not stamped")
            return
        }
        #expect(FileVersion.current(self.directory.file("entry.md")) == version, "the new file's version")
        #expect(try self.contents("entry.md").hasPrefix("---\nweather:\n"))
        #expect(try self.contents("entry.md").hasSuffix("---\nDear diary\n"))
        var info = stat()
        #expect(stat(self.directory.file("entry.md"), &info) == 0 && info.st_mode & 0o7777 == 0o600)
        #expect(try self.temporaries().isEmpty)
        #expect(try self.stamp("entry.md") == .alreadyStamped(version))
    }

    /// The daemon's reads are not the author's: an entry it reads and leaves (stamped already, here) keeps its
    /// access time. (Under `relatime`, which this filesystem has, a read of a file whose access time is older than its
    /// modification updates it; `O_NOATIME` asks that it not.)
    @Test func anEntryReadAndLeftKeepsItsAccessTime() throws {
        try self.directory.write("entry.md", "Dear diary\n")
        guard case .stamped = try self.stamp("entry.md") else {
            Issue.record("not stamped")
            return
        }
        let path = self.directory.file("entry.md")
        // An access time long before its modification, as a file read once years ago and written since.
        var info = stat()
        #expect(stat(path, &info) == 0)
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), info.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        #expect(try self.stamp("entry.md") == .alreadyStamped(FileVersion.current(path)!))
        #expect(stat(path, &info) == 0)
        #expect(info.st_atim.tv_sec == 1_000_000_000, "the access time changed: \(info.st_atim.tv_sec)")
    }

    @Test func anEditDuringStampingIsNeverOverwritten() throws {
        try self.directory.write("entry.md", "first draft\n")
        let path = self.directory.file("entry.md")
        var writer: DispatchSemaphore?
        let result = try Self.stamp(path: path, lines: self.lines) {
            // The author saves again, in place and with the same length, between our read and our rename.
            writer = self.writeConcurrently(path, "2nd  draft\n")
            self.waitForLeaseBreak(path)
        }
        writer?.wait()
        #expect(result == .changedWhileStamping)
        #expect(try self.contents("entry.md") == "2nd  draft\n")
        #expect(try self.temporaries().isEmpty)
        // Tried again, it stamps the new content.
        guard case .stamped = try self.stamp("entry.md") else {
            Issue.record("not stamped on the second try")
            return
        }
        #expect(try self.contents("entry.md").hasSuffix("---\n2nd  draft\n"))
    }

    @Test func anEditAfterTheLastLookIsGivenItsFileBack() throws {
        try self.directory.write("entry.md", "draft\n")
        let path = self.directory.file("entry.md")
        let result = try Self.stamp(
            path: path, lines: self.lines,
            afterExchange: {
                // A writer that reached the original just as it was swapped out: its open breaks the lease.
                let original = self.directory.file((try? self.temporaries().first) ?? "")
                let fd = open(original, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                #expect(fd < 0 && errno == EWOULDBLOCK, "the open must find the lease")
            })
        #expect(result == .changedWhileStamping)
        #expect(try self.contents("entry.md") == "draft\n", "the original is back under its name")
        #expect(try self.temporaries().isEmpty)
    }

    /// gedit, Sublime and JetBrains save by writing a new file and renaming it over the entry. Landing between the
    /// last look and the exchange, that save is what the exchange swaps out: it must come back, not be unlinked.
    @Test func anEditorsSaveRenamedOverTheEntryJustBeforeTheExchangeIsKept() throws {
        try self.directory.write("entry.md", "draft\n")
        let path = self.directory.file("entry.md")
        let result = try Self.stamp(
            path: path, lines: self.lines,
            beforeExchange: {
                try? self.directory.write(".entry.md.editor-save", "saved by the editor\n")
                #expect(rename(self.directory.file(".entry.md.editor-save"), path) == 0)
            })
        #expect(result == .changedWhileStamping)
        #expect(try self.contents("entry.md") == "saved by the editor\n", "the editor's save is under the name")
        #expect(try self.temporaries().isEmpty)
        guard case .stamped = try self.stamp("entry.md") else {
            Issue.record("the save is not stamped on the next try")
            return
        }
        #expect(try self.contents("entry.md").hasSuffix("---\nsaved by the editor\n"))
    }

    /// The entry deleted (or moved away) between the last look and the exchange: it has vanished, nothing is left
    /// behind, and the batch goes on (it is not a failed write).
    @Test func anEntryGoneJustBeforeTheExchangeHasVanished() throws {
        try self.directory.write("entry.md", "# Gone\n")
        let path = self.directory.file("entry.md")
        let result = try Self.stamp(path: path, lines: self.lines, beforeExchange: { #expect(unlink(path) == 0) })
        #expect(result == .vanished)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try self.temporaries().isEmpty)
    }

    /// Editors' saves racing stamps, round after round: each round one save lands at a random moment of one stamp,
    /// by rename-over (a new file renamed over the entry) or in place (truncate and write). After every round the
    /// entry must hold that save, stamped or not. `WEATHERTAG_SAVE_RACE_ROUNDS` sets the rounds (2,000 here;
    /// `make bench` runs 20,000).
    @Test func editorSavesRacingTheStampAreNeverLost() throws {
        let rounds = Int(ProcessInfo.processInfo.environment["WEATHERTAG_SAVE_RACE_ROUNDS"] ?? "") ?? 2000
        let path = self.directory.file("entry.md")
        try self.directory.write("entry.md", "save 0\n")
        var lost: [Int] = []
        var outcomes: [String: Int] = [:]
        var generator = SeededRandom(seed: 20_261_123)
        for round in 1...rounds {
            let text = "save \(round)\n"
            let delay = UInt32.random(in: 0..<400, using: &generator)
            let byRename = round % 2 == 1
            let saved = DispatchSemaphore(value: 0)
            Thread {
                usleep(delay)
                if byRename {
                    let temporary = path + ".editor-\(round)"
                    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                    _ = text.withCString { write(fd, $0, strlen($0)) }
                    close(fd)
                    rename(temporary, path)
                } else {
                    let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
                    _ = text.withCString { write(fd, $0, strlen($0)) }
                    close(fd)
                }
                saved.signal()
            }.start()
            let result = (try? EntryFile.stamp(path: path, lines: self.lines).result).map { "\($0)" } ?? "error"
            outcomes[String(result.prefix { $0 != "(" }), default: 0] += 1
            saved.wait()
            // The save is there: alone, or after a stamp that came after it.
            let body = (try? self.contents("entry.md")) ?? ""
            if body != text && !body.hasSuffix("---\n" + text) { lost.append(round) }
        }
        #expect(lost.isEmpty, "\(lost.count) of \(rounds) saves lost, first in rounds \(lost.prefix(5)); \(outcomes)")
        #expect(try self.temporaries().isEmpty)
    }

    /// A writer whose open found the entry by its name just before the exchange reaches the original only after it
    /// left the name (here: a descriptor opened for reading before the stamp, reopened for writing after it, as
    /// `/proc/self/fd` allows). Its save is put back under the name when the original is settled.
    @Test func aWriterThatReachesTheOriginalAfterTheExchangeKeepsItsSave() throws {
        for late in [true, false] {
            try self.directory.write("entry.md", "first draft\n")
            let path = self.directory.file("entry.md")
            let found = open(path, O_RDONLY | O_CLOEXEC)
            #expect(found >= 0)
            defer { close(found) }
            var options = StampOptions()
            options.handsBackOriginal = true
            let stamped = try EntryFile.stamp(path: path, lines: self.lines, options: options)
            guard case .stamped = stamped.result else {
                Issue.record("not stamped")
                return
            }
            let original = try #require(stamped.original)
            // The writer on a thread of its own, as an editor is: its open waits on our lease (on this thread, it
            // waited the kernel's lease-break time out, 45 s) until `settle` lets it in.
            let saved = DispatchSemaphore(value: 0)
            let opened = Mutex<Int32?>(nil)
            if late {
                var info = stat()
                #expect(fstat(found, &info) == 0)
                Thread {
                    let writer = open("/proc/self/fd/\(found)", O_WRONLY | O_TRUNC | O_CLOEXEC)
                    opened.withLock { $0 = writer >= 0 ? writer : -errno }
                    _ = "second draft\n".withCString { write(writer, $0, strlen($0)) }
                    close(writer)
                    saved.signal()
                }.start()
                while !Self.leaseBreaking(inode: info.st_ino), opened.withLock({ $0 }) == nil { sched_yield() }
            }
            #expect(try original.settle() == late)
            if late {
                saved.wait()
                #expect((opened.withLock { $0 } ?? -1) >= 0, "reopening the original: \(opened.withLock { $0 } ?? 0)")
            }
            let body = try self.contents("entry.md")
            #expect(late ? body == "second draft\n" : body.hasSuffix("---\nfirst draft\n"), "\(body)")
            #expect(try self.temporaries().isEmpty)
        }
    }

    /// In a batch, a late writer's save is put back when its chunk is settled, before the next chunk is read: the
    /// fourth entry's original is reopened for writing right after its exchange (as above, by another thread, whose
    /// open waits on the lease as an editor's would), and by the first last look of the second chunk its save is
    /// under its name. The batch goes on; every other entry is stamped.
    @Test func aLateWritersSaveIsPutBackBeforeTheNextChunk() throws {
        let chunk = EntryBatch.writtenTogether
        let names = (0..<(chunk + 8)).map { String(format: "late-%02d.md", $0) }
        let late = names[3]
        for _ in 0..<100 {
            for name in names { try self.directory.write(name, "Entry \(name)\n") }
            let found = open(self.directory.file(late), O_RDONLY | O_CLOEXEC)
            #expect(found >= 0)
            defer { close(found) }
            var (exchanges, looks) = (0, 0)
            var atTheNextChunk: String?
            var hooks = EntryFile.Hooks()
            var info = stat()
            #expect(fstat(found, &info) == 0)
            let saved = DispatchSemaphore(value: 0)
            let written = Mutex(false)
            hooks.afterExchange = {
                exchanges += 1
                guard exchanges == 4 else { return }
                Thread {
                    let writer = open("/proc/self/fd/\(found)", O_WRONLY | O_TRUNC | O_CLOEXEC)
                    _ = "second draft\n".withCString { write(writer, $0, strlen($0)) }
                    close(writer)
                    written.withLock { $0 = true }
                    saved.signal()
                }.start()
                // On its way once its open waits on the lease: the kernel lists the lease as breaking. (Or done
                // already, where no lease was taken: the look after the exchange is then all there is.)
                while !Self.leaseBreaking(inode: info.st_ino), !written.withLock({ $0 }) { sched_yield() }
            }
            hooks.beforeRename = {
                looks += 1
                if looks == chunk + 1 { atTheNextChunk = try? self.contents(late) }
            }
            let outcome = EntryBatch.stampFiles(
                names, in: self.directory.path, lines: self.lines, options: StampOptions(),
                context: EntryBatch.Context(hooks: hooks)
            ).remembered()
            if exchanges >= 4 { saved.wait() }
            if outcome.results.contains(where: { $0.1 == .inUse }) { continue }
            #expect(atTheNextChunk == "second draft\n", "\(atTheNextChunk ?? "nil")")
            #expect(try self.contents(late) == "second draft\n")
            for (name, result) in outcome.results {
                if name == late {
                    #expect(result == .changedWhileStamping)
                } else {
                    #expect({ if case .stamped = result { true } else { false } }(), "\(name): \(result)")
                }
            }
            #expect(try self.temporaries().isEmpty)
            return
        }
        Issue.record("each try found an entry open for writing")
    }

    /// Whether `/proc/locks` lists a lease on `inode` that a writer is breaking.
    static func leaseBreaking(inode: ino_t) -> Bool {
        let locks = (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
        return locks.split(separator: "\n").contains { $0.contains("BREAKING") && $0.contains(":\(inode) ") }
    }

    /// The stamped file keeps the author's modification time (2019-05-01 here); asked not to, it gets the stamp's.
    @Test func theModificationTimeIsKept() throws {
        for keep in [true, false] {
            try self.directory.write("old.md", "Written long ago\n")
            let path = self.directory.file("old.md")
            var times = [timespec(tv_sec: 1_556_700_000, tv_nsec: 5), timespec(tv_sec: 1_556_712_345, tv_nsec: 678)]
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
            guard
                case .stamped(let version) = try EntryFile.stamp(
                    path: path, lines: self.lines, options: StampOptions(keepModificationTime: keep)
                ).result
            else {
                Issue.record("not stamped")
                continue
            }
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect((info.st_mtim.tv_sec == 1_556_712_345 && info.st_mtim.tv_nsec == 678) == keep, "keep: \(keep)")
            #expect(FileVersion.current(path) == version, "the version rescans compare with")
            unlink(path)
        }
    }

    @Test func aFileOpenForWritingWaitsForItsClose() throws {
        try self.directory.write("entry.md", "still typing")
        let fd = open(self.directory.file("entry.md"), O_WRONLY | O_APPEND | O_CLOEXEC)
        #expect(try EntryFile.stamp(path: self.directory.file("entry.md"), lines: self.lines).result == .inUse)
        _ = write(fd, "!", 1)
        close(fd)
        guard case .stamped = try self.stamp("entry.md") else {
            Issue.record("not stamped after the close")
            return
        }
        #expect(try self.contents("entry.md").hasSuffix("---\nstill typing!"))
    }

    @Test func staleTemporariesOfDeadWritersAreRemoved() async throws {
        // A PID that is certainly not running: a child that has exited and been reaped.
        let child = try ChildProcess(["/bin/true"], stderrPath: self.directory.file("true.log"))
        try await child.waitForExit()
        let parent = getppid()
        let parentStart = try #require(FileIO.startTime(of: parent))
        let ownStart = try #require(FileIO.processStart)
        let dead = ".entry.md.\(child.pid).\(parentStart).abc\(FileIO.temporarySuffix)"
        let live = ".entry.md.\(getpid()).\(ownStart).def\(FileIO.temporarySuffix)"
        let otherLive = ".entry.md.\(parent).\(parentStart).jkl\(FileIO.temporarySuffix)"
        // The PIDs of a killed writer came round to a process (or a thread) that runs now: its start says otherwise.
        let reused = ".entry.md.\(parent).\(parentStart + 1).mno\(FileIO.temporarySuffix)"
        let ownReused = ".entry.md.\(getpid()).\(ownStart - 1).pqr\(FileIO.temporarySuffix)"
        let legacy = ".entry.md.ghi\(FileIO.temporarySuffix)"
        let legacyWithPID = ".entry.md.\(getpid()).stu\(FileIO.temporarySuffix)"
        // After a power cut, a daemon started at boot got the PID and the start tick of the one that left this file:
        // the boot it names is another (its first digit changed).
        let boot = try #require(FileIO.bootMark)
        let otherBoot = "b" + (boot.dropFirst().first == "0" ? "1" : "0") + boot.dropFirst(2)
        let ownOtherBoot = ".entry.md.\(getpid()).\(ownStart).\(otherBoot).vw-1\(FileIO.temporarySuffix)"
        let ownThisBoot = ".entry.md.\(getpid()).\(ownStart).\(boot).xy-1\(FileIO.temporarySuffix)"
        let deadThisBoot = ".entry.md.\(child.pid).\(parentStart).\(boot).z-1\(FileIO.temporarySuffix)"
        let all = [
            dead, live, otherLive, reused, ownReused, legacy, legacyWithPID, ownOtherBoot, ownThisBoot, deadThisBoot,
            ".hidden.md",
        ]
        for name in all { try self.directory.write(name, "x") }
        let names = try FileManager.default.contentsOfDirectory(atPath: self.directory.path)
        let removed = FileIO.removeStaleTemporaries(in: self.directory.path, names: names)
        #expect(Set(removed) == [dead, reused, ownReused, legacy, legacyWithPID, ownOtherBoot, deadThisBoot])
        for kept in [live, otherLive, ownThisBoot, ".hidden.md"] {
            #expect(FileIO.exists(self.directory.file(kept)), "\(kept)")
        }
        // The writer the daemon's own temp files name is itself.
        let (fd, path) = try FileIO.createTemporary(directory: self.directory.path, name: "entry.md", mode: 0o600)
        close(fd)
        let name = String(path.split(separator: "/").last ?? "")
        #expect(name.hasPrefix(".entry.md.\(getpid()).\(ownStart).\(boot)."))
        #expect(!FileIO.isStaleTemporary(name))
    }

    /// An import stopped by a crash or a power cut leaves its staging folder in the diary, hidden and never read as
    /// entries: the next import removes it (its writer is gone, or of another boot), and leaves a running one's.
    @Test func aStoppedImportsStagingFolderIsRemovedByTheNext() async throws {
        let child = try ChildProcess(["/bin/true"], stderrPath: self.directory.file("true.log"))
        try await child.waitForExit()
        let parentStart = try #require(FileIO.startTime(of: getppid()))
        let boot = try #require(FileIO.bootMark)
        let stopped = ".import.\(child.pid).\(parentStart).\(boot).ab-1\(FileIO.temporarySuffix)"
        let unpacked = ".import-zip.\(child.pid).\(parentStart).\(boot).cd-2\(FileIO.temporarySuffix)"
        let running = ".import.\(getppid()).\(parentStart).\(boot).ef-3\(FileIO.temporarySuffix)"
        for folder in [stopped, unpacked, running] {
            _ = try self.directory.makeDirectory(folder + "/2018/01")
            try self.directory.write(folder + "/2018/01/entry.md", "---\ntitle: staged\n---\n")
        }
        let importer = DiaryImporter(root: self.directory.path, layout: .default)
        importer.removeStaleStaging()
        #expect(!FileIO.exists(self.directory.file(stopped)) && !FileIO.exists(self.directory.file(unpacked)))
        #expect(FileIO.exists(self.directory.file(running + "/2018/01/entry.md")))
        // Its own staging folder is named so too: the next import can tell it.
        let staging = try importer.stage(DiaryImporter.Plan(entries: [], alreadyThere: 0), exportFolder: nil) { _, _ in
            ""
        }
        let name = String(staging.folder.split(separator: "/").last ?? "")
        #expect(name.hasPrefix(".import.\(getpid()).") && !FileIO.isStaleTemporary(name), "\(name)")
        importer.discard(staging)
    }

    /// The daemon does not wait for the next import: its listing removes a stopped import's staging folder wherever
    /// in the inbox the import wrote (`--into` any folder), however deep the tree in it, and keeps a running one's.
    @Test func theInboxListingRemovesAStoppedImportsStagingFolder() async throws {
        let child = try ChildProcess(["/bin/true"], stderrPath: self.directory.file("true.log"))
        try await child.waitForExit()
        let parentStart = try #require(FileIO.startTime(of: getppid()))
        let boot = try #require(FileIO.bootMark)
        let stopped = "2018/.import.\(child.pid).\(parentStart).\(boot).ab-1\(FileIO.temporarySuffix)"
        let running = ".import.\(getppid()).\(parentStart).\(boot).ef-3\(FileIO.temporarySuffix)"
        let deep = Array(repeating: "d", count: 400).joined(separator: "/")
        _ = try self.directory.makeDirectory(stopped + "/" + deep)
        try self.directory.write(stopped + "/" + deep + "/entry.md", "---\ntitle: staged\n---\n")
        _ = try self.directory.makeDirectory(running + "/2018/01")
        try self.directory.write(running + "/2018/01/entry.md", "---\ntitle: staged\n---\n")
        try self.directory.write("2018/diary.md", "Mine.\n")
        // The author's own hidden folder that only ends like one of ours is never removed.
        let authors = "2018/.drafts.weathertag-tmp"
        _ = try self.directory.makeDirectory(authors)
        try self.directory.write(authors + "/draft.md", "Not yet.\n")
        let listing = try InboxListing.list(
            self.directory.path, tree: InboxTree(), skipping: [:], memory: nil, failed: { _, _ in })
        #expect(!FileIO.exists(self.directory.file(stopped)))
        #expect(listing.removed.contains(String(stopped.dropFirst("2018/".count))))
        #expect(FileIO.exists(self.directory.file(running + "/2018/01/entry.md")))
        #expect(listing.candidates == ["2018/diary.md"] && FileIO.exists(self.directory.file("2018/diary.md")))
        #expect(FileIO.exists(self.directory.file(authors + "/draft.md")))
    }

    @Test func aProcessStartIsReadPastACommandWithSpacesAndParentheses() {
        let stat =
            "4242 (a) b (c d) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 200 18446744073709551615"
        #expect(FileIO.startTime(stat: Array(stat.utf8)[...]) == 987_654)
        #expect(FileIO.startTime(stat: Array("4242 (a) S 1 2".utf8)[...]) == nil)
        #expect(FileIO.startTime(stat: Array("no command".utf8)[...]) == nil)
    }

    /// A directory record is only as long as its name: one that ends where readable memory ends (a guard page
    /// after it, as glibc's buffer may end) is read without touching a byte past it. Copying `d_name` whole read
    /// 256 bytes and crashed the daemon in the kill test.
    @Test func aDirectoryRecordIsReadNoFurtherThanItsName() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let memory = try #require(
            mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0).flatMap {
                $0 == MAP_FAILED ? nil : $0
            })
        defer { munmap(memory, 2 * page) }
        #expect(mprotect(memory + page, page, PROT_NONE) == 0)
        let offset = try #require(MemoryLayout<dirent>.offset(of: \dirent.d_name))
        let lengthOffset = try #require(MemoryLayout<dirent>.offset(of: \dirent.d_reclen))
        let length = (offset + 8 + 7) & ~7  // the record of "a.md\0" as the kernel pads it, 8-byte aligned
        let record = memory + page - length
        memset(record, 0, length)
        let name = Array("a.md".utf8)
        (record + offset).copyMemory(from: name, byteCount: name.count)
        record.storeBytes(of: UInt16(length), toByteOffset: lengthOffset, as: UInt16.self)
        let entry = record.assumingMemoryBound(to: dirent.self)
        #expect(String(decoding: FileIO.name(of: entry), as: UTF8.self) == "a.md")
        #expect(entry.pointee.d_type == 0, "the type read alone (InboxWalk), not the record copied")
    }

    @Test func aFileRemovedDuringStampingIsNotRecreated() throws {
        try self.directory.write("entry.md", "gone soon\n")
        let path = self.directory.file("entry.md")
        let result = try Self.stamp(path: path, lines: self.lines) { unlink(path) }
        #expect(result == .vanished)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try self.temporaries().isEmpty)
        #expect(try EntryFile.stamp(path: path, lines: self.lines).result == .vanished)
    }

    @Test func symlinksFIFOsFoldersAndHardLinksAreLeftAlone() throws {
        try self.directory.write("target.md", "outside\n")
        try FileManager.default.createSymbolicLink(
            atPath: self.directory.file("link.md"),
            withDestinationPath: self.directory.file("target.md")
        )
        #expect(mkfifo(self.directory.file("pipe.md"), 0o644) == 0)
        try self.directory.makeDirectory("folder.md")
        try self.directory.write("linked.md", "two names\n")
        #expect(link(self.directory.file("linked.md"), self.directory.file("other-name.md")) == 0)

        for name in ["link.md", "pipe.md", "folder.md", "linked.md"] {
            let result = try EntryFile.stamp(path: self.directory.file(name), lines: self.lines).result
            guard case .leftAlone(let reason, _) = result else {
                Issue.record("\(name): \(result)")
                continue
            }
            #expect(!reason.description.isEmpty)
        }
        #expect(try self.contents("target.md") == "outside\n")
        #expect(try self.contents("linked.md") == "two names\n")
        #expect(try self.temporaries().isEmpty)
    }

    @Test func emptyAndUnparsableFilesAreLeftAlone() throws {
        try self.directory.write("empty.md", "")
        try self.directory.write("bad.md", "---\ntitle: [oops\n---\n")
        for name in ["empty.md", "bad.md"] {
            guard case .leftAlone = try EntryFile.stamp(path: self.directory.file(name), lines: self.lines).result
            else {
                Issue.record("\(name) was not skipped")
                continue
            }
        }
        #expect(try self.contents("bad.md") == "---\ntitle: [oops\n---\n")
    }

    /// Not root, the replacement is ours: it may go over someone else's entry only when they keep write access
    /// through the entry's group.
    @Test func anotherUsersEntryIsStampedOnlyWhenItsGroupKeepsWriteAccess() {
        func file(uid: uid_t, gid: gid_t, mode: mode_t) -> stat {
            var info = stat()
            (info.st_uid, info.st_gid, info.st_mode) = (uid, gid, S_IFREG | mode)
            return info
        }
        let ours = file(uid: 61184, gid: 500, mode: 0o664)
        #expect(
            EntryFile.wouldLockOutItsOwner(original: file(uid: 61184, gid: 7, mode: 0o600), replacement: ours) == nil)
        #expect(
            EntryFile.wouldLockOutItsOwner(original: file(uid: 1000, gid: 500, mode: 0o664), replacement: ours) == nil)
        let notShared = EntryFile.wouldLockOutItsOwner(
            original: file(uid: 1000, gid: 500, mode: 0o644), replacement: ours)
        #expect(notShared?.description.contains("uid 1000 and is not group-writable") == true)
        let otherGroup = EntryFile.wouldLockOutItsOwner(
            original: file(uid: 1000, gid: 1000, mode: 0o664), replacement: ours)
        #expect(otherGroup?.description.contains("group 1000") == true)
    }

    @Test func writeAtomicallyReplacesTheWholeFile() throws {
        let path = self.directory.file("cache.json")
        try FileIO.writeAtomically(Array("old, longer content".utf8), to: path)
        try FileIO.writeAtomically(Array("new".utf8), to: path)
        #expect(try self.contents("cache.json") == "new")
        #expect(try self.temporaries().isEmpty)
    }

    /// A batch writes the copies of up to `EntryBatch.writtenTogether` entries before it syncs and exchanges the
    /// first: their blocks then go to the disk in one journal commit, not one each. Each copy is still synced before
    /// its exchange, and what a chunk held is told in the order of the names.
    @Test func aBatchWritesItsCopiesTogetherBeforeItExchangesTheFirst() throws {
        let count = EntryBatch.writtenTogether + 3
        let names = (0..<count).map { String(format: "together-%02d.md", $0) }
        for _ in 0..<100 {
            for name in names { try self.directory.write(name, "Entry \(name)\n") }
            // At each last look before an exchange: the copies beside the entries not exchanged yet, and how many of
            // them are still open (a copy is closed once synced, and all are synced before the first exchange).
            var seen: [Int] = []
            var open: [Int] = []
            var hooks = EntryFile.Hooks()
            hooks.beforeRename = {
                seen.append((try? self.temporaries().count) ?? -1)
                open.append(self.openTemporaries())
            }
            let outcome = EntryBatch.stampFiles(
                names, in: self.directory.path, lines: self.lines, options: StampOptions(),
                context: EntryBatch.Context(hooks: hooks)
            ).remembered()
            if outcome.results.contains(where: { $0.1 == .inUse }) { continue }
            let chunk = EntryBatch.writtenTogether
            #expect(seen == Array((1...chunk).reversed()) + [3, 2, 1])
            #expect(open.allSatisfy { $0 == 0 }, "copies open at a last look: \(open)")
            #expect(outcome.results.map(\.0) == names)
            #expect(outcome.results.allSatisfy { if case .stamped = $0.1 { true } else { false } })
            for name in names { #expect(try self.contents(name).hasSuffix("---\nEntry \(name)\n")) }
            #expect(try self.temporaries().isEmpty)
            return
        }
        Issue.record("each try found an entry open for writing")
    }

    /// A batch settles each chunk before it reads the next: the chunk's folder synced, its swapped-out originals
    /// closed. So it holds two descriptors an entry of one chunk at most (the entry and its copy), whatever its size:
    /// three batches in flight stay well within systemd's 1,024 (`DescriptorBudget`). Before, each original stayed
    /// open until the batch's end, and a batch of 512 held 512.
    @Test func aBatchHoldsOneChunksEntriesOpenAtMost() throws {
        let chunk = EntryBatch.writtenTogether
        let names = (0..<(3 * chunk + 5)).map { String(format: "held-%03d.md", $0) }
        for _ in 0..<100 {
            for name in names { try self.directory.write(name, "Entry \(name)\n") }
            var open: [Int] = []
            var hooks = EntryFile.Hooks()
            hooks.beforeRename = { open.append(self.openInFolder()) }
            let outcome = EntryBatch.stampFiles(
                names, in: self.directory.path, lines: self.lines, options: StampOptions(),
                context: EntryBatch.Context(hooks: hooks)
            ).remembered()
            if outcome.results.contains(where: { $0.1 == .inUse }) { continue }
            #expect(outcome.results.allSatisfy { if case .stamped = $0.1 { true } else { false } })
            #expect(open.count == names.count)
            #expect(open.max() ?? 0 <= 2 * chunk, "descriptors open in the folder at each last look: \(open)")
            #expect(self.openInFolder() == 0)
            return
        }
        Issue.record("each try found an entry open for writing")
    }

    /// This process's descriptors open on anything in this test's folder, a deleted original included.
    func openInFolder() -> Int {
        self.descriptors { $0.hasPrefix(self.directory.path + "/") }
    }

    /// This process's descriptors open on a copy in this test's folder (`/proc/self/fd`; other tests run beside it).
    func openTemporaries() -> Int {
        self.descriptors { $0.hasPrefix(self.directory.path + "/") && $0.hasSuffix("weathertag-tmp") }
    }

    /// This process's descriptors whose target matches `matching` (`/proc/self/fd`).
    func descriptors(_ matching: (String) -> Bool) -> Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { descriptor in
            var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink("/proc/self/fd/" + descriptor, &target, target.count - 1)
            let path = String(decoding: target.prefix(max(length, 0)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return matching(path)
        }.count
    }

    /// A write that fails in the middle of a chunk (the disk is full) stops the batch there: the copies written
    /// before it are synced and exchanged, the failed entry and those after it are as they were, and no copy is left.
    @Test(.enabled(if: geteuid() == 0, "mounting a tmpfs takes root"))
    func aFullDiskInTheMiddleOfAChunkStampsTheCopiesWrittenBeforeIt() throws {
        let folder = try self.directory.makeDirectory("small")
        try #require(mount("tmpfs", folder, "tmpfs", 0, "size=256k,mode=0755") == 0)
        defer { umount2(folder, Int32(MNT_DETACH)) }
        let text = String(repeating: "A page of text.\n", count: 256)  // 4 KiB, a page each
        let names = (0..<8).map { "full-\($0).md" }
        for name in names { try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + name)) }
        // Room for three copies, each two pages (the entry and its block): six pages.
        let filler = folder + "/.filler"
        let fd = open(filler, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        let page = [UInt8](repeating: 0x41, count: 4096)
        while page.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        close(fd)
        var info = stat()
        #expect(stat(filler, &info) == 0 && truncate(filler, info.st_size - 6 * 4096) == 0)

        let outcome = EntryBatch.stampFiles(names, in: folder, lines: self.lines, options: StampOptions())
            .remembered()
        #expect(outcome.results.map(\.0) == Array(names.prefix(3)))
        #expect(outcome.results.allSatisfy { if case .stamped = $0.1 { true } else { false } })
        #expect(outcome.failure?.0 == names[3])
        #expect((outcome.failure?.1 as? SystemError)?.code == ENOSPC)
        #expect(outcome.unprocessed == Array(names.suffix(4)))
        for name in names.prefix(3) {
            #expect(try String(contentsOfFile: folder + "/" + name, encoding: .utf8).hasSuffix("---\n" + text))
        }
        for name in names.suffix(5) {
            #expect(try String(contentsOfFile: folder + "/" + name, encoding: .utf8) == text)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(left.allSatisfy { !$0.hasSuffix("weathertag-tmp") }, "\(left)")
    }

    /// A copy whose fsync fails in the middle of a chunk (an I/O error) stops the batch there: the copies synced
    /// before it are exchanged, its entry and those after it are as they were (their copies written, never synced,
    /// removed), and no copy is left open or on the disk.
    @Test func aSyncThatFailsInTheMiddleOfAChunkStampsTheCopiesSyncedBeforeIt() throws {
        let names = (0..<8).map { "unsynced-\($0).md" }
        for _ in 0..<100 {
            for name in names { try self.directory.write(name, "Entry \(name)\n") }
            var syncs = 0
            var hooks = EntryFile.Hooks()
            hooks.sync = { fd in
                syncs += 1
                guard syncs == 4 else { return fsync(fd) }
                errno = EIO
                return -1
            }
            let outcome = EntryBatch.stampFiles(
                names, in: self.directory.path, lines: self.lines, options: StampOptions(),
                context: EntryBatch.Context(hooks: hooks)
            ).remembered()
            if outcome.results.contains(where: { $0.1 == .inUse }) { continue }
            #expect(syncs == 4, "no copy synced after the failed one")
            #expect(outcome.results.map(\.0) == Array(names.prefix(3)))
            #expect(outcome.results.allSatisfy { if case .stamped = $0.1 { true } else { false } })
            #expect(outcome.failure?.0 == names[3])
            #expect((outcome.failure?.1 as? SystemError)?.code == EIO)
            #expect(outcome.unprocessed == Array(names.suffix(4)))
            for name in names.prefix(3) { #expect(try self.contents(name).hasSuffix("---\nEntry \(name)\n")) }
            for name in names.suffix(5) { #expect(try self.contents(name) == "Entry \(name)\n") }
            #expect(try self.temporaries().isEmpty)
            #expect(self.openTemporaries() == 0)
            return
        }
        Issue.record("each try found an entry open for writing")
    }

    /// A batch that has read its budget of bytes stops there: the names it did not reach come back untouched, with
    /// no failure, for the queue (`EntryBatch.textBudget`).
    @Test func aBatchStopsAtItsBudgetOfBytes() throws {
        let text = "---\ntitle: Day\n---\n" + String(repeating: "Dear diary. ", count: 80) + "\n"
        let names = (0..<5).map { "budget-\($0).md" }
        // Three entries' bytes, whether what is counted is the entry as read or as stamped (a few lines more).
        let budget = 3 * text.utf8.count - 1
        // (Tried again when a file counts as open for writing: another test's child held its descriptor.)
        for _ in 0..<100 {
            for name in names { try Data(text.utf8).write(to: URL(fileURLWithPath: self.directory.file(name))) }
            var options = StampOptions(maximumSize: 1 << 20)
            options.textBudget = budget
            let outcome = EntryBatch.stampFiles(names, in: self.directory.path, lines: self.lines, options: options)
                .remembered()
            if outcome.results.contains(where: { $0.1 == .inUse }) { continue }
            #expect(outcome.results.map(\.0) == Array(names.prefix(3)))
            #expect(outcome.results.allSatisfy { if case .stamped = $0.1 { true } else { false } })
            #expect(outcome.failure == nil)
            #expect(outcome.unprocessed == Array(names.suffix(2)))
            for name in names.suffix(2) { #expect(try self.contents(name) == text) }
            let whole = EntryBatch.stampFiles(
                names.suffix(2), in: self.directory.path, lines: self.lines, options: StampOptions(maximumSize: 1 << 20)
            ).remembered()
            if whole.results.contains(where: { $0.1 == .inUse }) { continue }
            #expect(whole.results.count == 2 && whole.unprocessed.isEmpty, "the default budget holds them")
            return
        }
        Issue.record("each try found an entry open for writing")
    }
}

@Suite("systemd notify")
struct SystemdNotifierTests {
    @Test func sendsOneDatagramAndNothingWithoutTheVariable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("notify.sock")
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        defer { close(fd) }
        let address = try #require(UnixSocketAddress(path))
        #expect(address.withSockaddr { bind(fd, $0, $1) } == 0)

        #expect(!SystemdNotifier(environment: [:]).notify("READY=1"))
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": path]).notify("READY=1\nSTATUS=ok"))
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        #expect(count > 0)
        #expect(String(decoding: buffer[0..<max(count, 0)], as: UTF8.self) == "READY=1\nSTATUS=ok")
    }

    @Test func abstractNamespace() throws {
        let name = "@weathertag-test-\(UInt32.random(in: 0...UInt32.max))"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        defer { close(fd) }
        let address = try #require(UnixSocketAddress(name))
        #expect(address.withSockaddr { bind(fd, $0, $1) } == 0)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": name]).notify("WATCHDOG=1"))
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        #expect(String(decoding: buffer[0..<max(count, 0)], as: UTF8.self) == "WATCHDOG=1")
    }
}
