import Glibc
import Logging
import WeathertagCore

/// What the watcher saw in the inbox.
enum InboxEvent: Sendable, Equatable {
    /// Files were written and closed, or moved in: their names wait in `Arrivals`.
    case arrived
    /// Look at everything: after a queue overflow, after the folder came back.
    case rescan
}

/// Watches one folder with inotify on a thread of its own (reads block) and puts candidate names in `Arrivals`.
///
/// Only `IN_CLOSE_WRITE` and `IN_MOVED_TO` count: a file announced by `IN_CREATE` may still be half written.
/// A move whose source is one of our own temp files is our own stamp landing, and is not reported.
final class InboxWatcher: Sendable {
    private let path: String
    private let logger: Logger
    /// Internal, not private: a test puts something else in its place to make reading fail.
    let inotifyFD: Int32
    /// A self-pipe: writing to it wakes the blocked `poll` so `run` can return.
    private let wakeFD: Int32
    private let wakeWriteFD: Int32

    init(path: String, logger: Logger) throws {
        self.path = path
        self.logger = logger
        self.inotifyFD = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard self.inotifyFD >= 0 else { throw SystemError("inotify_init1", path: path) }
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else {
            close(self.inotifyFD)
            throw SystemError("pipe", path: path)
        }
        for fd in pipeFDs {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        self.wakeFD = pipeFDs[0]
        self.wakeWriteFD = pipeFDs[1]
        try self.addWatch()
    }

    deinit {
        close(self.inotifyFD)
        close(self.wakeFD)
        close(self.wakeWriteFD)
    }

    private static let mask: UInt32 =
        UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_FROM) | UInt32(IN_MOVED_TO) | UInt32(IN_DELETE) | UInt32(IN_ONLYDIR)
        | UInt32(IN_DELETE_SELF)
        | UInt32(IN_MOVE_SELF)

    private func addWatch() throws {
        guard inotify_add_watch(self.inotifyFD, self.path, Self.mask) >= 0 else {
            throw SystemError("inotify_add_watch", path: self.path)
        }
    }

    /// Ends `run` from another thread.
    func stop() {
        var byte: UInt8 = 1
        _ = write(self.wakeWriteFD, &byte, 1)
    }

    /// Blocks until `stop()`, adding the candidate names of each read to `arrivals` (`.arrived` when the list was
    /// empty) and reporting the other events. Call on a thread of its own. Throws when inotify itself fails: the
    /// inbox would no longer be watched, and the service must stop rather than carry on blind.
    func run(into arrivals: Arrivals, _ report: (InboxEvent) -> Void) throws(SystemError) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var fds = [
            pollfd(fd: self.inotifyFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: self.wakeFD, events: Int16(POLLIN), revents: 0),
        ]
        var watching = true
        // Cookies of moves that started at one of our temp files (the two halves of a move come together).
        var ownMoves: Set<UInt32> = []
        while true {
            // While the folder is gone, look for it once a second; otherwise wait for events.
            let ready = poll(&fds, 2, watching ? -1 : 1000)
            if ready < 0 {
                guard errno == EINTR else { throw SystemError("poll", path: self.path) }
                continue
            }
            if fds[1].revents != 0 { return }
            if !watching {
                if (try? self.addWatch()) != nil {
                    watching = true
                    self.logger.notice("inbox is back, watching again", metadata: ["inbox": "\(self.path)"])
                    report(.rescan)
                }
                continue
            }
            guard fds[0].revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(self.inotifyFD, $0.baseAddress, $0.count) }
            guard count > 0 else {
                guard count < 0, errno != EAGAIN, errno != EINTR else { continue }
                throw SystemError("read inotify events", path: self.path)
            }
            var offset = 0
            var names: [String] = []
            // inotify_event's flexible `name` is not imported: parse by offset (wd 0, mask 4, cookie 8, len 12, name 16).
            while offset + 16 <= count {
                let mask = Self.load(UInt32.self, buffer, offset + 4)
                let cookie = Self.load(UInt32.self, buffer, offset + 8)
                let length = Int(Self.load(UInt32.self, buffer, offset + 12))
                let nameBytes = buffer[(offset + 16)..<min(offset + 16 + length, count)].prefix { $0 != 0 }
                offset += 16 + length
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    self.logger.warning("inotify queue overflowed, rescanning the inbox")
                    report(.rescan)
                } else if mask & (UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF) | UInt32(IN_IGNORED)) != 0 {
                    if watching {
                        self.logger.error("inbox folder was removed or moved away", metadata: ["inbox": "\(self.path)"])
                    }
                    watching = false
                } else if mask & (UInt32(IN_MOVED_FROM) | UInt32(IN_DELETE)) != 0 {
                    if mask & UInt32(IN_MOVED_FROM) != 0,
                        nameBytes.starts(with: [UInt8(ascii: ".")])
                            && nameBytes.reversed().starts(with: FileIO.temporarySuffix.utf8.reversed())
                    {
                        if ownMoves.count > 64 { ownMoves.removeAll() }
                        ownMoves.insert(cookie)
                    } else if let entry = EditorLock.entry(forLockFile: String(decoding: nameBytes, as: UTF8.self)) {
                        // An editor closed the entry: its lock or swap file went. The entry is looked at again.
                        names.append(entry)
                    }
                } else if mask & UInt32(IN_MOVED_TO) != 0 && ownMoves.remove(cookie) != nil {
                    continue
                } else if mask & UInt32(IN_ISDIR) == 0 {
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    if InboxFilter.isCandidate(name) { names.append(name) }
                }
            }
            if arrivals.append(names) { report(.arrived) }
        }
    }

    private static func load<T: FixedWidthInteger>(_: T.Type, _ buffer: [UInt8], _ offset: Int) -> T {
        buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }
}
