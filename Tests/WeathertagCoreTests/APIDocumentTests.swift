import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

/// The socket's documents on the wire: the same bytes as before they were Codable types (keys, order, nulls,
/// whole numbers without a fraction), new members only added (`weather_source`, `history`, `timeline`), and read back by the
/// CLI's decoder.
@Suite("API documents")
struct APIDocumentTests {
    static let now = Fixtures.observedAt.addingTimeInterval(30)

    static let tagJSON =
        #"{"condition":"Clouds","description":"broken clouds","code":803,"icon":"04d","#
        + #""icon_file":"/var/cache/weathertag/icons/04d@2x.png","temperature":12.3,"feels_like":11.2,"#
        + #""humidity":71,"pressure":1013,"wind_speed":3.6,"units":"metric","observed_at":"2026-11-22T09:41:00Z","#
        + #""place":"Seoul","region":null,"country":null,"air":null,"location":{"latitude":37.5665,"longitude":126.978,"accuracy_m":17,"source":"gpsd","#
        + #""name":null,"taken_at":"2026-11-22T09:41:00Z"},"stale":false,"fetched_at":"2026-11-22T09:41:00Z","#
        + #""age_seconds":30,"kind":"current","weather_source":null,"wind_deg":null,"wind_direction":null,"wind_gust":null,"clouds":null,"#
        + #""visibility":null,"rain_1h":null,"snow_1h":null,"utc_offset":null,"local_time":null,"sunrise":null,"#
        + #""sunset":null,"daylight":null,"moon_phase":"waxing_gibbous","moon_illumination":0.93,"sync_conflicts":null}"#

    @Test func aTagIsWrittenAsBefore() throws {
        let json = try JSONValueEncoder().encode(TagDocument(Fixtures.tag, now: Self.now)).serialized
        #expect(json == Self.tagJSON)
    }

    @Test func aStatusIsWrittenAsBefore() throws {
        var provider = StatusDocument.Provider(
            type: "command", ok: false, attempts: 3, failures: 1, lastSuccessAt: "2026-11-22T09:40:00Z",
            lastError: "exit 1", lastErrorAt: nil, skippedUntil: nil, lastPosition: LocationDocument(Fixtures.position),
            details: ["program": "/usr/bin/where", "accuracy": "city"])
        (provider.won, provider.accuracy, provider.ageSeconds) = (true, 17, 60)
        let status = StatusDocument(
            startedAt: "2026-11-22T09:00:00Z", uptimeSeconds: 2460, inbox: "/srv/diary", providers: [provider],
            weather: nil,
            cache: .init(places: 1, hits: 4, misses: 1, lastFetchedAt: nil, ageSeconds: nil),
            services: .init(
                bySource: ["openweather": .init(calls: 1, callsToday: 1)], iconDownloads: 1, lastError: nil,
                nextAttemptAt: nil),
            entries: .init(
                stamped: 5, restored: 4, alreadyStamped: 2, skipped: 1, backdated: 3, waiting: 0,
                lastScanAt: "2026-11-22T09:00:01Z"),
            lastError: "disk full", lastErrorAt: "2026-11-22T09:10:00Z")
        let expected =
            #"{"started_at":"2026-11-22T09:00:00Z","uptime_seconds":2460,"inbox":"/srv/diary","providers":[{"#
            + #""type":"command","ok":false,"attempts":3,"failures":1,"last_success_at":"2026-11-22T09:40:00Z","#
            + #""last_error":"exit 1","last_error_at":null,"skipped_until":null,"last_position":{"latitude":37.5665,"#
            + #""longitude":126.978,"accuracy_m":17,"source":"gpsd","name":null,"taken_at":"2026-11-22T09:41:00Z"},"#
            + #""won":true,"accuracy_m":17,"age_seconds":60,"accuracy":"city","program":"/usr/bin/where"}],"weather":null,"cache":{"places":1,"hits":4,"#
            + #""misses":1,"last_fetched_at":null,"age_seconds":null},"#
            + #""services":{"calls":1,"calls_today":1,"icon_downloads":1,"last_error":null,"next_attempt_at":null,"#
            + #""by_source":{"openweather":{"calls":1,"calls_today":1}}},"openweather":{"calls":1,"calls_today":1,"#
            + #""icon_downloads":1,"last_error":null,"next_attempt_at":null},"entries":{"stamped":5,"#
            + #""restored":4,"already_stamped":2,"skipped":1,"backdated":3,"waiting":0,"last_scan_at":"2026-11-22T09:00:01Z"},"#
            + #""last_error":"disk full","last_error_at":"2026-11-22T09:10:00Z","lanes":null,"history":null,"#
            + #""conflicts":null,"timeline":null}"#
        let json = try JSONValueEncoder().encode(status).serialized
        #expect(json == expected)
        #expect(try JSONDecoder().decode(StatusDocument.self, from: Data(json.utf8)) == status)
    }

    @Test func anErrorIsWrittenAsBefore() throws {
        let json = try JSONValueEncoder().encode(ErrorDocument(error: "no weather yet", status: 503)).serialized
        #expect(json == #"{"error":"no weather yet","status":503}"#)
    }

    @Test func theCLIReadsTheDaemonsTag() throws {
        let document = try JSONDecoder().decode(TagDocument.self, from: Data(Self.tagJSON.utf8))
        #expect(document == TagDocument(Fixtures.tag, now: Self.now))
        #expect(try WeatherTag(document).weather == Fixtures.weather)
        // Everything the answer carried comes across: a block stamped by `stamp` through the daemon is the
        // daemon's own.
        var weather = Fixtures.weather
        weather.sunrise = Fixtures.observedAt.addingTimeInterval(-8000)
        weather.sunset = Fixtures.observedAt.addingTimeInterval(20000)
        weather.utcOffset = 32400
        weather.windDegrees = 250
        weather.windGust = 7.2
        weather.clouds = 75
        weather.visibility = 9000
        weather.snow1h = 0.4
        var full = Fixtures.tag
        full.weather = weather
        full.kind = .historical
        let json = try JSONValueEncoder().encode(TagDocument(full, now: Self.now)).serialized
        #expect(
            json.contains(#""sunrise":"2026-11-22T16:27:40+09:00""#) && json.contains(#""daylight":true"#), "\(json)")
        let back = try WeatherTag(try JSONDecoder().decode(TagDocument.self, from: Data(json.utf8)))
        #expect(back.weather == weather && back.kind == .historical)
        #expect(back.stampLines == full.stampLines)
        var wrong = document
        wrong.units = "kelvin-ish"
        #expect { try WeatherTag(wrong) } throws: { ($0 as? TagDocumentError)?.field == "units" }
    }
}
