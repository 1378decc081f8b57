import Glibc

/// sd_notify without libsystemd: one datagram to `$NOTIFY_SOCKET`. Does nothing when the variable is unset.
package struct SystemdNotifier: Sendable {
    package let socketPath: String?

    package init(environment: [String: String]) {
        self.socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Sends e.g. `READY=1` or `STATUS=…`. Returns whether the datagram went out; never waits.
    @discardableResult
    package func notify(_ message: String) -> Bool {
        guard let socketPath, socketPath.hasPrefix("/") || socketPath.hasPrefix("@") else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard let address = UnixSocketAddress(socketPath) else { return false }
        var text = message
        return text.withUTF8 { address.sendDatagram(UnsafeRawBufferPointer($0), from: fd) } >= 0
    }
}
