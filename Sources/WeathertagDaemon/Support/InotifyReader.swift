import Glibc
import Synchronization

/// One inotify instance read the one way both watchers need (the inbox's and a track folder's): watches added and
/// removed by path, a blocking wait that a self-pipe ends from another thread, and each read's events parsed. The
/// parsing is by byte offset, as `inotify_event`'s flexible `name` is not imported into Swift (wd 0, mask 4,
/// cookie 8, len 12, name 16). Blocks: call `wait` on a thread of its own.
final class InotifyReader: Sendable {
    struct Event: Sendable {
        var watch: Int32
        var mask: UInt32
        var cookie: UInt32
        var name: String

        func has(_ flag: Int32) -> Bool { self.mask & UInt32(flag) != 0 }
    }

    /// What a wait came to.
    enum Wait {
        /// The events of one read.
        case events([Event])
        /// Nothing within the timeout.
        case timedOut
        /// `stop()` was called.
        case stopped
    }

    /// Internal, not private: a test puts something else in its place to make reading fail.
    let fd: Int32
    /// A self-pipe: writing to it wakes the blocked `poll` so that `wait` returns.
    private let wakeFD: Int32
    private let wakeWriteFD: Int32
    private let stopped = Atomic(false)

    /// `path` names what is watched, in errors.
    init(path: String) throws(SystemError) {
        self.fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard self.fd >= 0 else { throw SystemError("inotify_init1", path: path) }
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else {
            close(self.fd)
            throw SystemError("pipe", path: path)
        }
        for fd in pipeFDs {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        self.wakeFD = pipeFDs[0]
        self.wakeWriteFD = pipeFDs[1]
    }

    deinit {
        close(self.fd)
        close(self.wakeFD)
        close(self.wakeWriteFD)
    }

    /// The watch descriptor, or a `SystemError` with `errno` (ENOSPC: `fs.inotify.max_user_watches` reached).
    func addWatch(_ path: String, mask: UInt32) -> Result<Int32, SystemError> {
        let watch = inotify_add_watch(self.fd, path, mask)
        return watch >= 0 ? .success(watch) : .failure(SystemError("inotify_add_watch", path: path))
    }

    func removeWatch(_ watch: Int32) {
        inotify_rm_watch(self.fd, watch)
    }

    /// Ends `wait` from another thread, and tells work in between to end (`isStopped`).
    func stop() {
        self.stopped.store(true, ordering: .relaxed)
        var byte: UInt8 = 1
        _ = write(self.wakeWriteFD, &byte, 1)
    }

    var isStopped: Bool { self.stopped.load(ordering: .relaxed) }

    /// Waits up to `milliseconds` (-1: until something comes) and reads what is queued, into `buffer`. Throws when
    /// inotify itself fails.
    func wait(milliseconds: Int32 = -1, buffer: inout [UInt8]) throws(SystemError) -> Wait {
        var fds = [
            pollfd(fd: self.fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: self.wakeFD, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let ready = poll(&fds, 2, milliseconds)
            if ready < 0 {
                guard errno == EINTR else { throw SystemError("poll", path: "inotify") }
                continue
            }
            if fds[1].revents != 0 { return .stopped }
            guard fds[0].revents != 0 else { return .timedOut }
            let count = buffer.withUnsafeMutableBytes { read(self.fd, $0.baseAddress, $0.count) }
            guard count > 0 else {
                guard count < 0, errno != EAGAIN, errno != EINTR else { continue }
                throw SystemError("read inotify events", path: "inotify")
            }
            return .events(Self.parse(buffer, count: count))
        }
    }

    static func parse(_ buffer: [UInt8], count: Int) -> [Event] {
        func load<T: FixedWidthInteger>(_: T.Type, _ offset: Int) -> T {
            buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
        }
        var events: [Event] = []
        var offset = 0
        while offset + 16 <= count {
            let length = Int(load(UInt32.self, offset + 12))
            let name = buffer[(offset + 16)..<min(offset + 16 + length, count)].prefix { $0 != 0 }
            events.append(
                Event(
                    watch: load(Int32.self, offset), mask: load(UInt32.self, offset + 4),
                    cookie: load(UInt32.self, offset + 8), name: String(decoding: name, as: UTF8.self)))
            offset += 16 + length
        }
        return events
    }
}
