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
        let home = PrivacyPolicy.Zone(name: "Home", latitude: 46.2051, longitude: 6.1442, radiusMeters: 300)
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
