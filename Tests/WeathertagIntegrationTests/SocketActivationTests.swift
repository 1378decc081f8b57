import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// `weathertag.socket`: systemd listens, starts the daemon at the first connection and passes the socket.
@Suite("systemd socket activation", .serialized)
struct SocketActivationTests {
    @Test func servesOnThePassedSocketAndLeavesItToSystemd() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 1, "longitude": 2}]"#)
            // systemd's socket, elsewhere than socket.path: the daemon must answer there and bind nothing itself.
            let activated = harness.directory.file("activated.sock")
            let daemon = try await DaemonProcess(
                config: harness.directory.file("config.json"),
                socketPath: activated,
                in: harness.directory,
                socketActivation: true
            )
            harness.daemons.append(daemon)
            try await poll("systemd-socket-activate listening") {
                FileManager.default.fileExists(atPath: activated) ? true : nil
            }
            #expect(!daemon.log.contains("READY=1"))
            // The first connection starts the daemon, which accepts it from the passed socket's queue.
            let response = try RawHTTP.request(.unix(path: activated), "GET", "/v1/status")
            #expect(response.status == 200)
            try await daemon.waitForNotification("READY=1")
            #expect(daemon.log.contains("listening on the socket systemd passed"))
            #expect(!FileManager.default.fileExists(atPath: harness.socketPath), "bound socket.path as well")
            let tag = try RawHTTP.request(.unix(path: activated), "GET", "/v1/tag")
            #expect(tag.status == 200)
            #expect(try await daemon.stop() == 0)
            // The socket file is systemd's: still there after the daemon stopped.
            var info = stat()
            #expect(lstat(activated, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK)
        }
    }

    /// LISTEN_PID names another process: those descriptors are not ours, and socket.path is bound as usual.
    @Test func socketsForAnotherProcessAreIgnored() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 1, "longitude": 2}]"#)
            let daemon = try await harness.startDaemon(environment: ["LISTEN_FDS": "1", "LISTEN_PID": "1"])
            #expect(try daemon.get("/v1/status").status == 200)
            #expect(!daemon.log.contains("socket systemd passed"))
            #expect(try await daemon.stop() == 0)
            #expect(!FileManager.default.fileExists(atPath: harness.socketPath), "the daemon's own socket is removed")
        }
    }
}
