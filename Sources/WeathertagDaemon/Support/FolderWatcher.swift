import Glibc
import Synchronization

/// Tells when anything in a few folders changed (written, grown, created, moved, removed), for the `track`
/// provider: it does not say what, the provider looks, and hands the folders it found to `watch`.
/// `waitForChanges` blocks: call it on a thread of its own.
final class FolderWatcher: Sendable {
    private let inotifyFD: Int32
    private let wakeFD: Int32
    private let wakeWriteFD: Int32
    /// The folder of each watch descriptor.
    private let watched = Mutex<[Int32: String]>([:])

    private static let mask: UInt32 =
        UInt32(IN_CLOSE_WRITE) | UInt32(IN_MODIFY) | UInt32(IN_MOVED_FROM) | UInt32(IN_MOVED_TO) | UInt32(IN_DELETE)
        | UInt32(IN_CREATE) | UInt32(IN_ONLYDIR) | UInt32(IN_DONT_FOLLOW)

    init(folders: [String]) throws(SystemError) {
        self.inotifyFD = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard self.inotifyFD >= 0 else { throw SystemError("inotify_init1", path: folders.first ?? "") }
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else {
            close(self.inotifyFD)
            throw SystemError("pipe", path: folders.first ?? "")
        }
        for fd in pipeFDs {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        self.wakeFD = pipeFDs[0]
        self.wakeWriteFD = pipeFDs[1]
        for folder in folders {
            let watch = inotify_add_watch(self.inotifyFD, folder, Self.mask)
            guard watch >= 0 else { throw SystemError("inotify_add_watch", path: folder) }
            self.watched.withLock { $0[watch] = folder }
        }
    }

    deinit {
        close(self.inotifyFD)
        close(self.wakeFD)
        close(self.wakeWriteFD)
    }

    private let stopped = Atomic(false)

    /// Ends `waitForChanges` from another thread, and tells work in between to end (`isStopped`).
    func stop() {
        self.stopped.store(true, ordering: .relaxed)
        var byte: UInt8 = 1
        _ = write(self.wakeWriteFD, &byte, 1)
    }

    /// `stop()` was called: a long read (the first indexing of a year of points) ends at its next chunk.
    var isStopped: Bool { self.stopped.load(ordering: .relaxed) }

    /// Waits for changes and reads every event queued; false once stopped.
    func waitForChanges() -> Bool {
        var fds = [
            pollfd(fd: self.inotifyFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: self.wakeFD, events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return false
            }
            if fds[1].revents != 0 { return false }
            var changed = false
            while true {
                let count = buffer.withUnsafeMutableBytes { read(self.inotifyFD, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                changed = true
                // A folder that went (deleted, moved away) is forgotten, so that one made again is watched anew.
                var offset = 0
                while offset + 16 <= count {
                    let (watch, mask, length) = buffer.withUnsafeBytes {
                        (
                            $0.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                            $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                            Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                        )
                    }
                    if mask & UInt32(IN_IGNORED) != 0 { _ = self.watched.withLock { $0.removeValue(forKey: watch) } }
                    offset += 16 + length
                }
            }
            if changed { return true }
        }
    }

    /// Watches these folders too (the ones a look found below the watched ones); returns how many were new, so
    /// that the caller looks once more at what was written in them before their watch was in place.
    func watch(_ folders: [String]) -> Int {
        let known = Set(self.watched.withLock { $0.values })
        var added = 0
        for folder in folders where !known.contains(folder) {
            let watch = inotify_add_watch(self.inotifyFD, folder, Self.mask)
            guard watch >= 0 else { continue }
            self.watched.withLock { $0[watch] = folder }
            added += 1
        }
        return added
    }
}
