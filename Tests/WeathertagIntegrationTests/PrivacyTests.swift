import Foundation
import Testing
import WeathertagTestSupport

/// Coordinates that stay home: what OpenWeather is asked with, what the block and the socket show.
@Suite("Privacy", .serialized)
struct PrivacyIntegrationTests {
    static let exactly = #"[{"type": "fixed", "latitude": 46.204412, "longitude": 6.143211}]"#

    static func decimals(_ text: String) -> Int {
        guard let dot = text.firstIndex(of: ".") else { return 0 }
        return text[text.index(after: dot)...].reversed().drop { $0 == "0" }.count
    }

    @Test func requestsCarryTwoDecimalsAndTheBlockThree() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.exactly, extra: #", "air_quality": {"enabled": true}"#)
            let daemon = try await harness.startDaemon()
            try harness.dropByRename("entry.md", "Out and about\n")
            let stamp = try await harness.waitForStamp("entry.md")
            let location = try #require(stamp["location"] as? [String: Any])
            #expect(location["latitude"] as? Double == 46.204 && location["longitude"] as? Double == 6.143)
            #expect(try daemon.get("/v1/location").json["latitude"] as? Double == 46.204)
            let tag = try daemon.get("/v1/tag").json["location"] as? [String: Any]
            #expect(tag?["longitude"] as? Double == 6.143)
            // OpenWeather never saw more than two decimals: not the weather, the geocoder or air pollution.
            for endpoint in ["/_weather", "/_geo", "/_air"] {
                let queries = try harness.standIn.weatherQueries(endpoint)
                #expect(!queries.isEmpty, "\(endpoint)")
                for query in queries {
                    #expect(
                        Self.decimals(query.latitude) <= 2 && Self.decimals(query.longitude) <= 2,
                        "\(endpoint) \(query)")
                }
            }
            #expect(stamp["air"] != nil)
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func insideAZoneOnlyItsNameIsWrittenAndServed() async throws {
        try await withHarness { harness in
            try harness.writeConfig(
                providers: Self.exactly,
                extra:
                    #", "privacy": {"zones": [{"name": "Home", "latitude": 46.2051, "longitude": 6.1442, "radius_m": 300}]}"#
            )
            let daemon = try await harness.startDaemon()
            try harness.dropByRename("entry.md", "At home\n")
            let stamp = try await harness.waitForStamp("entry.md")
            #expect(stamp["place"] as? String == "Home" && stamp["region"] == nil && stamp["country"] == nil)
            #expect((stamp["location"] as? [String: Any])?.keys.sorted() == ["name", "source"])
            #expect(!harness.read("entry.md").contains("46.2") && !harness.read("entry.md").contains("Seoul"))
            let location = try daemon.get("/v1/location").json
            #expect(location["latitude"] is NSNull && location["name"] as? String == "Home")
            #expect(
                try harness.standIn.weatherQueries().allSatisfy { $0 == ("46.21000", "6.14000") }, "the zone's centre")
            #expect(try await daemon.stop() == 0)
        }
    }

    /// The place by name: OpenWeather's reverse geocoder, in the configured language, asked once per cell of about
    /// 1 km (kept across restarts), never holding a stamp back when it fails.
    @Test func thePlaceByNameOncePerCell() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.exactly)
            try harness.patchConfig(#""timeout_seconds": 5}"#, #""timeout_seconds": 5, "lang": "fr"}"#)
            var daemon = try await harness.startDaemon()
            try harness.dropByRename("one.md", "One\n")
            let one = try await harness.waitForStamp("one.md")
            #expect(one["place"] as? String == "Séoul", "the French name from local_names")
            #expect(one["region"] as? String == "Seoul" && one["country"] as? String == "KR")
            try harness.dropByRename("two.md", "Two\n")
            _ = try await harness.waitForStamp("two.md")
            #expect(try harness.standIn.calls("geo") == 1, "one call per cell")
            #expect(try harness.standIn.calls("air") == 0 && one["air"] == nil, "air quality is opt-in")
            for query in try harness.standIn.weatherQueries("/_geo") {
                #expect(Self.decimals(query.latitude) <= 2 && Self.decimals(query.longitude) <= 2, "\(query)")
            }
            #expect(try await daemon.stop() == 0)

            // Kept across a restart, in the cache folder.
            daemon = try await harness.startDaemon()
            try harness.dropByRename("three.md", "Three\n")
            #expect(try await harness.waitForStamp("three.md")["place"] as? String == "Séoul")
            #expect(try harness.standIn.calls("geo") == 1)
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func aFailingGeocoderHoldsNothingBack() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.exactly)
            try harness.standIn.control(#"{"geo": {"mode": "500"}, "weather": {"name": "Carouge"}}"#)
            let daemon = try await harness.startDaemon()
            try harness.dropByRename("one.md", "One\n")
            let one = try await harness.waitForStamp("one.md")
            #expect(one["place"] as? String == "Carouge" && one["region"] == nil, "OpenWeather's station name")
            try harness.dropByRename("two.md", "Two\n")
            _ = try await harness.waitForStamp("two.md")
            #expect(try harness.standIn.calls("geo") == 1, "a failed cell is not asked again at once")
            #expect(try await daemon.stop() == 0)
        }
    }

    /// `stamp.fields`: the block holds what the diary keeper chose, in that order.
    @Test func theBlockHoldsTheChosenFieldsInOrder() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.exactly)
            try harness.patchConfig(
                #""settle_seconds": 0}"#,
                #""settle_seconds": 0}, "stamp": {"fields": ["temperature", "condition", "moon_phase", "place"]}"#)
            let daemon = try await harness.startDaemon()
            try harness.dropByRename("entry.md", "Short and sweet\n")
            _ = try await harness.waitForStamp("entry.md")
            let text = harness.read("entry.md")
            let block = text.split(separator: "\n").dropFirst().prefix { $0 != "---" }.map(String.init)
            #expect(
                block.map { String($0.prefix { $0 != ":" }) } == [
                    "weather", "  temperature", "  condition", "  moon_phase", "  place",
                ])
            #expect(try await daemon.stop() == 0)
        }
    }

    /// `air_quality.enabled`: the air with the weather, one more call per place per TTL.
    @Test func airQualityWhenAskedFor() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.exactly, extra: #", "air_quality": {"enabled": true}"#)
            let daemon = try await harness.startDaemon()
            try harness.dropByRename("one.md", "One\n")
            let air = try #require(try await harness.waitForStamp("one.md")["air"] as? [String: Any])
            #expect(air["aqi"] as? Int == 2 && air["label"] as? String == "fair" && air["pm2_5"] as? Double == 7.3)
            try harness.dropByRename("two.md", "Two\n")
            _ = try await harness.waitForStamp("two.md")
            #expect(try harness.standIn.calls("air") == 1 && harness.standIn.calls("weather") == 1, "cached together")
            let tag = try daemon.get("/v1/tag").json["air"] as? [String: Any]
            #expect(tag?["label"] as? String == "fair")
            let text = try await ChildProcess.run(
                [DaemonProcess.binary, "tag", "--socket", harness.socketPath, "--format", "{aqi} {air}"],
                in: harness.directory)
            #expect(text.stdout == "2 fair\n", "\(text.stdout)\(text.stderr)")
            let waybar = try await ChildProcess.run(
                [DaemonProcess.binary, "tag", "--socket", harness.socketPath, "--waybar"], in: harness.directory)
            #expect(waybar.stdout.contains(#""aqi-fair""#), "\(waybar.stdout)")
            #expect(try await daemon.stop() == 0)
        }
    }
}
