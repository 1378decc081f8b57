import Glibc

/// systemd socket activation without libsystemd: the listening socket passed as descriptor 3.
enum SocketActivation {
    /// What the environment says about a passed socket.
    enum Outcome: Equatable {
        /// Nothing was passed (or it was meant for another process: `LISTEN_PID` is not ours).
        case none
        /// Descriptor 3 is a listening stream socket; it is now close-on-exec.
        case socket(Int32)
        /// A socket was announced but descriptor 3 is not a listening stream socket.
        case unusable(String)
    }

    /// `SD_LISTEN_FDS_START`.
    static let firstDescriptor: Int32 = 3

    static func listeningSocket(_ environment: [String: String]) -> Outcome {
        guard let pid = environment["LISTEN_PID"].flatMap({ pid_t($0) }), pid == getpid(),
            let count = environment["LISTEN_FDS"].flatMap({ Int32($0) }), count >= 1
        else { return .none }
        let fd = Self.firstDescriptor
        var type: Int32 = 0
        var listening: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 else {
            return .unusable("descriptor \(fd) is not a socket: \(String(cString: strerror(errno)))")
        }
        length = socklen_t(MemoryLayout<Int32>.size)
        guard type == Int32(SOCK_STREAM.rawValue),
            getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening == 1
        else { return .unusable("descriptor \(fd) is not a listening stream socket") }
        // systemd hands it over inheritable: a command provider's program must not get it.
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return .socket(fd)
    }
}
