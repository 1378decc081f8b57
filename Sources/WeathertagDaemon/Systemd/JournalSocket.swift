import Glibc
import Synchronization

/// journald's native protocol, so that swift-log metadata arrives as fields of their own
/// (`journalctl WEATHERTAG_ENTRY=2026-11-22.md`): one datagram per entry, each field `NAME=value\n`, or for a value
/// with a newline `NAME\n`, its length as a little-endian 64-bit number, the value and `\n`.
package final class JournalSocket: Sendable {
    /// Where journald listens; `$WEATHERTAG_JOURNAL_SOCKET` names another socket (a container's, a test's).
    static let defaultPath = "/run/systemd/journal/socket"
    /// How long one entry waits for room in journald's queue before it goes to stderr: once per outage.
    ///
    /// The kernel keeps `net.unix.max_dgram_qlen` unread datagrams: 512 where systemd's `50-default.conf` sets it,
    /// 10 in a fresh network namespace (a container, this machine). A start logs a dozen lines within a millisecond;
    /// not waiting at all, a journald a moment late to read took the first ten and the rest went to stderr without
    /// their fields (CI on 2026-11-29: `ready`). `sd_journal_send` waits for as long as it takes; a journald that
    /// hangs must not hang the daemon, so one entry waits this long, and until journald takes one again none waits.
    static let patience = Duration.milliseconds(250)

    private let fd: Int32
    private let address: UnixSocketAddress
    /// Set when an entry waited `patience` in vain; cleared by the next one journald takes.
    private let behind = Atomic<Bool>(false)

    init?(environment: [String: String]) {
        let path = environment["WEATHERTAG_JOURNAL_SOCKET"] ?? Self.defaultPath
        guard let address = UnixSocketAddress(path) else { return nil }
        var info = stat()
        guard path.hasPrefix("@") || (stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK) else { return nil }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        let (seconds, attoseconds) = Self.patience.components
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        guard setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            close(fd)
            return nil
        }
        self.fd = fd
        self.address = address
    }

    /// Sends one entry; false when journald did not take it (the caller then writes the line to stderr). Waits for
    /// room at most `patience`, and not at all while journald is behind.
    func send(_ fields: [(name: String, value: String)]) -> Bool {
        let datagram = Self.serialize(fields)
        let waiting = !self.behind.load(ordering: .relaxed)
        let taken = datagram.withUnsafeBytes { self.address.sendDatagram($0, from: self.fd, waiting: waiting) }
        let took = taken == datagram.count
        if waiting && !took {
            self.behind.store(true, ordering: .relaxed)
        } else if !waiting && took {
            self.behind.store(false, ordering: .relaxed)
        }
        return took
    }

    /// Whether journald is behind: the last entry it did not take waited in vain, and none since was taken.
    var isBehind: Bool { self.behind.load(ordering: .relaxed) }

    static func serialize(_ fields: [(name: String, value: String)]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (name, value) in fields {
            bytes += Array(name.utf8)
            if value.utf8.contains(0x0A) {
                bytes.append(0x0A)
                var length = UInt64(value.utf8.count).littleEndian
                withUnsafeBytes(of: &length) { bytes += $0 }
                bytes += Array(value.utf8)
            } else {
                bytes.append(UInt8(ascii: "="))
                bytes += Array(value.utf8)
            }
            bytes.append(0x0A)
        }
        return bytes
    }

    /// A metadata key as a journal field name: `retry_in` → `WEATHERTAG_RETRY_IN` (A–Z, 0–9 and `_` only; the
    /// prefix keeps it clear of journald's own fields and makes it easy to find).
    static func fieldName(_ key: String) -> String {
        "WEATHERTAG_"
            + String(
                key.uppercased().unicodeScalars.map {
                    ("A"..."Z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "_"
                })
    }
}
