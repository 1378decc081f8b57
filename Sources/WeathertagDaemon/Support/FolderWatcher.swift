import Glibc
import Synchronization

/// Tells when anything in a few folders changed (written, grown, created, moved, removed), for the `track`
/// provider: it does not say what, the provider looks, and hands the folders it found to `watch`.
/// `waitForChanges` blocks: call it on a thread of its own.
final class FolderWatcher: Sendable {
    private let inotify: InotifyReader
    /// The folder of each watch descriptor.
    private let watched = Mutex<[Int32: String]>([:])

    private static let mask: UInt32 =
        UInt32(IN_CLOSE_WRITE) | UInt32(IN_MODIFY) | UInt32(IN_MOVED_FROM) | UInt32(IN_MOVED_TO) | UInt32(IN_DELETE)
        | UInt32(IN_CREATE) | UInt32(IN_ONLYDIR) | UInt32(IN_DONT_FOLLOW)

    init(folders: [String]) throws(SystemError) {
        self.inotify = try InotifyReader(path: folders.first ?? "")
        for folder in folders {
            let watch = try self.inotify.addWatch(folder, mask: Self.mask).get()
            self.watched.withLock { $0[watch] = folder }
        }
    }

    /// Ends `waitForChanges` from another thread, and tells work in between to end (`isStopped`).
    func stop() {
        self.inotify.stop()
    }

    /// `stop()` was called: a long read (the first indexing of a year of points) ends at its next chunk.
    var isStopped: Bool { self.inotify.isStopped }

    /// Waits for changes and reads every event queued; false once stopped (or when inotify fails).
    func waitForChanges() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        var changed = false
        // Until something comes, then whatever else is queued already (no more waiting).
        while true {
            switch try? self.inotify.wait(milliseconds: changed ? 0 : -1, buffer: &buffer) {
            case .events(let events)?:
                changed = changed || !events.isEmpty
                // A folder that went (deleted, moved away) is forgotten, so that one made again is watched anew.
                for event in events where event.has(IN_IGNORED) {
                    _ = self.watched.withLock { $0.removeValue(forKey: event.watch) }
                }
            case .timedOut?: return true
            case .stopped?, nil: return false
            }
        }
    }

    /// Watches these folders too (the ones a look found below the watched ones); returns how many were new, so
    /// that the caller looks once more at what was written in them before their watch was in place.
    func watch(_ folders: [String]) -> Int {
        let known = Set(self.watched.withLock { $0.values })
        var added = 0
        for folder in folders where !known.contains(folder) {
            guard case .success(let watch) = self.inotify.addWatch(folder, mask: Self.mask) else { continue }
            self.watched.withLock { $0[watch] = folder }
            added += 1
        }
        return added
    }
}
