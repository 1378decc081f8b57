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
/// 3. Read; decide what to write (`StampDecision`, pure, in Core); write a temp file next to it, fsync.
/// 4. Last look: lease intact (without a lease: the same size and modification time).
/// 5. Exchange the temp file and the entry in one step (`RENAME_EXCHANGE`), so the original stays linked under
///    the temp name; look at what the temp name holds now, and if the entry's name held another file (a save by
///    rename), exchange back. (Where the filesystem cannot exchange: the same file under the name, then a rename.)
/// 6. Unlink the original, fsync the folder; then, still holding the lease, see whether a writer reached the
///    original meanwhile, and put its save back under the entry's name.
///
/// At every instant the entry's name holds either the original or the original plus the stamp.
enum EntryFile {
    /// What is known of the entry besides its bytes.
    struct Known {
        /// The block remembered for it: given back when it has none (nil: new weather), its own when it has one.
        var remembered: () -> [String]? = { nil }
        /// It is a template by the vault's settings (`InboxTree.template`).
        var template: TemplateSign?
        /// What the memory says of a block found in it (`StampMemory.provenance`), asked only when needed.
        var provenance: ([String]) -> BlockProvenance = { _ in .unknown }
        /// Whether the file, in this version, stopped the daemon when it was last stamped (`CrashGuard`).
        var setAside: (FileVersion) -> Bool = { _ in false }
        /// A batch's listings of editors' lock files; nil: one entry alone looks for each name.
        var locks: EditorLockCache?
    }

    /// Where tests act at the worst moments.
    struct Hooks {
        /// After the temp file is written, before the last look: tests change the original there.
        var beforeRename: () -> Void = {}
        /// After the last look, right before the exchange: tests save over the entry there, as an editor renaming
        /// its new file over the old one does.
        var beforeExchange: () -> Void = {}
        /// Right after the exchange, before the look that may undo it.
        var afterExchange: () -> Void = {}
        /// The copy's fsync (`fsync(2)`'s answer, errno set): tests make it fail, which no filesystem here can be
        /// made to do on purpose for one file of many.
        var sync: (Int32) -> Int32 = { fsync($0) }
    }

    /// A stamp's result, and what it learned on the way.
    struct Stamped {
        var result: EntryResult
        /// The bytes the file holds when done, its modification time and version, whenever it was read (stamped,
        /// restored, there already, back-dated, or left alone for its content): for the diary index.
        var read: (content: [UInt8], modified: Date, version: FileVersion)?
        /// The block the file holds when done (stamped, restored or there already): to remember.
        var block: [String]?
        /// The swapped-out original, with `handsBackOriginal`.
        var original: SwappedOriginal?
        /// The front matter of `read` as the stamp composed it (stamped, restored or there already): the index
        /// does not compose it again.
        var frontMatter: ComposedFrontMatter?

        init(
            _ result: EntryResult, read: (content: [UInt8], modified: Date, version: FileVersion)? = nil,
            block: [String]? = nil, original: SwappedOriginal? = nil, frontMatter: ComposedFrontMatter? = nil
        ) {
            self.result = result
            self.read = read
            self.block = block
            self.original = original
            self.frontMatter = frontMatter
        }
    }

    /// Stamps the file at `path` with `lines` (the block of current weather; nil while none can be had: an entry
    /// that needs it comes back `.needsWeather` untouched, and what needs none goes on).
    static func stamp(
        path: String, lines: [String]?, options: StampOptions = StampOptions(), known: Known = Known(),
        hooks: Hooks = Hooks()
    ) throws -> Stamped {
        switch try Self.prepare(path: path, lines: lines, options: options, known: known) {
        case .done(let stamped): return stamped
        case .written(let prepared): return try Self.finish(prepared, options: options, hooks: hooks)
        }
    }

    /// An entry read, and its stamped copy written beside it but not synced yet: `finish` makes it the stamp, or
    /// `abandon` drops it. Owns the entry's descriptor and the copy's.
    struct Prepared {
        var path: String
        var opened: Opened
        var temporary: Temporary
        var content: [UInt8]
        var block: [String]
        var restoring: Bool
        var modified: Date
        var frontMatter: ComposedFrontMatter?

