import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

/// What leaves the machine and what is written down of a position: pure, no requests.
@Suite("privacy")
struct PrivacyTests {
    static let here = Position(
        latitude: 46.204_412, longitude: 6.143_211, accuracyMeters: 8, source: "gpsd", takenAt: Fixtures.observedAt)

    @Test func requestsCarryTwoDecimalsAndTheBlockThreeByDefault() {
        let policy = PrivacyPolicy()
        let request = policy.requestPosition(Self.here)
        #expect(request.latitude == 46.2 && request.longitude == 6.14)
        let shown = policy.shown(Self.here)
        #expect(shown.latitude == 46.204 && shown.longitude == 6.143 && !shown.withheld && shown.accuracyMeters == 8)
        // Nearby positions share one request (and one cache entry).
        var nearby = Self.here
        nearby.latitude += 0.0004
        #expect(policy.requestPosition(nearby).latitude == request.latitude)
    }

    /// Every service URL takes a `RequestPosition`, which only a policy makes: what leaves the machine is rounded.
    @Test func serviceURLsCarryOnlyWhatThePolicyLetsOut() {
        let request = PrivacyPolicy(requestDecimals: 1).requestPosition(Self.here)
        #expect(request.decimals == 1 && request.position.accuracyMeters == nil && request.cell == "46.20,6.10")
        let urls = [
            OpenWeatherAPI.currentWeatherURL(baseURL: "http://h", at: request, apiKey: "k", units: .metric, lang: "en"),
            OpenWeatherAPI.reverseGeocodingURL(baseURL: "http://h", at: request, apiKey: "k"),
            OpenWeatherAPI.airPollutionURL(baseURL: "http://h", at: request, apiKey: "k"),
            OpenWeatherAPI.timemachineURL(
                baseURL: "http://h", at: request, time: Fixtures.observedAt, apiKey: "k", units: .metric, lang: "en"),
        ]
        for url in urls {
            #expect(url.contains("lat=46.20000&lon=6.10000"), "\(url)")
        }
    }

    @Test func exactRoundedOrNone() {
        #expect(PrivacyPolicy(stampCoordinates: .exact).shown(Self.here).latitude == 46.204_412)
        #expect(PrivacyPolicy(stampCoordinates: .rounded, decimals: 1).shown(Self.here).longitude == 6.1)
        let none = PrivacyPolicy(stampCoordinates: .none).shown(Self.here)
        #expect(none.withheld && none.latitude == 0 && none.accuracyMeters == nil && none.source == "gpsd")
        var tag = Fixtures.tag
        tag.position = none
        let lines = tag.stampLines
        #expect(!lines.contains { $0.contains("latitude") || $0.contains("longitude") || $0.contains("accuracy_m") })
        #expect(lines.suffix(2) == ["  location:", "    source: gpsd"])
    }

    @Test func insideAZoneOnlyItsNameIsShownAndItsCentreAsked() throws {
        let home = PrivacyPolicy.Area(name: "Home", latitude: 46.2051, longitude: 6.1442, radiusMeters: 300)
        let policy = PrivacyPolicy(zones: [home])
        #expect(policy.zone(containing: Self.here) == home, "about 130 m from its centre")
        let request = policy.requestPosition(Self.here)
        #expect(request.latitude == 46.21 && request.longitude == 6.14, "the zone's centre, rounded")
        let tag = policy.shown(
            WeatherTag(weather: Fixtures.weather, position: Self.here, iconFile: nil, fetchedAt: Fixtures.observedAt))
        #expect(tag.place == "Home" && tag.position.withheld && tag.position.name == "Home")
        let lines = tag.stampLines
        #expect(lines.contains("  place: Home") && !lines.contains { $0.contains("Seoul") })
        #expect(lines.suffix(3) == ["  location:", "    name: Home", "    source: gpsd"])
        let document = LocationDocument(tag.position)
        #expect(document.latitude == nil && document.longitude == nil && document.name == "Home")
        #expect(Position(document).withheld)
        // Outside it: rounded as usual.
        var away = Self.here
        away.latitude += 0.01
        #expect(policy.zone(containing: away) == nil && !policy.shown(away).withheld)
    }
}

