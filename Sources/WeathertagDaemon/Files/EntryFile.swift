import CLinux
import FoundationEssentials
import Glibc
import WeathertagCore

/// Stamps one file in place, crash-safely and without ever overwriting content we did not read.
///
/// 1. Open without following links and check the type, link count and size on the descriptor.
/// 2. Take a read lease (`F_SETLEASE`): refused while anyone has the file open for writing, and broken by any
///    later open for writing or truncate. Where leases are not available (a file we do not own, NFS), the
///    `stat` comparisons below are the only guard.
/// 3. Read, stamp, write a temp file next to it, fsync.
/// 4. Last look: lease intact (without a lease: the same size and modification time), the same file under the name.
/// 5. Exchange the temp file and the entry in one step (`RENAME_EXCHANGE`), so the original stays linked under
///    the temp name; look once more, and if the name held another file by then (a save by rename), exchange back.
/// 6. Unlink the original, fsync the folder; then, still holding the lease, see whether a writer reached the
///    original meanwhile, and put its save back under the entry's name.
///
/// At every instant the entry's name holds either the original or the original plus the stamp.
enum EntryFile {
    /// What the stamper is asked with when there is no current weather, to learn what the file needs: never written.
    private static let placeholder = ["weather:", "  pending: true"]

    /// - Parameters:
    ///   - beforeRename: called after the temp file is written, before the last look; tests change the original
    ///     there at the worst moment.
    ///   - beforeExchange: called after the last look, right before the exchange: tests save over the entry there,
    ///     as an editor renaming its new file over the old one does.
    ///   - afterExchange: called right after the exchange, before the look that may undo it.
    ///   - keepModificationTime: the stamped file gets the original's access and modification times.
    ///   - backdating: an entry written before what current weather can speak for is left alone.
    ///   - syncsFolder: the folder is fsynced before this returns. A batch passes false and fsyncs each of its
    ///     folders once, after its last exchange and before it reports or remembers anything: one journal commit
    ///     for the batch's renames instead of one per entry.
    ///   - lines: the block of current weather; nil while none can be had: an entry that needs it comes back
    ///     `.needsWeather` untouched, and what needs none goes on (back-dated, restored, stamped, left alone).
    ///   - restore: the remembered block of an entry that has none, written back instead of `lines` (nil: new
    ///     weather).
    ///   - replacing: an existing block is replaced by `lines` (`stamp --fresh`).
    ///   - blockNow: told the block the file holds when done (stamped, restored or there already), to remember.
    ///   - contentNow: told the bytes the file holds when done, its modification time and version, whenever it was read
    ///     (stamped, restored, there already, back-dated, or left alone for its content): for the diary index.
    ///   - setAside: whether the file, in the version it has, stopped the daemon when it was last stamped
    ///     (`CrashGuard`): it is left alone.
    ///   - keepOriginal: given the swapped-out original to `settle()` after the folder's fsync (a batch, which
    ///     fsyncs once at its end); without it the original is settled here, after this entry's fsync.
    static func stamp(
        path: String,
        lines: [String]?,
        maximumSize: Int = InboxConfiguration.defaultMaximumBytes,
        keepModificationTime: Bool = true,
        backdating: BackdatingPolicy? = nil,
        syncsFolder: Bool = true,
        restore: () -> [String]? = { nil },
        replacing: Bool = false,
        blockNow: ([String]) -> Void = { _ in },
        contentNow: ([UInt8], Date, FileVersion) -> Void = { _, _, _ in },
        keepOriginal: ((SwappedOriginal) -> Void)? = nil,
        locks: EditorLockCache? = nil,
        setAside: (FileVersion) -> Bool = { _ in false },
        beforeRename: () -> Void = {},
        beforeExchange: () -> Void = {},
        afterExchange: () -> Void = {}
    ) throws -> EntryResult {
        let (directory, name) = FileIO.split(path)
        // An editor that has the entry open keeps its swap or lock file beside it: not now. A batch lists each
        // folder once for them (`EditorLockCache`); one entry alone looks for each name.
        if let lock = locks?.lock(for: name, in: directory)
            ?? (locks == nil ? Self.probeLock(for: name, in: directory) : nil)
        {
            return .locked(lock)
        }
        // O_NOFOLLOW: never stamp through a symlink. O_NONBLOCK: opening a FIFO must not hang.
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            switch errno {
            case ENOENT: return .vanished
            case ELOOP: return .leftAlone(.notRegularFile(.symbolicLink), FileVersion.current(path))
            case EACCES: return .leftAlone(.permissionDenied, FileVersion.current(path))
            default: throw SystemError("open", path: path)
            }
        }
        // Closed when this returns, unless it is handed on with the swapped-out original (which then closes it).
        var ownsDescriptor = true
        defer { if ownsDescriptor { close(fd) } }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemError("stat", path: path) }
        let before = FileVersion(info)
        guard info.st_mode & S_IFMT == S_IFREG else {
            return .leftAlone(.notRegularFile(Self.kind(info.st_mode)), before)
        }
        guard info.st_nlink == 1 else { return .leftAlone(.hardLinks(Int(info.st_nlink)), before) }
        // The author's own "do not touch": honoured even where we could write (as root, or by rename).
        guard info.st_mode & S_IWUSR != 0 else { return .leftAlone(.readOnly, before) }
        guard info.st_mode & S_IRUSR != 0 else { return .leftAlone(.noReadPermission, before) }
        guard Int(info.st_size) <= maximumSize else {
            return .leftAlone(.tooLarge(limit: maximumSize), before)
        }
        // The daemon stopped while stamping it, in this version: not read again until it changes (`CrashGuard`).
        guard !setAside(before) else { return .leftAlone(.stoppedTheDaemon, before) }

        let leased: Bool
        if clinux_take_read_lease(fd) == 0 {
            leased = true
        } else if errno == EAGAIN || errno == EBUSY {
            return .inUse
        } else {
            leased = false
        }
        /// Nobody opened the original for writing, and it is the version we read. Under an intact lease it cannot
        /// be another version (nobody could open it for writing since we read it): the `fstat` is for no lease.
        func untouched() -> Bool {
            leased ? clinux_read_lease_intact(fd) == 1 : FileVersion.current(fd) == before
        }

        let original: [UInt8]
        do {
            original = try FileIO.readAll(fd, path: path, limit: maximumSize, expected: Int(info.st_size))
        } catch let error as SystemError where error.code == EFBIG {
            return .changedWhileStamping
        }
        // (A change during the read is caught by the last look below, before anything is written over.)
        guard original.count == Int(info.st_size) else { return .changedWhileStamping }
        #if DEBUG
            TestFaults.crashIfAsked(original)
        #endif

        let modified = Date(
            timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        var content: [UInt8]
        switch FrontMatterStamper.stamp(original, lines: lines ?? Self.placeholder, replacing: replacing) {
        case .stamped(let stamped): content = stamped
        case .alreadyStamped:
            FrontMatterStamper.weatherBlock(original, checked: true).map(blockNow)
            contentNow(original, modified, before)
            return .alreadyStamped(before)
        case .skipped(let reason):
            contentNow(original, modified, before)
            return .leftAlone(.content(reason), before)
        }
        // Back without its block (an old buffer saved, a sync writing the unstamped version again): the same block
        // goes back, whenever the entry was written.
        var written = lines ?? []
        var restoring = false
        if !replacing, let remembered = restore(),
            case .stamped(let restored) = FrontMatterStamper.stamp(original, lines: remembered)
        {
            content = restored
            written = remembered
            restoring = true
        }
        // Written long before now: current weather would not be the weather it was written in.
        // A time that cannot be read, or lies ahead, is never replaced by a guess.
        if !restoring, let backdating {
            switch backdating.verdict(
                frontMatter: FrontMatterStamper.timeFields(original), fileName: name, modified: modified)
            {
            case .current: break
            case .backdated(let time):
                contentNow(original, modified, before)
                // The weather of its own time, where it was written (its front matter may say).
                guard backdating.asksHistory else { return .leftAlone(.backdated(time), before) }
                return .wantsHistory(HistoryRequest(time: time, position: FrontMatterStamper.position(original)))
            case .ahead(let time, let wait):
                contentNow(original, modified, before)
                return .datedAhead(time, wait: wait)
            case .leftAlone(let reason):
                contentNow(original, modified, before)
                return .leftAlone(reason, before)
            }
        }
        // Current, and no current weather to be had: it waits for it, untouched.
        guard restoring || lines != nil else {
            contentNow(original, modified, before)
            return .needsWeather
        }

        let mode = info.st_mode & 0o7777
        let temporary = try FileIO.createTemporary(directory: directory, name: name, mode: mode)
        let stamped: FileVersion
        do {
            defer { close(temporary.fd) }
            try FileIO.writeAll(temporary.fd, content, path: temporary.path)
            // The umask may have narrowed the mode; the owner should not change either (when we may set it).
            var created = stat()
            guard fstat(temporary.fd, &created) == 0 else { throw SystemError("stat", path: temporary.path) }
            if created.st_mode & 0o7777 != mode { _ = fchmod(temporary.fd, mode) }
            if Self.effectiveUserID == 0, created.st_uid != info.st_uid || created.st_gid != info.st_gid {
                _ = fchown(temporary.fd, info.st_uid, info.st_gid)
            } else if let lockout = Self.wouldLockOutItsOwner(original: info, replacement: created) {
                unlink(temporary.path)
                return .leftAlone(.ownerWouldLoseAccess(lockout), before)
            }
            // The author's modification time stays: for many diaries it is the only record of when an entry was
            // written (`stamp.keep_mtime`).
            if keepModificationTime {
                var times = [info.st_atim, info.st_mtim]
                guard futimens(temporary.fd, &times) == 0 else { throw SystemError("futimens", path: temporary.path) }
                created.st_mtim = info.st_mtim
            }
            guard fsync(temporary.fd) == 0 else { throw SystemError("fsync", path: temporary.path) }
            // Mode and owner changes leave the size and modification time as they are.
            stamped = FileVersion(created)
            // Closed before the exchange: closed after it, our descriptor would report `IN_CLOSE_WRITE` under the
            // entry's name and bring the entry we just stamped back to be read again.
        } catch {
            unlink(temporary.path)
            throw error
        }

        var swapped: SwappedOriginal?
        beforeRename()
        guard untouched(), FileVersion.current(path) == before else {
            unlink(temporary.path)
            return FileIO.exists(path) ? .changedWhileStamping : .vanished
        }
        beforeExchange()
        if clinux_exchange(temporary.path, path) == 0 {
            afterExchange()
            // The original now sits under the temp name. A writer that opened it in the last microseconds broke
            // the lease: give it its file back. And an editor's save that renamed a new file over the entry
            // between the last look and the exchange left *that* file under the temp name, not the one we read:
            // it goes back under the entry's name, and our copy, made from the older version, is dropped.
            // (Under the lease, a writer that reached the original since the last look broke it: `settle`, after the
            // folder's fsync, finds that and puts its save back. Without a lease, the version is compared here.)
            guard leased || FileVersion.current(fd) == before,
                FileVersion.current(temporary.path)?.isSameFile(as: before) == true
            else {
                try Self.exchangeBack(temporary: temporary.path, path: path)
                return .changedWhileStamping
            }
            unlink(temporary.path)
            // A writer that found the original by its name just before the exchange may reach it only now: its open
            // waits on our lease, and what it writes would go to a file without a name. The lease is kept, and the
            // original with it, until the folder's fsync has given such a writer time to arrive: `settle` then lets
            // it finish and puts its save back under the entry's name.
            if leased {
                ownsDescriptor = false
                swapped = SwappedOriginal(fd: fd, path: path, mode: mode, stamped: stamped)
            }
        } else if errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP {
            // A filesystem that cannot exchange: a plain rename over; the last look above is the guard.
            guard rename(temporary.path, path) == 0 else {
                let error = SystemError("rename", path: path)
                unlink(temporary.path)
                throw error
            }
        } else {
            let error = SystemError("renameat2", path: path)
            unlink(temporary.path)
            throw error
        }
        if syncsFolder { try FileIO.fsyncDirectory(directory) }
        if let swapped {
            if let keepOriginal {
                keepOriginal(swapped)
            } else if try swapped.settle() {
                return .changedWhileStamping
            }
        }
        blockNow(written)
        contentNow(content, keepModificationTime ? modified : Date(), stamped)
        return restoring ? .restored(stamped) : .stamped(stamped)
    }

    /// The original, swapped out of the entry's name and unlinked, still open. A writer whose open found it by the
    /// name just before the exchange reaches it only once our lease is gone (its open waited on the lease), and
    /// what it writes would go to a file without a name: `settle` looks for such a writer once the folder's fsync
    /// has given it time, and puts its save back. Owns its descriptor.
    final class SwappedOriginal: @unchecked Sendable {
        private let fd: Int32
        let path: String
        private let mode: mode_t
        private let stamped: FileVersion

        init(fd: Int32, path: String, mode: mode_t, stamped: FileVersion) {
            self.fd = fd
            self.path = path
            self.mode = mode
            self.stamped = stamped
        }

        deinit { close(self.fd) }

        /// Whether a late writer's save was put back under the entry's name (it is to be stamped again). The lease
        /// is still held: a writer that reached the original broke it and waits for us.
        func settle() throws -> Bool {
            guard clinux_read_lease_intact(self.fd) != 1 else { return false }
            try EntryFile.rescueLateWriter(original: self.fd, path: self.path, mode: self.mode, stamped: self.stamped)
            return true
        }
    }

    /// A writer is opening the original after it lost its name. It is let in; once it has closed the file (a read
    /// lease can be taken again only when nobody has it open for writing), what it wrote replaces our stamped copy
    /// under the entry's name, as its save meant to (beside it, as `NAME.edited-while-stamping`, should the entry be
    /// something newer by then). Gives up waiting after a minute, keeping what is there then.
    fileprivate static func rescueLateWriter(
        original fd: Int32, path: String, mode: mode_t, stamped: FileVersion
    ) throws {
        clinux_release_lease(fd)
        let deadline = ContinuousClock.now + .seconds(60)
        while clinux_take_read_lease(fd) != 0, errno == EAGAIN || errno == EBUSY, ContinuousClock.now < deadline {
            usleep(500)
        }
        var content: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(content.count)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            content += chunk[0..<count]
        }
        let stillOurs = FileVersion.current(path)?.isSameFile(as: stamped) == true
        try FileIO.writeAtomically(content, to: stillOurs ? path : path + ".edited-while-stamping", mode: mode)
    }

    /// Asked once: `geteuid` was one system call per stamped entry.
    private static let effectiveUserID = geteuid()

    /// Looks for each of the lock files an editor keeps beside `name`.
    private static func probeLock(for name: String, in directory: String) -> EditorLock? {
        EditorLock.candidates(for: name).first { lock in
            var info = stat()
            return lstat(directory + "/" + lock.file, &info) == 0
        }
    }

    /// Undoes an exchange: the edited original goes back under its name and our copy is dropped. Should even that
    /// fail (the name was taken away meanwhile), the original is kept under a visible name rather than lost.
    private static func exchangeBack(temporary: String, path: String) throws {
        if clinux_exchange(temporary, path) == 0 {
            unlink(temporary)
            return
        }
        let kept = path + ".edited-while-stamping"
        guard rename(temporary, kept) == 0 else { throw SystemError("rename", path: kept) }
        throw SystemError("renameat2", path: path + " (the edited original was kept as \(kept))")
    }

    /// Why the replacement must not go over the original, if it must not. Not running as root, the replacement is
    /// ours and cannot be given back to the original's owner (nor, under the system unit's filter, to its group):
    /// its owner keeps write access only when the entry is group-writable and stays in its group.
    static func wouldLockOutItsOwner(original: stat, replacement: stat) -> OwnerLockout? {
        guard original.st_uid != replacement.st_uid else { return nil }
        let notGroupWritable = original.st_mode & S_IWGRP == 0
        guard notGroupWritable || original.st_gid != replacement.st_gid else { return nil }
        return OwnerLockout(
            owner: original.st_uid, group: original.st_gid, stamper: replacement.st_uid,
            stamperGroup: replacement.st_gid, notGroupWritable: notGroupWritable)
    }

    private static func kind(_ mode: mode_t) -> LeftAloneReason.FileKind {
        switch mode & S_IFMT {
        case S_IFDIR: return .folder
        case S_IFIFO: return .fifo
        case S_IFCHR, S_IFBLK: return .device
        case S_IFSOCK: return .socket
        default: return .other
        }
    }
}
