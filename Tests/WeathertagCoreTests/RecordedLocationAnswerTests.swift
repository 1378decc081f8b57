import Foundation
import Testing
import WeathertagCore

/// What location services really answered (`Recorded/PROVENANCE.md`), read by the pure readers in Core the
/// providers use: ip-api's answer with numbers and with strings, its refusal; the OwnTracks Recorder's last position;
/// a Home Assistant state with no coordinates.
@Suite("Location answers the services recorded")
struct RecordedLocationAnswerTests {
    static func body(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: RecordedAnswerTests.folder.appendingPathComponent(name)))
    }

    static let moment = Date(timeIntervalSince1970: 1_764_000_000)

    @Test func ipAPIsAnswerIsACityWithItsCoordinates() throws {
        let position = try IPGeolocationAPI.decode(
            HTTPResponse(status: 200, body: Self.body("ip-api-json-default.json")), service: .ipAPI,
            takenAt: Self.moment)
        #expect(position.latitude == 45.4995 && position.longitude == -73.5848)
        #expect(position.name == "Montreal" && position.source == "ip" && position.takenAt == Self.moment)
        #expect(position.accuracyMeters == nil)
    }

    /// Its documentation's older example gives the coordinates as strings: read as numbers.
    @Test func ipAPIsCoordinatesInStringsAreNumbers() throws {
        let position = try IPGeolocationAPI.decode(
            HTTPResponse(status: 200, body: Self.body("ip-api-docs-strings.json")), service: .ipAPI,
            takenAt: Self.moment)
        #expect(position.latitude == 37.7898 && position.longitude == -122.3942)
        #expect(position.name == "San Francisco")
    }

    /// A query it cannot answer is an error with its own message, never a place.
    @Test func ipAPIsRefusalIsAnErrorWithItsMessage() throws {
        #expect {
            try IPGeolocationAPI.decode(
                HTTPResponse(status: 200, body: Self.body("ip-api-fail.json")), service: .ipAPI, takenAt: Self.moment)
        } throws: { "\($0)".contains("ip-api failed: invalid query") }
        // The same answer read as ipinfo's has no `loc`: no coordinates, no place.
        #expect(throws: LocationError.self) {
            try IPGeolocationAPI.decode(
                HTTPResponse(status: 200, body: Self.body("ip-api-json-default.json")), service: .ipinfo,
                takenAt: Self.moment)
        }
    }

    /// The Recorder's last position, with all the fields it adds (address, geohash, times as text): the point, its
    /// time from `tst`, its accuracy.
    @Test func theOwnTracksRecordersLastPosition() throws {
        let points = try #require(OwnTracksRecorderAPI.last(Self.body("owntracks-recorder-last.json")))
        #expect(points.count == 1)
        let point = try #require(points.first)
        #expect(point.latitude == 51.06263391678321 && point.longitude == 13.60279820860699)
        #expect(point.time == Date(timeIntervalSince1970: 1_440_405_601))
        #expect(point.accuracyMeters == 10)
        // The same list as /api/0/locations answers it (older Recorders answer the list alone).
        let listed = try Self.body("owntracks-recorder-last.json")
        #expect(OwnTracksRecorderAPI.locations(listed) == points)
        #expect(OwnTracksRecorderAPI.last(Array("{}".utf8)) == nil)
    }

    /// A state with no coordinates (the sun) is a state, with no point: not a place.
    @Test func aHomeAssistantStateWithoutCoordinatesHasNoPoint() throws {
        let decoded = try #require(HomeAssistantAPI.state(Self.body("homeassistant-state-sun.json")))
        #expect(decoded.point == nil)
        let state = try Self.body("homeassistant-state-sun.json")
        #expect(HomeAssistantAPI.history(state) == nil)
        #expect(HomeAssistantAPI.history(Array("[[]]".utf8)) == [])
    }
}