/// The reverse geocoder's answer and its cache: pure.
@Suite("place names")
struct PlaceNameTests {
    @Test func theGeocodersAnswerAndItsLanguages() throws {
        let body = #"""
            [{"name": "Geneva", "local_names": {"fr": "Genève", "de": "Genf", "ko": "제네바"}, "lat": 46.2, "lon": 6.14,
              "country": "CH", "state": "Geneva"}]
            """#
        let place = try #require(
            try OpenWeatherAPI.decodeReverseGeocoding(HTTPResponse(status: 200, body: Array(body.utf8))))
        #expect(place.name(in: "fr") == "Genève" && place.name(in: "de") == "Genf" && place.name(in: "en") == "Geneva")
        #expect(place.name(in: "zh_cn") == "Geneva" && place.region == "Geneva" && place.country == "CH")
        #expect(try OpenWeatherAPI.decodeReverseGeocoding(HTTPResponse(status: 200, body: Array("[]".utf8))) == nil)
        #expect(throws: WeatherError.self) {
            try OpenWeatherAPI.decodeReverseGeocoding(HTTPResponse(status: 500, body: []))
        }
        #expect(
            OpenWeatherAPI.reverseGeocodingURL(baseURL: "http://h/", at: Fixtures.request(46.2, 6.14), apiKey: "k")
                == "http://h/geo/1.0/reverse?lat=46.20000&lon=6.14000&limit=1&appid=k")
    }

    @Test func namesAreKeptThirtyDaysAndFailuresTenMinutes() {
        var cache = PlaceNameCache()
        let now = Fixtures.observedAt
        let cell = PlaceNameCache.cell(PrivacyTests.here)
        #expect(cell == "46.20,6.14" && cache.lookup(cell, now: now) == .unknown)
        cache.store(PlaceName(name: "Geneva"), for: cell, at: now)
        #expect(cache.lookup(cell, now: now.addingTimeInterval(29 * 86_400)) == .known(PlaceName(name: "Geneva")))
        #expect(cache.lookup(cell, now: now.addingTimeInterval(30 * 86_400)) == .unknown)
        cache.store(nil, for: "0.00,0.00", at: now)
        #expect(cache.lookup("0.00,0.00", now: now.addingTimeInterval(599)) == .known(nil))
        #expect(cache.lookup("0.00,0.00", now: now.addingTimeInterval(600)) == .unknown)
    }
}

/// `stamp.fields`: which lines the block holds, and in what order.
@Suite("the block's fields")
struct StampFieldTests {
    @Test func theChosenFieldsInTheirOrderAndTheWholeBlockByDefault() {
        #expect(
            Fixtures.tag.stampLines(fields: [.temperature, .condition, .moonPhase]) == [
                "weather:", "  temperature: 12.3", "  condition: Clouds", "  moon_phase: waxing_gibbous",
            ])
        #expect(Fixtures.tag.stampLines(fields: [.location]).count == 6, "weather:, location: and its four lines")
        #expect(Fixtures.tag.stampLines == Fixtures.tag.stampLines(fields: StampField.all))
        // A field without a value is left out rather than written empty.
        #expect(Fixtures.tag.stampLines(fields: [.windGust, .sunrise]) == ["weather:"])
    }
}

/// The air: OpenWeather's answer, the block's `air`, the templates and waybar's class.
@Suite("air quality")
struct AirQualityTests {
    @Test func theAnswerTheBlockAndTheClasses() throws {
        let body = #"""
            {"coord": {"lon": 6.14, "lat": 46.2}, "list": [{"main": {"aqi": 4}, "components": {"co": 201.94,
             "no2": 40.1, "o3": 68.66, "so2": 0.64, "pm2_5": 35.5, "pm10": 50.2, "nh3": 0.12}, "dt": 1605182400}]}
            """#
        let air = try OpenWeatherAPI.decodeAirPollution(HTTPResponse(status: 200, body: Array(body.utf8)))
        #expect(air == AirQuality(aqi: 4, pm2_5: 35.5, pm10: 50.2, o3: 68.66, no2: 40.1) && air.label == "poor")
        #expect(
            [1, 2, 3, 4, 5].map { AirQuality(aqi: $0).label } == ["good", "fair", "moderate", "poor", "very_poor"])
        #expect(throws: WeatherError.self) {
            try OpenWeatherAPI.decodeAirPollution(HTTPResponse(status: 200, body: Array(#"{"list": []}"#.utf8)))
        }
        var tag = Fixtures.tag
        tag.airQuality = air
        #expect(
            tag.stampLines(fields: [.air]) == [
                "weather:", "  air:", "    aqi: 4", "    label: poor", "    pm2_5: 35.5", "    pm10: 50.2",
                "    o3: 68.66",
                "    no2: 40.1",
            ])
        #expect(Fixtures.tag.stampLines(fields: [.air]) == ["weather:"], "no air asked for, none written")
        #expect(try TagFormatter(template: "{aqi} {air}").format(tag) == "4 poor")
        #expect(Waybar.classes(tag, state: "ok").last == "aqi-poor")
    }
}

/// waybar reads `text` and `tooltip` as Pango markup.
@Suite("waybar's markup")
struct WaybarMarkupTests {
    @Test func textAndTooltipAreEscaped() {
        var tag = Fixtures.tag
        tag.geocodedPlace = "Café & <Bar>"
        let module = Waybar.module(for: tag, text: "12°C · Café & <Bar>", now: Fixtures.observedAt).serialized
        #expect(module.contains("Café &amp; &lt;Bar&gt;") && !module.contains("& <"), "\(module)")
        let down = Waybar.unavailable("no <socket> & no daemon", text: "").serialized
        #expect(down.contains(#""text":"n/a""#) && down.contains("no &lt;socket&gt; &amp; no daemon"), "\(down)")
    }
}

/// The timemachine's calls of a day (`history.max_calls_per_day`): the one budget every history source has, with a
/// day's limit alone. Pure, with a given clock.
@Suite("history's budget")
struct HistoryBudgetTests {
    @Test func aDaysCallsThenAWaitUntilTheFirstAgesOut() throws {
        // 2026-11-23 21:00Z.
        let evening = Date(timeIntervalSince1970: 1_795_467_600)
        // Another process made one call two hours ago.
        var budget = CallBudget(limits: .perDay(3), spent: [.init(at: evening.addingTimeInterval(-7200), weight: 1)])
        #expect(budget.admit(weight: 1, now: evening) == nil)
        #expect(budget.admit(weight: 1, now: evening) == nil)
        #expect(budget.left(now: evening) == 0)
        // The fourth waits until the first is 24 hours old: 22 hours (and a millisecond).
        #expect(budget.admit(weight: 1, now: evening) == .milliseconds(22 * 3600 * 1000 + 1))
        let later = evening.addingTimeInterval(22 * 3600)
        #expect(budget.admit(weight: 1, now: later) == nil)
        #expect(budget.left(now: later) == 0)
        // A failed call is given back.
        budget.refund(weight: 1, at: later)
        #expect(budget.left(now: later) == 1)
    }
}
