import Foundation
import Glibc

/// A bound `AF_UNIX` datagram socket that collects what is sent to it: a stand-in for systemd's `$NOTIFY_SOCKET`
/// or journald's socket. A thread of its own reads all the time, as systemd does: the kernel keeps only a few
/// unread datagrams (`net.unix.max_dgram_qlen`, 10 here) and a sender would find the queue full. With
/// `reading: false` nobody reads, and the queue fills: a reader that has hung.
package final class DatagramSocket: @unchecked Sendable {
    package let path: String
    private let fd: Int32
    private let lock = NSLock()
    private var datagrams: [String] = []

    package init(path: String, reading: Bool = true) throws {
        self.path = path
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.fd = fd
        let bound = withUnixAddress(path) { bind(fd, $0, $1) }
        guard fd >= 0, bound == 0 else {
            throw TimeoutError(description: "cannot bind \(path): \(String(cString: strerror(errno)))")
        }
        guard reading else { return }
        let thread = Thread { [weak self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count < 0 && errno == EINTR { continue }
                guard count >= 0, let self else { return }
                let text = String(decoding: buffer[0..<count], as: UTF8.self)
                self.lock.withLock { self.datagrams.append(text) }
            }
        }
        thread.name = "datagram-socket"
        thread.start()
    }

    deinit {
        // Ends the reader's recv.
        shutdown(self.fd, Int32(SHUT_RDWR))
        close(self.fd)
    }

    /// Reads what is queued now, without waiting: a hung reader (`reading: false`) that comes back.
    package func drain() -> [String] {
        var drained: [String] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(self.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard count >= 0 else { return drained }
            drained.append(String(decoding: buffer[0..<count], as: UTF8.self))
        }
    }

    /// Every datagram received so far, in order.
    package func received() -> [String] {
        self.lock.withLock { self.datagrams }
    }
}
