import Glibc

/// A `sockaddr_un` for a path (or, with a leading `@`, an abstract name) and its exact length, as `connect`,
/// `sendto` and `bind` want it.
struct UnixSocketAddress {
    private var storage = sockaddr_un()
    /// offsetof(sun_path) + the path's length: for an abstract name trailing NULs would be part of the name.
    let length: socklen_t

    init?(_ path: String) {
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: self.storage.sun_path) else { return nil }
        self.storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &self.storage.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        self.length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
    }

    /// Sends one datagram here from `fd`; the bytes sent, or -1. Never waits unless `waiting`: a reader that stopped
    /// reading (its queue holds only `net.unix.max_dgram_qlen` datagrams) would otherwise block the sender, and with
    /// it the daemon's shutdown. systemd and journald read all the time; a datagram they cannot take is dropped.
    /// `waiting` waits for room as long as `fd`'s `SO_SNDTIMEO` allows (`JournalSocket`, once per outage).
    func sendDatagram(_ bytes: UnsafeRawBufferPointer, from fd: Int32, waiting: Bool = false) -> Int {
        let flags = MSG_NOSIGNAL | (waiting ? 0 : MSG_DONTWAIT)
        return self.withSockaddr { sendto(fd, bytes.baseAddress, bytes.count, Int32(flags), $0, $1) }
    }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        withUnsafePointer(to: self.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, self.length) }
        }
    }
}
