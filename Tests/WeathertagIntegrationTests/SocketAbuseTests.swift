import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// The fault suite, part 3: the Unix socket under abuse. Normal queries keep being answered, abusers are closed
/// by limits and timeouts, and memory stays bounded.
@Suite("Faults: the socket under abuse", .serialized)
struct SocketAbuseTests {
    /// Resident memory of a process, in KiB.
    static func residentKiB(_ pid: pid_t) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// One normal query; its latency in milliseconds. A failure names the abuse it came during (a CI run once had a
    /// normal query closed unanswered, and which abuse was running was not said).
    static func query(_ daemon: DaemonProcess, during abuse: String) throws -> Double {
        let start = ContinuousClock.now
        let response: RawHTTP.Response
        do {
            response = try daemon.get("/v1/status")
        } catch {
            throw QueryFailed(abuse: abuse, error: error)
        }
        let elapsed = ContinuousClock.now - start
        #expect(response.status == 200)
        return elapsed.seconds * 1000
    }

    @Test func abusersAreClosedAndNormalQueriesAnsweredThroughout() async throws {
        try await withHarness { harness in
            try harness.writeConfig(
                providers: #"[{"type": "fixed", "latitude": 46.2, "longitude": 6.15}]"#,
                extra: ""
            )
            try harness.patchConfig(
                #""path": "\#(harness.socketPath)""#,
                #""path": "\#(harness.socketPath)", "max_connections": 32, "idle_timeout_seconds": 1"#
            )
            let daemon = try await harness.startDaemon()
            let socket = RawHTTP.Endpoint.unix(path: harness.socketPath)
            var info = stat()
            #expect(stat(harness.socketPath, &info) == 0 && info.st_mode & 0o777 == 0o660, "0660, never world-writable")
            _ = try daemon.get("/v1/tag")
            let baseline = Self.residentKiB(daemon.child.pid)
            var latencies: [Double] = []

            // Junk, an oversized request line, oversized headers: 400 or closed, never a hang.
            let junk: [[UInt8]] = [
                [0x00, 0x01, 0xFF, 0x7F] + Array("garbage\r\n\r\n".utf8),
                Array(("GET /" + String(repeating: "a", count: 20_000) + " HTTP/1.1\r\n\r\n").utf8),
                Array(("GET /v1/tag HTTP/1.1\r\nX-Big: " + String(repeating: "b", count: 12_000) + "\r\n\r\n").utf8),
                Array(("GET /v1/tag HTTP/1.1\r\n" + (0..<100).map { "X-\($0): y\r\n" }.joined() + "\r\n").utf8),
            ]
            for request in junk {
                let fd = try RawHTTP.connect(socket)
                defer { close(fd) }
                RawHTTP.sendAll(fd, request)
                try await poll("the abuser closed") { RawHTTP.peerClosed(fd) ? true : nil }
                latencies.append(try Self.query(daemon, during: "junk"))
            }

            // Odd query strings (`?=` once trapped in the router; found by `make fuzz`).
            for target in ["/v1/tag?=", "/v1/tag?&=&", "/v1/tag?format", "/v1/tag?%zz=%", "/v1/status?=="] {
                #expect(try daemon.get(target).status < 500, "\(target)")
            }
            #expect(daemon.child.isRunning)

            // A huge body: the connection is closed long before 8 MiB are taken.
            let bodyFD = try RawHTTP.connect(socket)
            let head = "POST /v1/tag HTTP/1.1\r\nContent-Length: 8388608\r\n\r\n"
            var sentOK = RawHTTP.sendAll(bodyFD, Array(head.utf8))
            var sent = 0
            let chunk = [UInt8](repeating: 0x7A, count: 16_384)
            while sentOK && sent < 8 << 20 {
                sentOK = RawHTTP.sendAll(bodyFD, chunk)
                if sentOK { sent += chunk.count }
            }
            #expect(!sentOK, "the daemon stopped reading the body")
            #expect(sent < 1 << 20, "closed after \(sent) bytes of body")
            close(bodyFD)
            latencies.append(try Self.query(daemon, during: "a huge body"))

            // Slowloris: a header byte every 100 ms; closed once the idle timeout (1 s) passes without a full head.
            let slowFD = try RawHTTP.connect(socket)
            defer { close(slowFD) }
            RawHTTP.sendAll(slowFD, Array("GET /v1/tag HTTP/1.1\r\n".utf8))
            let slowStart = ContinuousClock.now
            try await poll("the slow client closed", timeout: .seconds(10), every: .milliseconds(100)) { () -> Bool? in
                if RawHTTP.peerClosed(slowFD) { return true }
                RawHTTP.sendAll(slowFD, Array("X".utf8))
                latencies.append(try Self.query(daemon, during: "slowloris"))
                return nil
            }
            let slowLasted = ContinuousClock.now - slowStart
            #expect(slowLasted < .seconds(5))

            // Hundreds of idle connections: the limit is 32, yet a normal client always gets in.
            var idle: [Int32] = []
            for _ in 0..<300 { idle.append(try RawHTTP.connect(socket)) }
            for _ in 0..<20 { latencies.append(try Self.query(daemon, during: "300 idle connections")) }
            try await poll("idle connections closed", timeout: .seconds(10)) {
                idle.allSatisfy(RawHTTP.peerClosed) ? true : nil
            }
            for fd in idle { close(fd) }

            // Clients that vanish mid-response, some with a reset.
            for index in 0..<200 {
                let fd = try RawHTTP.connect(socket)
                RawHTTP.sendAll(fd, Array("GET /v1/tag HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                if index % 2 == 0 {
                    var linger = linger(l_onoff: 1, l_linger: 0)
                    setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
                }
                close(fd)
            }
            for _ in 0..<20 { latencies.append(try Self.query(daemon, during: "vanishing clients")) }

            let after = Self.residentKiB(daemon.child.pid)
            #expect(after - baseline < 24 << 10, "RSS grew from \(baseline) KiB to \(after) KiB")
            #expect(daemon.child.isRunning)
            let sorted = latencies.sorted()
            print(
                "socket abuse: \(latencies.count) normal queries answered during abuse, median "
                    + String(format: "%.2f", sorted[sorted.count / 2]) + " ms, max "
                    + String(format: "%.2f", sorted.last ?? 0) + " ms; slowloris closed after "
                    + String(format: "%.2f", slowLasted.seconds) + " s; huge body closed after \(sent) bytes; "
                    + "RSS \(baseline) KiB before, \(after) KiB after"
            )
            #expect(try await daemon.stop() == 0)
        }
    }
}

/// A normal query that failed, and the abuse it came during.
struct QueryFailed: Error, CustomStringConvertible {
    var abuse: String
    var error: any Error
    var description: String { "a normal query during \(self.abuse) failed: \(self.error)" }
}
