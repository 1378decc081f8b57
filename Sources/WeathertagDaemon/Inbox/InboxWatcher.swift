import Glibc
import Logging
import Synchronization
import WeathertagCore

/// What the watcher saw in the inbox.
enum InboxEvent: Sendable, Equatable {
    /// Files were written and closed, or moved in: their names wait in `Arrivals`.
    case arrived
    /// Look at everything: after a queue overflow, after the folder came back.
    case rescan
    /// Some folders could not be watched (`fs.inotify.max_user_watches` reached): they must be polled.
    case watchesExhausted
}

/// Watches the inbox and its folders (as `InboxTree` allows) with inotify, on a thread of its own (reads block),
/// and puts the entries' paths, relative to the inbox, in `Arrivals`.
///
/// Only `IN_CLOSE_WRITE` and `IN_MOVED_TO` count for files: a file announced by `IN_CREATE` may still be half
/// written. A move whose source is one of our own temp files is our own stamp landing, and is not reported. A
/// folder created or moved in is watched at once and what it already holds is reported (`mkdir -p 2026/11 &&
/// echo … > 2026/11/23.md` races the watch); one moved away or deleted is forgotten. Folders are watched with
/// `IN_DONT_FOLLOW`: a symbolic link is never followed.
final class InboxWatcher: Sendable {
    private let path: String
    private let tree: InboxTree
    /// Told when a lock or swap file comes or goes, and when the watcher cannot see every folder.
    private let editorLocks: EditorLockCache?
    /// Told when a sync tool's conflict copy comes or goes.
    private let conflicts: SyncConflictRegistry?
    private let logger: Logger
    /// The inotify instance (internal: a test puts something else in its descriptor's place).
    let inotify: InotifyReader
    /// The watched folders by watch descriptor, relative to the inbox (`""` is the inbox). After `init`, only the
    /// watcher's thread changes it.
    private let folders = Mutex(Folders())

    private struct Folders {
        var byWatch: [Int32: String] = [:]
        /// `fs.inotify.max_user_watches` was reached, and said so.
        var exhausted = false
    }

    init(
        path: String, tree: InboxTree = InboxTree(recursive: false), editorLocks: EditorLockCache? = nil,
        conflicts: SyncConflictRegistry? = nil, logger: Logger
    ) throws {
        self.path = path
        self.tree = tree
        self.editorLocks = editorLocks
        self.conflicts = conflicts
        self.logger = logger
        self.inotify = try InotifyReader(path: path)
        // Every folder is watched before the first listing: nothing dropped in between is missed.
        try self.watchInbox()
    }

