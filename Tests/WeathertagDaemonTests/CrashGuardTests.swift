import Glibc
import Logging
import Testing
import WeathertagCore
import WeathertagTestSupport

@testable import WeathertagDaemon

/// The notes the crash guard keeps of the batches it stamps, on a real filesystem. (The crash itself, a fault that
/// flags the note as the process dies, is `HostileInputTests`'s, with the real binary.)
@Suite("The crash guard's notes")
struct CrashGuardTests {
    let directory: TemporaryDirectory
    let state: String

    init() throws {
        self.directory = try TemporaryDirectory()
        self.state = self.directory.file("state")
        try FileIO.makeDirectories(self.state)
    }

    var notes: [String] { FileIO.names(in: self.state).filter { $0.hasPrefix("stamping-") }.sorted() }

    func bytes(_ note: String) throws -> [UInt8] {
        let path = self.state + "/" + note
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        return try FileIO.readAll(fd, path: path, limit: 1 << 20)
    }

    /// This boot's id, as the guard reads it.
    static let boot: String = {
        let fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        let bytes = (try? FileIO.readAll(fd, path: "boot_id", limit: 4096)) ?? []
        return String(decoding: bytes, as: UTF8.self).trimmingWhitespaceAndNewlines()
    }()

    func inode(_ note: String) -> ino_t {
        var info = stat()
        return stat(self.state + "/" + note, &info) == 0 ? info.st_ino : 0
    }

    @Test func aNoteIsKeptBetweenBatchesEmptyAndNamesOnlyItsOwnBatch() throws {
        defer { self.directory.remove() }
        let crashGuard = CrashGuard(directory: self.state)
        let first = ["a-first-batch-with-a-long-name.md", "b.md"]
        let note = try #require(crashGuard.begin(first))
        note.reach(1)
        let name = try #require(self.notes.first)
        #expect(self.notes.count == 1)
        let written = try #require(BatchMarker(try self.bytes(name)))
        #expect(written.names == first && written.reached == 1 && !written.crashed)

        // Done: the same file stays, naming no entry.
        crashGuard.end(note)
        #expect(self.notes == [name])
        #expect(BatchMarker(try self.bytes(name))?.stopped(currentBoot: Self.boot) == nil)

        // The next batch is noted in that file (no file made, nothing truncated), with nothing of the longer note
        // before it.
        let (inode, size) = (self.inode(name), try self.bytes(name).count)
        let next = try #require(crashGuard.begin(["c.md"]))
        next.reach(0)
        let sizeNow = try self.bytes(name).count
        #expect(self.notes == [name] && self.inode(name) == inode && sizeNow == size)
        let rewritten = try #require(BatchMarker(try self.bytes(name)))
        #expect(rewritten.names == ["c.md"] && rewritten.stopped(currentBoot: Self.boot) == "c.md")

        // Two batches at once: a note each.
        let other = try #require(crashGuard.begin(["d.md"]))
        #expect(self.notes.count == 2)
        #expect(
            try self.notes.compactMap { BatchMarker(try self.bytes($0)) }.map(\.names).sorted { $0[0] < $1[0] }
                == [["c.md"], ["d.md"]])
        crashGuard.end(next)
        crashGuard.end(other)
        #expect(try self.notes.allSatisfy { BatchMarker(try self.bytes($0))?.reached == nil })
    }

    @Test func aStartRemovesEmptyNotesAndAGuardThatGoesRemovesOnlyItsOwn() throws {
        defer { self.directory.remove() }
        var earlier: CrashGuard? = CrashGuard(directory: self.state)
        let note = try #require(earlier?.begin(["a.md"]))
        earlier?.end(note)
        #expect(self.notes.count == 1)

        // As after a `kill -9` between batches: a note that names no entry is nobody's crash, and goes.
        let later = CrashGuard(directory: self.state)
        #expect(later.recover(inbox: self.directory.path, logger: Logger(label: "test")).isEmpty)
        #expect(self.notes.isEmpty)
        let laterNote = try #require(later.begin(["b.md"]))
        later.end(laterNote)
        let kept = self.notes
        #expect(kept.count == 1)

        // A reload's guard makes names of its own, and the guard that goes does not remove them.
        earlier = nil
        #expect(self.notes == kept)
    }
}
