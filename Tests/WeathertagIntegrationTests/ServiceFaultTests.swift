import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// The fault suite, part 5: OpenWeather and the IP service failing in every documented way.
@Suite("Faults: OpenWeather and IP geolocation failing", .serialized)
struct ServiceFaultTests {
    /// Weather expires after a second and entries take nothing older, so every entry needs a fresh call.
    static func writeConfig(_ harness: Harness, baseURL: String? = nil) throws {
        try harness.writeConfig(
            providers: "[\(harness.ipProvider), {\"type\": \"fixed\", \"latitude\": 46.2, \"longitude\": 6.15}]",
            extra: #", "stamp": {"max_age_seconds": 1}"#
        )
        try harness.patchConfig(#""ttl_seconds": 600"#, #""ttl_seconds": 1, "max_stale_seconds": 1"#)
        try harness.patchConfig(#""timeout_seconds": 5"#, #""timeout_seconds": 1"#)
        if let baseURL {
            try harness.patchConfig(#""base_url": "\#(harness.standIn.baseURL)""#, #""base_url": "\#(baseURL)""#)
        }
    }

    /// Every file under the test's folder except the configuration (which holds the key by design) and the
    /// stand-in's own log.
    static func filesContainingTheKey(_ harness: Harness) -> [String] {
        let root = harness.directory.path
        let enumerator = FileManager.default.enumerator(atPath: root)
        var found: [String] = []
        while let name = enumerator?.nextObject() as? String {
            guard name != "config.json", !name.hasPrefix("standin"), !name.hasSuffix(".sock") else { continue }
            if let data = FileManager.default.contents(atPath: root + "/" + name),
                String(decoding: data, as: UTF8.self).contains(WeatherStandIn.apiKey)
            {
                found.append(name)
            }
        }
        return found
    }

    /// One failure mode against its own daemon: the entry waits untouched, calls are retried with backoff, and
    /// the entry is stamped once OpenWeather answers again. Returns a figure for the report.
    static func failAndRecover(_ mode: String) async throws -> String {
        var figure = ""
        try await withHarness { harness in
            try Self.writeConfig(harness)
            let daemon = try await harness.startDaemon()
            _ = try daemon.get("/v1/tag")
            try harness.standIn.control(#"{"weather": {"mode": "\#(mode)"}}"#)
            // The cached weather expires and a refresh fails.
            try await poll("\(mode): no fresh weather", timeout: .seconds(10)) { () -> Bool? in
                try daemon.get("/v1/tag").status == 503 ? true : nil
            }
            let before = try harness.standIn.calls("weather")
            let name = "fails-\(mode).md"
            try harness.dropInPlace(name, "Waiting out a \(mode)\n")
            let start = ContinuousClock.now
            // Retried on its own, with backoff: two more calls take at least half a second, not a tight loop.
            try await poll("\(mode): two retries", timeout: .seconds(20)) { () -> Bool? in
                try harness.standIn.calls("weather") >= before + 2 ? true : nil
            }
            let took = ContinuousClock.now - start
            #expect(took >= .milliseconds(500), "\(mode): retried after \(took)")
            #expect(harness.read(name) == "Waiting out a \(mode)\n", "\(mode): the entry is untouched")
            let status = try daemon.get("/v1/status").json
            #expect((status["openweather"] as? [String: Any])?["last_error"] is String, "\(mode)")
            #expect(daemon.child.isRunning)

            try harness.standIn.control(#"{"weather": {"mode": "ok"}}"#)
            _ = try await harness.waitForStamp(name, timeout: .seconds(20))
            let recovered = ContinuousClock.now - start
            #expect(!daemon.log.contains(WeatherStandIn.apiKey), "the key never reaches the log")
            #expect(Self.filesContainingTheKey(harness).isEmpty, "nor any file: \(Self.filesContainingTheKey(harness))")
            #expect(try await daemon.stop() == 0)
            figure =
                "\(mode): 2 retries in \(String(format: "%.1f", took.seconds)) s, stamped "
                + "\(String(format: "%.1f", recovered.seconds)) s after the drop"
        }
        return figure
    }

    @Test func everyOpenWeatherFailureLeavesEntriesWaitingRetriedWithBackoffAndResumes() async throws {
        let modes = ["500", "503", "nonjson", "wrongshape", "404", "hang", "drop"]
        let figures = try await withThrowingTaskGroup(of: String.self) { group in
            for mode in modes { group.addTask { try await Self.failAndRecover(mode) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        print("OpenWeather failures: " + figures.sorted().joined(separator: "; "))
    }

    @Test func aBadKeyAndRateLimitsAreNotRetriedSoon() async throws {
        try await withHarness { harness in
            try Self.writeConfig(harness)
            let daemon = try await harness.startDaemon()
            // 401 and 429 are not retried soon: the next attempt is scheduled minutes away.
            for (mode, retryAfter, minimum) in [("401", "null", 300.0), ("429", "null", 60.0), ("429", "120", 120.0)] {
                try harness.standIn.control(#"{"weather": {"mode": "\#(mode)", "retry_after": \#(retryAfter)}}"#)
                let response = try await poll("\(mode): the failure seen", timeout: .seconds(10)) {
                    () -> RawHTTP.Response? in
                    let tag = try daemon.get("/v1/tag")
                    return tag.status == 503 && tag.body.contains("HTTP \(mode)") ? tag : nil
                }
                if mode == "401" { #expect(response.body.contains("API key")) }
                let openWeather = try daemon.get("/v1/status").json["openweather"] as? [String: Any]
                let next = try #require(openWeather?["next_attempt_at"] as? String)
                let nextDate = try #require(ISO8601DateFormatter().date(from: next))
                #expect(nextDate.timeIntervalSinceNow > minimum * 0.45, "\(mode): next attempt at \(next)")
                let calls = try harness.standIn.calls("weather")
                for _ in 0..<20 { _ = try daemon.get("/v1/tag") }
                #expect(try harness.standIn.calls("weather") == calls, "\(mode): no call before the scheduled one")
                // Back to normal for the next case: a reload starts a fresh generation without the wait.
                try harness.standIn.control(#"{"weather": {"mode": "ok"}}"#)
                let reloads = daemon.log.components(separatedBy: "configuration reloaded").count
                daemon.child.signal(SIGHUP)
                try await poll("the reload") {
                    daemon.log.components(separatedBy: "configuration reloaded").count > reloads ? true : nil
                }
            }

            #expect(!daemon.log.contains(WeatherStandIn.apiKey), "the key never reaches the log")
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func refusedConnectionsAndDNSFailuresAreRetriedLikeAnyOther() async throws {
        for baseURL in ["http://127.0.0.1:\(RawHTTP.freePort())", "http://weathertag-test.invalid"] {
            try await withHarness { harness in
                try Self.writeConfig(harness, baseURL: baseURL)
                let daemon = try await harness.startDaemon()
                try harness.dropInPlace("unreachable.md", "Nobody answers\n")
                try await poll("\(baseURL): the entry waiting", timeout: .seconds(10)) { () -> Bool? in
                    let status = try daemon.get("/v1/status").json
                    let error = (status["openweather"] as? [String: Any])?["last_error"] as? String
                    let waiting = (status["entries"] as? [String: Any])?["waiting"] as? Int
                    return error != nil && waiting == 1 ? true : nil
                }
                #expect(harness.read("unreachable.md") == "Nobody answers\n")
                #expect(daemon.child.isRunning)
                // Pointed at a service that answers (a reload), the entry is stamped.
                try Self.writeConfig(harness)
                daemon.child.signal(SIGHUP)
                _ = try await harness.waitForStamp("unreachable.md")
                #expect(try await daemon.stop() == 0)
            }
        }
    }

    @Test func aHangingIPServiceIsPassedOverNotWaitedForEveryTime() async throws {
        try await withHarness { harness in
            try Self.writeConfig(harness)
            try harness.standIn.control(#"{"ip": {"mode": "hang"}}"#)
            let daemon = try await harness.startDaemon()
            for _ in 0..<5 {
                #expect(try daemon.get("/v1/location").json["source"] as? String == "fixed")
            }
            #expect(try harness.standIn.calls("ip-api") == 1, "one timeout, then passed over")
            let providers = try daemon.get("/v1/status").json["providers"] as? [[String: Any]]
            #expect(providers?.first?["skipped_until"] is String)
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func aFastFailingIPServiceIsAskedEveryTimeAndUsedOnceItAnswers() async throws {
        try await withHarness { harness in
            try Self.writeConfig(harness)
            try harness.standIn.control(#"{"ip": {"mode": "500"}}"#)
            let daemon = try await harness.startDaemon()
            // An HTTP error costs no timeout, so the service is never passed over: every lookup asks it again.
            // (Each lookup has a query of its own: the socket keeps an answer per URI for a second.)
            for mode in ["500", "429", "nonjson", "wrongshape"] {
                try harness.standIn.control(#"{"ip": {"mode": "\#(mode)"}}"#)
                let before = try harness.standIn.calls("ip-api")
                #expect(try daemon.get("/v1/location?\(mode)").json["source"] as? String == "fixed", "\(mode)")
                #expect(try harness.standIn.calls("ip-api") == before + 1, "\(mode): asked again")
            }
            try harness.standIn.control(#"{"ip": {"mode": "ok"}}"#)
            #expect(try daemon.get("/v1/location?ok").json["source"] as? String == "ip", "used on the next lookup")
            #expect(try await daemon.stop() == 0)
        }
    }
}

/// The fault suite, part 6: gpsd without a fix, with NaN coordinates, going silent, and back.
@Suite("Faults: gpsd coming and going", .serialized)
struct GPSDFaultTests {
    @Test func noFixNaNAndAStaleFixFallBackAndAFreshFixIsUsedAtOnce() async throws {
        try await withHarness { harness in
            // A fresh gpsd fed a 3D fix without coordinates reports mode 3 with NaN latitude and longitude.
            let port = try await harness.startGPSD(latitude: 59.3293, longitude: 18.0686, feed: "nan")
            let gpsd = try #require(harness.gpsd)
            try harness.writeConfig(
                providers: """
                    [{"type": "gpsd", "port": \(port), "timeout_seconds": 10, "max_fix_age_seconds": 1},
                     {"type": "fixed", "latitude": 1, "longitude": 2}]
                    """
            )
            let daemon = try await harness.startDaemon()
            func source() throws -> String? { try daemon.get("/v1/location").json["source"] as? String }
            func gpsdError() throws -> String {
                let providers = try daemon.get("/v1/status").json["providers"] as? [[String: Any]]
                return providers?.first?["last_error"] as? String ?? ""
            }
            try await poll("the NaN fix refused") {
                try source() == "fixed" && gpsdError().contains("without coordinates (NaN)") ? true : nil
            }
            try gpsd.setFeed("fix")
            try await poll("a gpsd fix") { try source() == "gpsd" ? true : nil }

            for (feed, reason) in [("nofix", "gpsd has no fix"), ("silent", "s old")] {
                try gpsd.setFeed(feed)
                try await poll("\(feed): the fallback, saying why") {
                    try source() == "fixed" && gpsdError().contains(reason) ? true : nil
                }
                // Failing fast, gpsd is never passed over: a fix is used on the very next lookup.
                let start = ContinuousClock.now
                _ = try source()
                #expect(ContinuousClock.now - start < .seconds(2), "\(feed): the lookup did not wait out a timeout")
                try gpsd.setFeed("fix")
                try await poll("\(feed): gpsd again", timeout: .seconds(5)) { try source() == "gpsd" ? true : nil }
            }
            let providers = try daemon.get("/v1/status").json["providers"] as? [[String: Any]]
            #expect(providers?.first?["skipped_until"] == nil || providers?.first?["skipped_until"] is NSNull)
            #expect(try await daemon.stop() == 0)
        }
    }
}
