import Foundation
import Glibc
import Synchronization

/// The built `weathertag` binary running `serve`, with a datagram socket standing in for systemd's
/// `$NOTIFY_SOCKET`: `start` returns once the daemon said READY=1.
package final class DaemonProcess: @unchecked Sendable {
    package let child: ChildProcess
    package let socketPath: String
    private let notify: DatagramSocket

    /// Every datagram the daemon sent to `$NOTIFY_SOCKET` so far.
    package var notifications: [String] { self.notify.received() }

    /// Daemons started by this test process, for their notify sockets' names.
    private static let starts = Atomic<Int>(0)

    /// The `weathertag` binary next to the test bundle.
    package static var binary: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("weathertag").path
    }

    /// The binary where a launcher's other user can reach it: the build folder may sit in a checkout only root
    /// may enter (a clone in a 0700 home), while the test's own folder is made the service's. A hard link where
    /// the two share a filesystem, else a copy.
    static func reachableBinary(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("weathertag")
        if FileManager.default.fileExists(atPath: path) { return path }
        if link(Self.binary, path) != 0 {
            try FileManager.default.copyItem(atPath: Self.binary, toPath: path)
        }
        return path
    }

    package init(
        config: String,
        socketPath: String,
        in directory: TemporaryDirectory,
        environment: [String: String] = [:],
        stderrPath: String? = nil,
        socketActivation: Bool = false,
        launcher: [String] = []
    ) async throws {
        self.socketPath = socketPath
        // A new name for each start: a random 16-bit one met an earlier start's file now and then (Address already
        // in use) in a test that starts the daemon forty times in one folder.
        let notifyPath = directory.file("notify-\(Self.starts.add(1, ordering: .relaxed).newValue).sock")
        self.notify = try DatagramSocket(path: notifyPath)
        // Sending to a socket file takes write permission on it: a launcher may run the daemon as another user.
        chmod(notifyPath, 0o666)
        var env = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": directory.path,
            "NOTIFY_SOCKET": notifyPath,
        ]
        env.merge(environment) { $1 }
        // A launcher (a sandbox) executes the daemon in its own place: same process, same notify socket.
        var command =
            launcher + [
                try launcher.isEmpty ? Self.binary : Self.reachableBinary(in: directory), "serve", "--config", config,
                "--log-level", "debug",
            ]
        if socketActivation {
            // systemd-socket-activate listens on the socket and starts the daemon at the first connection, with
            // LISTEN_FDS and LISTEN_PID and only the variables given with -E.
            let activate = ["/usr/bin/systemd-socket-activate", "/bin/systemd-socket-activate"]
                .first { FileManager.default.isExecutableFile(atPath: $0) }
            guard let activate else { throw TimeoutError(description: "systemd-socket-activate is needed") }
            command =
                [activate, "--listen=\(socketPath)", "--fdname=weathertag"]
                + env.sorted { $0.key < $1.key }.map { "--setenv=\($0.key)=\($0.value)" } + command
        }
        self.child = try ChildProcess(
            command,
            environment: env,
            stderrPath: stderrPath ?? directory.file("daemon-\(UInt16.random(in: 0...UInt16.max)).log")
        )
        // Socket activation: the daemon starts when the caller connects.
        if !socketActivation { try await self.waitForNotification("READY=1") }
    }

    /// Waits for a datagram containing `text` (READY=1, STOPPING=1).
    package func waitForNotification(_ text: String, timeout: Duration = .seconds(20)) async throws {
        try await poll("\(text) from the daemon (log: \(self.child.stderr))", timeout: timeout) {
            if self.notifications.contains(where: { $0.contains(text) }) { return true }
            if !self.child.isRunning { throw TimeoutError(description: "daemon exited: \(self.child.stderr)") }
            return nil
        }
    }

    package func get(_ path: String) throws -> RawHTTP.Response {
        try RawHTTP.request(.unix(path: self.socketPath), "GET", path)
    }

    /// SIGTERM (or `signal`) and the exit status.
    package func stop(signal: Int32 = SIGTERM) async throws -> Int32 {
        self.child.signal(signal)
        return try await self.child.waitForExit()
    }

    package var log: String { self.child.stderr }
}