    private static let mask: UInt32 =
        UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_FROM) | UInt32(IN_MOVED_TO) | UInt32(IN_DELETE) | UInt32(IN_CREATE)
        | UInt32(IN_ONLYDIR) | UInt32(IN_DONT_FOLLOW) | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)

    /// Whether some folders are not watched for want of inotify watches.
    var watchesExhausted: Bool { self.folders.withLock { $0.exhausted } }

    /// Watches the inbox and the folders below it.
    private func watchInbox() throws(SystemError) {
        let watch = try self.inotify.addWatch(self.path, mask: Self.mask).get()
        self.folders.withLock { $0.byWatch = [watch: ""] }
        // The entries already there are the first listing's to find (`InboxListing`): only the folders are read.
        _ = self.watch(subtree: "", collecting: false)
    }

    /// Watches the folders from `folder` down (`folder` itself unless it is the inbox) and returns the entries
    /// they hold (none unless `collecting`).
    private func watch(subtree folder: String, collecting: Bool = true) -> [String] {
        var entries: [String] = []
        InboxWalk.walk(
            inbox: self.path, from: folder, tree: self.tree, reading: collecting ? .sorted : .foldersOnly,
            // Watched before it is read: a file made in between (`mkdir -p a/b && echo > a/b/c.md`) is either in the
            // listing or heard by the watch, never neither.
            entering: { folder in if !folder.isEmpty { self.addWatch(folder) } },
            visit: { folder, contents in
                for name in contents.files {
                    let entry = InboxTree.join(folder, name)
                    if self.tree.isEntry(entry) { entries.append(entry) }
                }
            },
            failed: { folder, error in
                self.logger.warning(
                    "cannot read a folder of the inbox", metadata: ["folder": "\(folder)", "error": "\(error)"])
            })
        return entries
    }

    private func addWatch(_ folder: String) {
        let error: SystemError
        switch self.inotify.addWatch(InboxWalk.path(self.path, folder), mask: Self.mask) {
        case .success(let watch):
            self.folders.withLock { $0.byWatch[watch] = folder }
            return
        case .failure(let failure): error = failure
        }
        guard error.code == ENOSPC else {
            self.logger.warning("cannot watch a folder of the inbox", metadata: ["error": "\(error)"])
            return
        }
        let first = self.folders.withLock { folders in
            defer {
                folders.exhausted = true
                self.editorLocks?.stopKeeping()
            }
            return !folders.exhausted
        }
        if first {
            self.logger.error(
                """
                cannot watch every folder: fs.inotify.max_user_watches is reached; the folders left are polled \
                (raise it: sysctl fs.inotify.max_user_watches=524288)
                """,
                metadata: ["folder": "\(folder)"]
            )
        }
    }

    /// Forgets `folder` and the folders below it (moved away or deleted).
    private func unwatch(subtree folder: String) {
        self.folders.withLock { folders in
            for (watch, path) in folders.byWatch where path == folder || path.hasPrefix(folder + "/") {
                self.inotify.removeWatch(watch)
                folders.byWatch[watch] = nil
            }
        }
    }

    /// Ends `run` from another thread.
    func stop() {
        self.inotify.stop()
    }

    /// Blocks until `stop()`, adding the entries of each read to `arrivals` (`.arrived` when the list was empty) and
    /// reporting the other events. Call on a thread of its own. Throws when inotify itself fails: the inbox would
    /// no longer be watched, and the service must stop rather than carry on blind.
    ///
    /// Renames and removals go to `changed` as they are read (before the arrivals they come with), for the memory to
    /// follow; the two halves of a move are paired by their cookie within a read.
    func run(
        into arrivals: Arrivals,
        changed: ([PathChange]) -> Void = { _ in },
        _ report: (InboxEvent) -> Void
    ) throws(SystemError) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var watching = true
        var moves = MoveCookies()
        if self.watchesExhausted { report(.watchesExhausted) }
        while true {
            // While the inbox is gone, look for it once a second; otherwise wait for events.
            let events: [Event]
            do {
                switch try self.inotify.wait(milliseconds: watching ? -1 : 1000, buffer: &buffer) {
                case .stopped: return
                case .timedOut: events = []
                case .events(let read): events = read
                }
            } catch {
                throw SystemError(error.operation, path: self.path, code: error.code)
            }
            if !watching {
                if (try? self.watchInbox()) != nil {
                    watching = true
                    self.logger.notice("inbox is back, watching again", metadata: ["inbox": "\(self.path)"])
                    report(.rescan)
                }
                continue
            }
            guard !events.isEmpty else { continue }
            let exhaustedBefore = self.watchesExhausted
            var names: [String] = []
            var changes = Changes()
            for event in events {
                switch self.handle(event, moves: &moves, names: &names, changes: &changes) {
                case .none: break
                case .rescan: report(.rescan)
                case .inboxGone:
                    if watching {
                        self.logger.error("inbox folder was removed or moved away", metadata: ["inbox": "\(self.path)"])
                    }
                    watching = false
                    self.unwatch(subtree: "")
                }
            }
            // A move whose other half did not come in this read left the inbox.
            for (from, isFolder) in changes.movedFrom.values {
                if let change = PathChange.move(from: from, to: nil, isFolder: isFolder, tree: self.tree) {
                    changes.list.append(change)
                }
            }
            // Something under the name again (the two halves of a move split between reads, a file deleted and
            // written again at once) has not left: its memory stays.
            changes.list.removeAll { change in
                guard case .removed(let path) = change else { return false }
                return access(InboxWalk.path(self.path, path), F_OK) == 0
            }
            if !changes.list.isEmpty { changed(changes.list) }
            if arrivals.append(names) { report(.arrived) }
            if !exhaustedBefore && self.watchesExhausted { report(.watchesExhausted) }
            if changes.ownStamps { Self.letEventsGather() }
        }
    }

    /// While our own stamps are landing (a batch is under way), the next read waits a moment: a stamp makes about
    /// eight events (its temp file created, closed, exchanged twice over and removed), which came a read and a `poll`
    /// apiece, three and a half wake-ups of this thread an entry; now a read takes a millisecond's worth. Names that
    /// arrive meanwhile wait at most that long, and would wait for the batch anyway.
    private static func letEventsGather() {
        usleep(1000)
    }

    private typealias Event = InotifyReader.Event

    private enum Outcome { case none, rescan, inboxGone }

    /// Cookies of moves that started at one of our temp files (the two halves of a move come together).
    private struct MoveCookies {
        var own: Set<UInt32> = []

        mutating func insert(_ cookie: UInt32) {
            if self.own.count > 64 { self.own.removeAll() }
            self.own.insert(cookie)
        }
    }

    /// The renames and removals of one read, and the moves whose destination is not known yet (by cookie).
    private struct Changes {
        var list: [PathChange] = []
        /// The read held events of our own temp files: a batch is being stamped.
        var ownStamps = false
        var movedFrom: [UInt32: (path: String, isFolder: Bool)] = [:]

        mutating func moved(_ event: Event, path: String, tree: InboxTree) {
            let isFolder = event.has(IN_ISDIR)
            if event.has(IN_MOVED_FROM) {
                self.movedFrom[event.cookie] = (path, isFolder)
            } else if event.has(IN_MOVED_TO), let from = self.movedFrom.removeValue(forKey: event.cookie) {
                if let change = PathChange.move(from: from.path, to: path, isFolder: isFolder, tree: tree) {
                    self.list.append(change)
                }
            } else if event.has(IN_DELETE),
                let change = PathChange.move(
                    from: path, to: nil, isFolder: isFolder, tree: tree)
            {
                self.list.append(change)
            }
        }
    }

    /// One event: entries go to `names`, renames and removals to `changes`; what concerns the whole inbox is
    /// returned.
    private func handle(
        _ event: Event,
        moves: inout MoveCookies,
        names: inout [String],
        changes: inout Changes
    ) -> Outcome {
        if event.has(IN_Q_OVERFLOW) {
            self.editorLocks?.changed()
            self.logger.warning("inotify queue overflowed, rescanning the inbox")
            return .rescan
        }
        // A watch removed by us (a folder moved away) or after its folder went: nothing more to hear from it.
        guard let folder = self.folders.withLock({ $0.byWatch[event.watch] }) else { return .none }
        if event.has(IN_IGNORED) || event.has(IN_DELETE_SELF) || event.has(IN_MOVE_SELF) {
            // A folder below the inbox is handled by its parent's MOVED_FROM / DELETE.
            return folder.isEmpty ? .inboxGone : .none
        }
        let path = InboxTree.join(folder, event.name)
        // Our own temp files first (most events are a stamp's): their names are looked at for nothing else.
        let ours = event.name.hasPrefix(".") && event.name.hasSuffix(FileIO.temporarySuffix)
        if !ours, event.name.hasPrefix("."), EditorLock.entry(forLockFile: event.name) != nil {
            self.editorLocks?.changed()
        }
        if ours {
            changes.ownStamps = true
            // A stamp's exchange moves the entry under its temp name: the entry stays where it is.
            if event.has(IN_MOVED_TO) { changes.movedFrom[event.cookie] = nil }
        } else if event.has(IN_MOVED_FROM) || event.has(IN_MOVED_TO) || event.has(IN_DELETE) {
            changes.moved(event, path: path, tree: self.tree)
        }
        if event.has(IN_ISDIR) {
            if event.has(IN_MOVED_FROM) || event.has(IN_DELETE) {
                self.unwatch(subtree: path)
                self.conflicts?.folderGone(path)
            } else if event.has(IN_CREATE) || event.has(IN_MOVED_TO), self.tree.follows(folder: path) {
                names += self.watch(subtree: path)
            }
            return .none
        }
        if event.has(IN_CLOSE_WRITE) || event.has(IN_MOVED_TO) || event.has(IN_MOVED_FROM) || event.has(IN_DELETE) {
            self.conflicts?.observe(path, present: event.has(IN_CLOSE_WRITE) || event.has(IN_MOVED_TO))
        }
        if event.has(IN_MOVED_FROM) || event.has(IN_DELETE) {
            if event.has(IN_MOVED_FROM), ours {
                moves.insert(event.cookie)
            } else if !ours, let entry = EditorLock.entry(forLockFile: event.name) {
                // An editor closed the entry: its lock or swap file went. The entry is looked at again.
                names.append(InboxTree.join(folder, entry))
            }
        } else if event.has(IN_MOVED_TO), moves.own.remove(event.cookie) != nil {
            // Our own stamp landing.
        } else if event.has(IN_CLOSE_WRITE) || event.has(IN_MOVED_TO), self.tree.isEntry(path) {
            names.append(path)
        }
        return .none
    }
}
