import Glibc

/// journald's native protocol, so that swift-log metadata arrives as fields of their own
/// (`journalctl WEATHERTAG_ENTRY=2026-11-22.md`): one datagram per entry, each field `NAME=value\n`, or for a value
/// with a newline `NAME\n`, its length as a little-endian 64-bit number, the value and `\n`.
package struct JournalSocket: Sendable {
    /// Where journald listens; `$WEATHERTAG_JOURNAL_SOCKET` names another socket (a container's, a test's).
    static let defaultPath = "/run/systemd/journal/socket"

    private let fd: Int32
    private let address: UnixSocketAddress

    init?(environment: [String: String]) {
        let path = environment["WEATHERTAG_JOURNAL_SOCKET"] ?? Self.defaultPath
        guard let address = UnixSocketAddress(path) else { return nil }
        var info = stat()
        guard path.hasPrefix("@") || (stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK) else { return nil }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        self.fd = fd
        self.address = address
    }

    /// Sends one entry; false when journald did not take it (the caller then writes the line to stderr). Never
    /// waits: a journald that falls behind must not stall the daemon.
    func send(_ fields: [(name: String, value: String)]) -> Bool {
        let datagram = Self.serialize(fields)
        return datagram.withUnsafeBytes { self.address.sendDatagram($0, from: self.fd) } == datagram.count
    }

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
