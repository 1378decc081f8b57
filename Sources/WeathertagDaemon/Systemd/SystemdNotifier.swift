import Glibc

/// sd_notify without libsystemd: one datagram to `$NOTIFY_SOCKET`. Does nothing when the variable is unset.
public struct SystemdNotifier: Sendable {
    public let socketPath: String?

    public init(environment: [String: String]) {
        self.socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Sends e.g. `READY=1` or `STATUS=…`. Returns whether the datagram went out.
    @discardableResult
    public func notify(_ message: String) -> Bool {
        guard let socketPath, socketPath.hasPrefix("/") || socketPath.hasPrefix("@") else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        // A leading '@' names the abstract namespace: the address starts with a NUL byte.
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in pathBytes.enumerated() { buffer[index] = byte }
        }
        // offsetof(sun_path) + path length: for an abstract address trailing NULs would be part of the name.
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count)
        let sent = message.utf8CString.withUnsafeBufferPointer { text in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, text.baseAddress, text.count - 1, Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
        return sent >= 0
    }
}
