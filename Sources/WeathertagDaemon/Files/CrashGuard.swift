import CLinux
import Glibc
import Logging
import Synchronization
import WeathertagCore

/// No crash loop, by construction: a batch is noted in a small file while it is stamped (`BatchMarker`), a fault of
/// the daemon's own flags the note as it dies (`clinux_crash_note`), and the entry a flagged note names at start, the
/// one the daemon was stamping when it crashed, is set aside until it changes (`SetAsideEntries`), left alone with
/// the reason. Blocking: called on the thread pool.
///
/// The cost: per batch, one `pwrite` of the note; per entry, an 8-byte copy into the mapped page (no system call: a
/// process that dies leaves its shared pages to the kernel, which writes them to the file as it would a `pwrite`; an
/// 8-byte `pwrite` an entry where the file cannot be mapped). The note files are kept open and mapped between
/// batches, one for each batch in flight, each batch's note written over the last one's (`BatchMarker`: what a
/// longer note leaves after the end is not read), and a done batch's reached field made blank. Made and removed for
/// each batch, they were 6 system calls of a lone entry's 27 before its stamp, their `openat` with `O_CREAT` alone
/// 50 µs on a journaled ext4 (`perf trace`, entries dropped one at a time); emptied with `ftruncate` instead, each
/// note's block was freed and allocated again, which the next stamp's `fsync` had to write in its journal commit. A
/// note that names no entry is removed at the next start, as any other.
final class CrashGuard: Sendable {
    /// The folder the notes and the list live in (the state database's).
    let directory: String
    private let boot: String
    private let setAside = Mutex(SetAsideEntries())
    /// The notes between batches, open and mapped, naming no entry.
    private let idle = Mutex<[Note]>([])
    /// The notes' numbers, for the whole process: a reload's guard makes no name an earlier guard's files have.
    private static let numbers = Atomic<Int>(0)

    init(directory: String) {
        self.directory = directory
        // This boot's id: a note from another boot names no culprit (the machine stopped, not the daemon).
        self.boot = FileIO.bootID
    }

    deinit {
        for note in self.idle.withLock({ $0 }) { note.remove() }
    }

    private var listPath: String { self.directory + "/set-aside" }
    private static let notePrefix = "stamping-"

    /// At start: the entries earlier notes name join the list (with the version they have now), entries that
    /// changed or went leave it, the list is written back and the notes removed. Returns the newly set aside.
    @discardableResult
    func recover(inbox: String, logger: Logger) -> [String] {
        try? FileIO.makeDirectories(self.directory)
        var entries = Self.read(self.listPath).map(SetAsideEntries.init) ?? SetAsideEntries()
        var changed = false
        for (name, version) in entries.versions where FileVersion.current(inbox + "/" + name) != version {
            entries.release(name)
            changed = true
        }
        var suspects: [String] = []
        for note in FileIO.names(in: self.directory) where note.hasPrefix(Self.notePrefix) {
            let path = self.directory + "/" + note
            let marker = Self.read(path).flatMap(BatchMarker.init)
            unlink(path)
            guard let marker, let name = marker.stopped(currentBoot: self.boot) else { continue }
            guard marker.suspect(currentBoot: self.boot) != nil, let version = FileVersion.current(inbox + "/" + name)
            else {
                // Killed from outside (`kill -9`, the OOM killer): not the file's doing, and it is stamped as usual.
                logger.notice(
                    "the daemon was stopped from outside while stamping this entry; it is stamped as usual",
                    metadata: ["entry": "\(name)"])
                continue
            }
            entries.setAside(name, version)
            suspects.append(name)
            changed = true
            logger.error(
                "the daemon crashed while stamping this entry; it is left alone until it changes",
                metadata: ["entry": "\(name)", "batch": "\(marker.names.count) entries"])
        }
        if changed { self.write(entries) }
        self.setAside.withLock { $0 = entries }
        return suspects
    }

    /// Whether the entry is set aside in this version; a changed one leaves the list.
    func holds(_ name: String, _ version: FileVersion) -> Bool {
        let (held, released, entries) = self.setAside.withLock { entries in
            let (held, released) = entries.holds(name, version)
            return (held, released, entries)
        }
        if released { self.write(entries) }
        return held
    }

    /// Notes a batch before its first file is read, on the thread that stamps it; nil when the note cannot be
    /// written (the batch goes on unguarded: a full disk stops the stamps anyway). The caller hands it back (`end`).
    func begin(_ names: [String]) -> Note? {
        let marker = BatchMarker(boot: self.boot, names: names)
        guard let note = self.idle.withLock({ $0.popLast() }) ?? self.newNote(marker) else { return nil }
        // From the file's start, over the last batch's note: the mapped field is inside what this writes.
        guard (try? FileIO.writeAll(note.fd, marker.bytes, at: 0, path: note.path)) != nil else {
            note.remove()
            return nil
        }
        // A fault on this thread from now on flags the note.
        clinux_crash_note(note.fd, marker.crashedOffset)
        return note
    }

    /// The batch is done (or failed as a batch, not as a process): its note names no entry any more, and is kept
    /// for the next batch.
    func end(_ note: Note) {
        clinux_crash_note(-1, 0)
        note.reach(nil)
        self.idle.withLock { $0.append(note) }
    }

    /// A new note file, open and mapped, empty until `begin` writes it.
    private func newNote(_ marker: BatchMarker) -> Note? {
        let number = Self.numbers.add(1, ordering: .relaxed).newValue
        let path = self.directory + "/" + Self.notePrefix + String(getpid()) + "-" + String(number)
        // Read and write: a shared mapping needs both.
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return nil }
        // The field's page, mapped over an empty file: touched only once `begin` has written past it.
        let length = marker.reachedOffset + BatchMarker.reachedWidth
        let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        return Note(
            fd: fd, path: path, offset: marker.reachedOffset,
            mapping: mapped == MAP_FAILED ? nil : mapped.map { ($0, length) })
    }

    /// One batch's note. Unchecked: its mapping is used by one thread at a time, the batch's, and by the guard only
    /// between batches.
    struct Note: @unchecked Sendable {
        let fd: Int32
        let path: String
        let offset: Int
        /// The note's first page, shared with the file: where the reached field is written.
        let mapping: (address: UnsafeMutableRawPointer, length: Int)?

        /// The batch moves on to its `index`-th entry (nil: past its entries, to what it does after them).
        func reach(_ index: Int?) {
            BatchMarker.field(index).withUnsafeBytes { field in
                if let mapping = self.mapping {
                    UnsafeMutableRawBufferPointer(start: mapping.address + self.offset, count: field.count)
                        .copyMemory(from: field)
                } else {
                    _ = pwrite(self.fd, field.baseAddress, field.count, off_t(self.offset))
                }
            }
        }

        /// Closed and removed: a note that cannot be written, and the guard's own when it goes.
        fileprivate func remove() {
            if let mapping = self.mapping { munmap(mapping.address, mapping.length) }
            close(self.fd)
            unlink(self.path)
        }
    }

    private func write(_ entries: SetAsideEntries) {
        if entries.versions.isEmpty {
            unlink(self.listPath)
        } else {
            try? FileIO.writeAtomically(entries.bytes, to: self.listPath, mode: 0o600)
        }
    }

    private static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return try? FileIO.readAll(fd, path: path, limit: 1 << 20)
    }
}
