import CLinux
import Foundation
import Glibc

/// Runs a program with `posix_spawn`: argv only (no shell), standard input from /dev/null, an empty signal mask
/// and default signal actions (whatever the daemon's threads block or ignore), in a process group of its own so
/// that a kill reaches whatever it started, and without the daemon's secrets in its environment.
struct Subprocess {
    /// Environment variables a child never sees: the key, systemd's credentials and notification channels.
    static let withheldEnvironment: Set<String> = [
        "OPENWEATHER_API_KEY", "CREDENTIALS_DIRECTORY", "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID",
        "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
    ]

    struct Output {
        var stdout: [UInt8]
        /// The start of standard error, for messages.
        var stderr: [UInt8]
        /// The exit status, or 128 + the signal that ended it.
        var status: Int32
        /// Standard output went past the limit and the program was killed.
        var overflowed: Bool
    }

    let pid: pid_t
    private let stdoutFD: Int32
    private let stderrFD: Int32

    init(_ argv: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        var out: [Int32] = [-1, -1]
        var err: [Int32] = [-1, -1]
        guard clinux_pipe_cloexec(&out) == 0 else { throw SystemError("pipe", path: argv[0]) }
        guard clinux_pipe_cloexec(&err) == 0 else {
            close(out[0])
            close(out[1])
            throw SystemError("pipe", path: argv[0])
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        // Only those three: a descriptor a library opened without close-on-exec (a gpsd socket) stays ours.
        let closing = clinux_spawn_close_from(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes,
            Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP)
        )

        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment =
            environment.filter { !Self.withheldEnvironment.contains($0.key) }.map { strdup("\($0.key)=\($0.value)") }
            + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result =
            closing == 0 ? posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, cEnvironment) : closing
        close(out[1])
        close(err[1])
        guard result == 0 else {
            close(out[0])
            close(err[0])
            throw SystemError("posix_spawn", path: argv[0], code: result)
        }
        self.pid = pid
        self.stdoutFD = out[0]
        self.stderrFD = err[0]
    }

    /// Kills the program and everything in its process group.
    func kill() {
        _ = Glibc.kill(-self.pid, SIGKILL)
    }

    /// Reads both outputs to their end (at most `limit` bytes of standard output, 4 KiB of standard error), then
    /// reaps the program. Blocks: call on a thread of its own.
    func collect(limit: Int) -> Output {
        var output = Output(stdout: [], stderr: [], status: 0, overflowed: false)
        var fds = [
            pollfd(fd: self.stdoutFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: self.stderrFD, events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        var open = 2
        while open > 0 {
            guard poll(&fds, 2, -1) >= 0 || errno == EINTR else { break }
            for index in 0..<2 where fds[index].revents != 0 && fds[index].fd >= 0 {
                let count = buffer.withUnsafeMutableBytes { read(fds[index].fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 {
                    close(fds[index].fd)
                    fds[index].fd = -1
                    open -= 1
                    continue
                }
                if index == 0 {
                    output.stdout.append(contentsOf: buffer[0..<count])
                    if output.stdout.count > limit && !output.overflowed {
                        output.overflowed = true
                        self.kill()
                    }
                } else if output.stderr.count < 4096 {
                    output.stderr.append(contentsOf: buffer[0..<min(count, 4096 - output.stderr.count)])
                }
            }
        }
        for fd in fds where fd.fd >= 0 { close(fd.fd) }
        var status: Int32 = 0
        while waitpid(self.pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7F
        output.status = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
        return output
    }
}
