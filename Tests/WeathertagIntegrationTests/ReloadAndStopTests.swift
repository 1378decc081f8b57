import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// The fault suite, part 4: SIGHUP reloads and SIGTERM in the middle of a burst.
@Suite("Faults: reload and graceful stop", .serialized)
struct ReloadAndStopTests {
    static func fixed(_ latitude: Double) -> String {
        #"[{"type": "fixed", "latitude": \#(latitude), "longitude": 6.15}]"#
    }

    /// A keep-alive connection: one request at a time, the response read by its Content-Length.
    final class KeepAlive {
        let fd: Int32

        init(_ path: String) throws {
            self.fd = try RawHTTP.connect(.unix(path: path))
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(self.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(self.fd) }

        func get(_ path: String) throws -> [String: Any] {
            guard RawHTTP.sendAll(self.fd, Array("GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)) else {
                throw POSIXError(.EPIPE)
            }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let text = String(decoding: received, as: UTF8.self)
                if let split = text.range(of: "\r\n\r\n"),
                    let lengthLine = text[..<split.lowerBound].split(separator: "\r\n").first(where: {
                        $0.lowercased().hasPrefix("content-length:")
                    }),
                    let length = Int(lengthLine.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)),
                    text.utf8.count - text[..<split.upperBound].utf8.count >= length
                {
                    let body = Data(text[split.upperBound...].utf8)
                    return try JSONSerialization.jsonObject(with: body) as? [String: Any] ?? [:]
                }
                let count = buffer.withUnsafeMutableBytes { recv(self.fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { throw POSIXError(.ECONNRESET) }
                received.append(contentsOf: buffer[0..<count])
            }
        }
    }

    @Test func sighupAppliesAValidConfigurationKeepingTheSocketAndTheQueue() async throws {
        try await withHarness { harness in
            // The connection kept open across the reload waits as long as a loaded machine makes it: not the idle
            // timeout's test (30 s by default, which a full parallel run once exceeded).
            func write(latitude: Double) throws {
                try harness.writeConfig(providers: Self.fixed(latitude))
                try harness.patchConfig(
                    #""path": "\#(harness.socketPath)""#,
                    #""path": "\#(harness.socketPath)", "idle_timeout_seconds": 600"#)
            }
            try write(latitude: 10)
            let daemon = try await harness.startDaemon()
            var socketInfo = stat()
            #expect(stat(harness.socketPath, &socketInfo) == 0)
            let connection = try KeepAlive(harness.socketPath)
            #expect(try connection.get("/v1/location")["latitude"] as? Double == 10)

            // Entries queue up while OpenWeather fails.
            try harness.standIn.control(#"{"weather": {"mode": "503"}}"#)
            try write(latitude: 20)
            try harness.dropInPlace("queued.md", "Waiting through a reload\n")

            daemon.child.signal(SIGHUP)
            try await poll("the reload") { daemon.log.contains("configuration reloaded") ? true : nil }
            #expect(daemon.child.isRunning)
            // The same socket file, the same open connection, the new configuration.
            var after = stat()
            #expect(stat(harness.socketPath, &after) == 0 && after.st_ino == socketInfo.st_ino)
            #expect(try connection.get("/v1/location")["latitude"] as? Double == 20)
            let notifications = daemon.notifications
            let reloading = try #require(notifications.firstIndex { $0.contains("RELOADING=1") })
            #expect(notifications[reloading].contains("MONOTONIC_USEC="))
            #expect(notifications[(reloading + 1)...].contains { $0.contains("READY=1") }, "READY=1 after RELOADING=1")
            // The status line stays the supervisor's (what is waiting, the weather), not replaced by the reload.
            let status = notifications.last { $0.contains("STATUS=") }
            #expect(status?.contains(" waiting, ") == true, "\(status ?? "no STATUS=")")

            // The entry queued before the reload is stamped by the new generation once OpenWeather is back.
            #expect(harness.read("queued.md") == "Waiting through a reload\n")
            try harness.standIn.control(#"{"weather": {"mode": "ok"}}"#)
            // The source is asked again when the outage's backoff ends, and a loaded machine makes the outage longer
            // (the backoff doubles per failure: 32 s after a minute of 503s; once in a full run it outlasted 30 s).
            let weather = try await harness.waitForStamp("queued.md", timeout: .seconds(150))
            // (YAML reads `latitude: 20` back as an integer.)
            #expect((weather["location"] as? [String: Any])?["latitude"] as? Int == 20)
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func anInvalidConfigurationIsRejectedAndTheRunningOneStays() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed(10))
            let daemon = try await harness.startDaemon()
            try harness.patchConfig(#""ttl_seconds": 600"#, #""ttl_seconds": -5"#)
            daemon.child.signal(SIGHUP)
            try await poll("the rejection") { daemon.log.contains("configuration not reloaded") ? true : nil }
            #expect(daemon.log.contains("field=cache.ttl_seconds"))
            #expect(daemon.child.isRunning)
            #expect(try daemon.get("/v1/location").json["latitude"] as? Double == 10)
            try harness.dropByRename("still-works.md", "Stamped under the old configuration\n")
            _ = try await harness.waitForStamp("still-works.md")
            #expect(
                daemon.notifications.filter { $0.contains("READY=1") }.count == 2, "READY=1 again after the attempt")
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func sigtermDuringABurstExitsCleanlyWithinSeconds() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed(10))
            // Enough that the burst cannot end before the stop takes hold: a start-up's listing goes in batches of
            // 512, and the first status that counts a stamp comes when a whole batch is back. With 3,000, one run
            // saw 100 stamped only as the last batches were written (3,000 of 3,000 stamped at exit).
            let entries = CrashAndEditTests.makeEntries(count: 10_000)
            for entry in entries { try harness.directory.write("inbox/" + entry.name, entry.original) }
            let daemon = try await harness.startDaemon()
            let connection = try KeepAlive(harness.socketPath)
            try await poll("the burst under way", every: .milliseconds(2)) { () -> Bool? in
                let status = try connection.get("/v1/status")
                return ((status["entries"] as? [String: Any])?["stamped"] as? Int ?? 0) >= 100 ? true : nil
            }
            let start = ContinuousClock.now
            #expect(try await daemon.stop() == 0)
            let took = ContinuousClock.now - start
            #expect(took < .seconds(5), "stopped in \(took)")
            #expect(RawHTTP.peerClosed(connection.fd), "the open connection was closed")
            let counts = CrashAndEditTests.check(entries, in: harness, block: nil)
            #expect(counts.original + counts.stamped == entries.count)
            #expect(counts.original > 0, "stopped before the burst was done")
            let names = try FileManager.default.contentsOfDirectory(atPath: harness.inbox)
            #expect(names.allSatisfy { !$0.hasSuffix("weathertag-tmp") }, "no write abandoned half-way")
            print(
                "SIGTERM during a burst: exit 0 after \(took) with \(counts.stamped) of \(entries.count) stamped, "
                    + "the rest untouched"
            )
        }
    }
}