        /// The copy on the disk and closed (`Temporary.sync`), ahead of `finish`: a batch syncs its chunk's copies
        /// before it exchanges the first.
        mutating func sync(_ hooks: Hooks) throws { try self.temporary.sync(hooks.sync) }
    }

    enum Preparation {
        /// Nothing to write (or nothing may be): the entry's result.
        case done(Stamped)
        case written(Prepared)
    }

    /// Steps 1 to 3 but the copy's fsync: the entry opened, leased and read, the decision taken, the copy written
    /// (its writeback started, with `options.startsWriteback`).
    static func prepare(
        path: String, lines: [String]?, options: StampOptions = StampOptions(), known: Known = Known()
    ) throws -> Preparation {
        let (directory, name) = FileIO.split(path)
        let opened: Opened
        switch try Self.open(path, directory: directory, name: name, options: options, known: known) {
        case .opened(let file): opened = file
        case .refused(let result): return .done(Stamped(result))
        }
        // Closed when this returns, unless it is handed on with the copy.
        var ownsDescriptor = true
        defer { if ownsDescriptor { close(opened.fd) } }
        let info = opened.info
        let original: [UInt8]
        do {
            original = try FileIO.readAll(
                opened.fd, path: path, limit: options.maximumSize, expected: Int(info.st_size))
        } catch let error as SystemError where error.code == EFBIG {
            return .done(Stamped(.changedWhileStamping))
        }
        // (A change during the read is caught by the last look below, before anything is written over.)
        guard original.count == Int(info.st_size) else { return .done(Stamped(.changedWhileStamping)) }
        #if DEBUG
            TestFaults.crashIfAsked(original)
        #endif

        let modified = Date(
            timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        let read = (original, modified, opened.before)
        let (decision, frontMatter) = StampDecision.decideComposing(
            original, name: name, modified: modified, lines: lines, format: options.format,
            replacing: options.replacing, backdating: options.backdating,
            known: StampDecision.Known(
                remembered: options.replacing ? { nil } : known.remembered, template: known.template,
                ownership: options.ownership, provenance: known.provenance))
        let content: [UInt8]
        let block: [String]
        let restoring: Bool
        switch decision {
        case .write(let bytes, let written, let restored): (content, block, restoring) = (bytes, written, restored)
        case .alreadyStamped(let block):
            return .done(Stamped(.alreadyStamped(opened.before), read: read, block: block, frontMatter: frontMatter))
        case .leftAlone(let reason): return .done(Stamped(.leftAlone(reason, opened.before), read: read))
        case .wantsHistory(let request): return .done(Stamped(.wantsHistory(request), read: read))
        case .datedAhead(let time, let wait): return .done(Stamped(.datedAhead(time, wait: wait), read: read))
        case .needsWeather: return .done(Stamped(.needsWeather, read: read))
        }

        switch try Self.writeTemporary(content, like: info, directory: directory, name: name, options: options) {
        case .written(let temporary):
            ownsDescriptor = false
            return .written(
                Prepared(
                    path: path, opened: opened, temporary: temporary, content: content, block: block,
                    restoring: restoring, modified: modified, frontMatter: frontMatter))
        case .refused(let reason): return .done(Stamped(.leftAlone(reason, opened.before)))
        }
    }

    /// Steps 3 (the copy's fsync) to 6: the prepared copy synced and exchanged with the entry.
    static func finish(_ prepared: Prepared, options: StampOptions, hooks: Hooks = Hooks()) throws -> Stamped {
        let (path, opened) = (prepared.path, prepared.opened)
        // Closed when this returns, unless it is handed on with the swapped-out original (which then closes it).
        var ownsDescriptor = true
        defer { if ownsDescriptor { close(opened.fd) } }
        var temporary = prepared.temporary
        try temporary.sync(hooks.sync)  // (synced already by a batch: nothing more)
        if let result = try Self.exchange(&temporary, with: path, opened: opened, hooks: hooks) {
            return Stamped(result)
        }
        // A writer that found the original by its name just before the exchange may reach it only now: its open
        // waits on our lease, and what it writes would go to a file without a name. The lease is kept, and the
        // original with it, until the folder's fsync has given such a writer time to arrive: `settle` then lets it
        // finish and puts its save back under the entry's name.
        var swapped: SwappedOriginal?
        if opened.leased, temporary.exchanged {
            ownsDescriptor = false
            swapped = SwappedOriginal(
                fd: opened.fd, path: path, mode: opened.info.st_mode & 0o7777, stamped: temporary.version)
        }
        if options.syncsFolder { try FileIO.fsyncDirectory(FileIO.split(path).0) }
        if let swapped, !options.handsBackOriginal, try swapped.settle() {
            return Stamped(.changedWhileStamping)
        }
        let now = (
            prepared.content, options.keepModificationTime ? prepared.modified : Date(), temporary.version
        )
        return Stamped(
            prepared.restoring ? .restored(temporary.version) : .stamped(temporary.version), read: now,
            block: prepared.block, original: options.handsBackOriginal ? swapped : nil,
            frontMatter: prepared.frontMatter)
    }

    /// What `rewrite` makes of a file's bytes.
    enum Rewrite {
        /// These bytes in its place.
        case write([UInt8])
        /// Nothing written, for this reason.
        case leave(String)
    }

    /// One file rewritten in place with a stamp's safety (steps 1 to 6: no editor, the lease, the copy synced and
    /// exchanged, a last look, the folder synced), its new bytes decided by `change` from what was read: what
    /// `weathertag stamp --remove` writes with. `.stamped` when written; `.leftAlone(.content(…))` never: a refusal
    /// of `change` comes back as its words.
    static func rewrite(
        path: String, options: StampOptions, change: ([UInt8]) -> Rewrite
    ) throws -> Result<EntryResult, RewriteRefusal> {
        let (directory, name) = FileIO.split(path)
        let opened: Opened
        switch try Self.open(path, directory: directory, name: name, options: options, known: Known()) {
        case .opened(let file): opened = file
        case .refused(let result): return .success(result)
        }
        var ownsDescriptor = true
        defer { if ownsDescriptor { close(opened.fd) } }
        let original = try FileIO.readAll(
            opened.fd, path: path, limit: options.maximumSize, expected: Int(opened.info.st_size))
        guard original.count == Int(opened.info.st_size) else { return .success(.changedWhileStamping) }
        let content: [UInt8]
        switch change(original) {
        case .write(let bytes): content = bytes
        case .leave(let why): return .failure(RewriteRefusal(reason: why))
        }
        switch try Self.writeTemporary(content, like: opened.info, directory: directory, name: name, options: options)
        {
        case .refused(let reason): return .success(.leftAlone(reason, opened.before))
        case .written(let temporary):
            ownsDescriptor = false
            let modified = Date(
                timeIntervalSince1970: Double(opened.info.st_mtim.tv_sec) + Double(opened.info.st_mtim.tv_nsec) / 1e9)
            let prepared = Prepared(
                path: path, opened: opened, temporary: temporary, content: content, block: [], restoring: false,
                modified: modified, frontMatter: nil)
            return .success(try Self.finish(prepared, options: options).result)
        }
    }

    /// Why `rewrite` wrote nothing, in `change`'s words.
    struct RewriteRefusal: Error {
        var reason: String
    }

    /// Drops a prepared copy that will not be finished (its batch stopped): the copy goes, the entry is as it was.
    static func abandon(_ prepared: Prepared) {
        if prepared.temporary.fd >= 0 { close(prepared.temporary.fd) }
        unlink(prepared.temporary.path)
        close(prepared.opened.fd)
    }

    /// The entry, open and leased, and what it was when opened.
    struct Opened {
        var fd: Int32
        var info: stat
        var before: FileVersion
        /// Whether a read lease guards it (where leases are not available, `stat` comparisons are the only guard).
        var leased: Bool

        /// Nobody opened the original for writing, and it is the version we read. Under an intact lease it cannot
        /// be another version (nobody could open it for writing since we read it): the `fstat` is for no lease.
        var untouched: Bool {
            self.leased ? clinux_read_lease_intact(self.fd) == 1 : FileVersion.current(self.fd) == self.before
        }
    }

    enum Opening {
        case opened(Opened)
        case refused(EntryResult)
    }

    /// Steps 1 and 2: no editor has it open, it is a regular file of one link that its owner may read and write,
    /// not too large, not set aside, and nobody has it open for writing (the lease).
    private static func open(
        _ path: String, directory: String, name: String, options: StampOptions, known: Known
    ) throws -> Opening {
        // An editor that has the entry open keeps its swap or lock file beside it: not now. A batch lists each
        // folder once for them (`EditorLockCache`); one entry alone looks for each name.
        if let lock = known.locks?.lock(for: name, in: directory)
            ?? (known.locks == nil ? Self.probeLock(for: name, in: directory) : nil)
        {
            return .refused(.locked(lock))
        }
        // Never through a symlink; a FIFO does not hang; the access time left as it was (`FileIO.openToRead`).
        let fd = FileIO.openToRead(path)
        if fd < 0 {
            switch errno {
            case ENOENT: return .refused(.vanished)
            case ELOOP: return .refused(.leftAlone(.notRegularFile(.symbolicLink), FileVersion.current(path)))
            case EACCES: return .refused(.leftAlone(.permissionDenied, FileVersion.current(path)))
            default: throw SystemError("open", path: path)
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            throw SystemError("stat", path: path)
        }
        let before = FileVersion(info)
        let refusal: EntryResult?
        if info.st_mode & S_IFMT != S_IFREG {
            refusal = .leftAlone(.notRegularFile(Self.kind(info.st_mode)), before)
        } else if info.st_nlink != 1 {
            refusal = .leftAlone(.hardLinks(Int(info.st_nlink)), before)
        } else if info.st_mode & S_IWUSR == 0 {
            // The author's own "do not touch": honoured even where we could write (as root, or by rename).
            refusal = .leftAlone(.readOnly, before)
        } else if info.st_mode & S_IRUSR == 0 {
            refusal = .leftAlone(.noReadPermission, before)
        } else if Int(info.st_size) > options.maximumSize {
            refusal = .leftAlone(.tooLarge(limit: options.maximumSize), before)
        } else if known.setAside(before) {
            // The daemon stopped while stamping it, in this version: not read again until it changes.
            refusal = .leftAlone(.stoppedTheDaemon, before)
        } else if clinux_take_read_lease(fd) == 0 {
            return .opened(Opened(fd: fd, info: info, before: before, leased: true))
        } else if errno == EAGAIN || errno == EBUSY {
            refusal = .inUse
        } else {
            return .opened(Opened(fd: fd, info: info, before: before, leased: false))
        }
        close(fd)
        return .refused(refusal ?? .inUse)
    }

    /// The stamped copy, written beside the entry, and open until it is synced (`sync`).
    struct Temporary {
        var path: String
        /// Open for `sync`, which closes it.
        var fd: Int32
        /// The copy's version (mode and owner changes leave the size and modification time as they are).
        var version: FileVersion
        /// Whether the copy and the entry were exchanged (the original then sits under the temp name until
        /// unlinked) rather than renamed over.
        var exchanged = false

        /// On the disk before any name points at it, and closed: before the exchange, since closed after it our
        /// descriptor would report `IN_CLOSE_WRITE` under the entry's name and bring the entry we just stamped back
        /// to be read again. Removed when it cannot be synced; once synced, nothing more.
        mutating func sync(_ fsync: (Int32) -> Int32) throws {
            guard self.fd >= 0 else { return }
            let failure = fsync(self.fd) == 0 ? nil : SystemError("fsync", path: self.path)
            close(self.fd)
            self.fd = -1
            if let failure {
                unlink(self.path)
                throw failure
            }
        }
    }

    enum Writing {
        case written(Temporary)
        case refused(LeftAloneReason)
    }

    /// Step 3: `content` in a temp file beside the entry, with the entry's mode, owner (when we may set it) and
    /// times; left open for its fsync (`Temporary.sync`). Refused when the owner would lose access to the entry.
    private static func writeTemporary(
        _ content: [UInt8], like info: stat, directory: String, name: String, options: StampOptions
    ) throws -> Writing {
        let mode = info.st_mode & 0o7777
        let temporary = try FileIO.createTemporary(directory: directory, name: name, mode: mode)
        do {
            try FileIO.writeAll(temporary.fd, content, path: temporary.path)
            // The umask may have narrowed the mode; the owner should not change either (when we may set it).
            var created = stat()
            guard fstat(temporary.fd, &created) == 0 else { throw SystemError("stat", path: temporary.path) }
            if created.st_mode & 0o7777 != mode { _ = fchmod(temporary.fd, mode) }
            if Self.effectiveUserID == 0, created.st_uid != info.st_uid || created.st_gid != info.st_gid {
                _ = fchown(temporary.fd, info.st_uid, info.st_gid)
            } else if let lockout = Self.wouldLockOutItsOwner(original: info, replacement: created) {
                close(temporary.fd)
                unlink(temporary.path)
                return .refused(.ownerWouldLoseAccess(lockout))
            }
            // The author's modification time stays: for many diaries it is the only record of when an entry was
            // written (`stamp.keep_mtime`).
            if options.keepModificationTime {
                var times = [info.st_atim, info.st_mtim]
                guard futimens(temporary.fd, &times) == 0 else { throw SystemError("futimens", path: temporary.path) }
                created.st_mtim = info.st_mtim
            }
            // The copy's blocks go to the disk now, beside the batch's other copies, and their allocations join one
            // journal transaction: the first copy's fsync commits it and the others' find it committed
            // (`EntryBatch`). Only a hint: a failure here is the fsync's to report.
            if options.startsWriteback { _ = clinux_start_writeback(temporary.fd) }
            return .written(Temporary(path: temporary.path, fd: temporary.fd, version: FileVersion(created)))
        } catch {
            close(temporary.fd)
            unlink(temporary.path)
            throw error
        }
    }

    /// Steps 4 and 5: the last look, then the copy takes the entry's name (exchanged, or renamed over where the
    /// filesystem cannot exchange), undone when the name held another file by then. Nil when the copy holds the
    /// name; else why not (nothing was overwritten).
    ///
    /// Whether the name still holds the file we read is looked at after the exchange, not before: the look after it
    /// is needed anyway (a save can land between any look and the exchange) and undoes it, so a look before it only
    /// cost a `stat` an entry. A plain rename cannot be undone, and looks first.
    private static func exchange(
        _ temporary: inout Temporary, with path: String, opened: Opened, hooks: Hooks
    ) throws -> EntryResult? {
        hooks.beforeRename()
        guard opened.untouched else {
            unlink(temporary.path)
            return FileIO.exists(path) ? .changedWhileStamping : .vanished
        }
        hooks.beforeExchange()
        if clinux_exchange(temporary.path, path) == 0 {
            hooks.afterExchange()
            // The original now sits under the temp name. A writer that opened it in the last microseconds broke
            // the lease: give it its file back. And an editor's save that renamed a new file over the entry
            // between the last look and the exchange left *that* file under the temp name, not the one we read:
            // it goes back under the entry's name, and our copy, made from the older version, is dropped.
            // (Under the lease, a writer that reached the original since the last look broke it: `settle`, after the
            // folder's fsync, finds that and puts its save back. Without a lease, the version is compared here.)
            guard opened.leased || FileVersion.current(opened.fd) == opened.before,
                FileVersion.current(temporary.path)?.isSameFile(as: opened.before) == true
            else {
                try Self.exchangeBack(temporary: temporary.path, path: path)
                return .changedWhileStamping
            }
            unlink(temporary.path)
            temporary.exchanged = true
            return nil
        }
        if errno == ENOENT {
            // The entry's name is gone (deleted or moved away since it was read).
            unlink(temporary.path)
            return .vanished
        }
        guard errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP else {
            let error = SystemError("renameat2", path: path)
            unlink(temporary.path)
            throw error
        }
        // A filesystem that cannot exchange: a plain rename over, after a last look at the name.
        guard FileVersion.current(path) == opened.before else {
            unlink(temporary.path)
            return FileIO.exists(path) ? .changedWhileStamping : .vanished
        }
        guard rename(temporary.path, path) == 0 else {
            let error = SystemError("rename", path: path)
            unlink(temporary.path)
            throw error
        }
        return nil
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
