import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

@testable import WeathertagDaemon

@Suite("IP geolocation answers")
struct IPLocationProviderTests {
    func decode(_ service: IPLocationProvider.Service, _ body: String, status: Int = 200) throws -> Position {
        try IPGeolocationAPI.decode(
            HTTPResponse(status: status, body: Array(body.utf8)),
            service: service,
            takenAt: Fixtures.observedAt
        )
    }

    @Test func ipAPI() throws {
        let position = try self.decode(.ipAPI, #"{"status":"success","city":"Seoul","lat":37.5665,"lon":126.978}"#)
        #expect(position.latitude == 37.5665 && position.longitude == 126.978)
        #expect(position.name == "Seoul" && position.source == "ip" && position.accuracyMeters == nil)
        #expect(throws: LocationError.self) { try self.decode(.ipAPI, #"{"status":"fail","message":"private range"}"#) }
        #expect(throws: LocationError.self) { try self.decode(.ipAPI, #"{"status":"success"}"#) }
    }

    @Test func ipinfo() throws {
        let position = try self.decode(.ipinfo, #"{"ip":"203.0.113.7","city":"Oslo","loc":"59.9127,10.7461"}"#)
        #expect(position.latitude == 59.9127 && position.longitude == 10.7461 && position.name == "Oslo")
        #expect(throws: LocationError.self) { try self.decode(.ipinfo, #"{"loc":"nowhere"}"#) }
    }

    @Test func numbersInStringsAreAccepted() throws {
        let position = try self.decode(.ipAPI, #"{"status":"success","lat":"1.5","lon":"2.5"}"#)
        #expect(position.latitude == 1.5 && position.longitude == 2.5)
    }

    @Test func errorsAndJunk() {
        #expect(throws: LocationError.self) { try self.decode(.ipinfo, "{}", status: 429) }
        #expect(throws: LocationError.self) { try self.decode(.ipAPI, "<html>", status: 200) }
        #expect(throws: LocationError.self) { try self.decode(.ipAPI, #"{"status":"success","lat":91,"lon":0}"#) }
    }

    @Test func providerCachesItsAnswer() async throws {
        let http = RecordingHTTPClient(body: #"{"status":"success","lat":1,"lon":2}"#)
        let clock = ManualClock(Fixtures.observedAt)
        let provider = IPLocationProvider(
            service: .ipAPI,
            url: "http://127.0.0.1:1/json/",
            timeout: .seconds(1),
            cacheDuration: .seconds(600),
            http: http,
            now: clock.now
        )
        _ = try await provider.locate()
        _ = try await provider.locate()
        #expect(http.requests.count == 1)
        clock.advance(by: 600)
        _ = try await provider.locate()
        #expect(http.requests.count == 2)
        #expect(http.requests.first?.url == "http://127.0.0.1:1/json/")
    }

    @Test func fixedProvider() async throws {
        let provider = FixedLocationProvider(latitude: 37.5665, longitude: 126.978, name: "Seoul")
        let position = try await provider.locate()
        #expect(position.source == "fixed" && position.name == "Seoul" && position.latitude == 37.5665)
    }
}

/// The phone services' answers are read with `Decodable`, leniently: an odd element or field costs itself, not the
/// answer.
@Suite("phone services' answers")
struct PhoneServiceAnswerTests {
    static let now = Date(timeIntervalSince1970: 1_795_431_600)
    static let recorder = OwnTracksLocationProvider.Settings(
        url: "http://127.0.0.1:9", user: "me", device: "phone", token: nil, maximumGap: .seconds(600),
        maximumFixAge: .seconds(900), timeout: .seconds(1))

    @Test func aRecorderListWithOddElementsGivesItsLocations() async throws {
        let body = """
            [42, "text", {"_type": "transition", "lat": 1, "lon": 1, "tst": 1795431500},
             {"_type": "location", "lat": "59.9", "lon": 10.7, "tst": 1795431550},
             {"_type": "location", "lat": 59.91, "lon": 10.75, "tst": 1795431540, "acc": "far"},
             {"lat": 59.92, "lon": 10.76, "tst": 1795431530, "acc": 12}]
            """
        let provider = OwnTracksLocationProvider(
            settings: Self.recorder, http: RecordingHTTPClient(body: body), now: { Self.now })
        let position = try await provider.locate()
        // The newest real location: the string latitude is no number, the transition no location.
        #expect(position.latitude == 59.91 && position.longitude == 10.75 && position.accuracyMeters == nil)
        let past = try await provider.locate(at: Date(timeIntervalSince1970: 1_795_431_530))
        #expect(past?.latitude == 59.92 && past?.accuracyMeters == 12)

        let wrapped = OwnTracksLocationProvider(
            settings: Self.recorder,
            http: RecordingHTTPClient(body: #"{"count": 1, "data": [{"lat": 1.5, "lon": 2.5, "tst": 1795431530}]}"#),
            now: { Self.now })
        #expect(try await wrapped.locate(at: Date(timeIntervalSince1970: 1_795_431_530))?.longitude == 2.5)
        let junk = OwnTracksLocationProvider(
            settings: Self.recorder, http: RecordingHTTPClient(body: "<html>"), now: { Self.now })
        await #expect(throws: LocationError.self) { try await junk.locate() }
    }

    @Test func homeAssistantsStatesAndHistory() async throws {
        let state = """
            {"state": "home", "attributes": {"latitude": 46.2, "longitude": 6.14, "gps_accuracy": "n/a"},
             "last_updated": "2026-11-23T10:59:00+00:00"}
            """
        let history = """
            [42, [{"attributes": {"latitude": 46.21, "longitude": 6.15, "gps_accuracy": 20},
                   "last_changed": "2026-11-23T10:10:00+00:00"},
                  {"attributes": "none", "last_updated": "2026-11-23T10:11:00+00:00"}, 7]]
            """
        let http = RecordingHTTPClient { request in
            HTTPResponse(status: 200, body: Array((request.url.contains("/history/") ? history : state).utf8))
        }
        let provider = HomeAssistantLocationProvider(
            settings: .init(
                url: "http://127.0.0.1:9/", entity: "device_tracker.phone", token: ServiceToken("t", origin: "test"),
                maximumGap: .seconds(600), maximumFixAge: .seconds(900), timeout: .seconds(1)),
            http: http, now: { Self.now })
        let now = try await provider.locate()
        #expect(now.latitude == 46.2 && now.accuracyMeters == nil, "an accuracy that is no number is left out")
        let past = try await provider.locate(at: Date(timeIntervalSince1970: 1_795_428_600))
        #expect(past?.latitude == 46.21 && past?.accuracyMeters == 20)
    }
}

/// `GET /v1/location?at=` reads the one time grammar: what `where TIME` and `stamp --at` take.
@Suite("the location endpoint's time")
struct LocationEndpointTimeTests {
    @Test func atTakesTheGrammarAndABareDayMeansItsNoon() {
        let moment = EntryTime.given("2019-05-01 10:05")?.moment
        #expect(APIRouter.route(method: "GET", uri: "/v1/location?at=2019-05-01%2010:05") == .location(at: moment))
        #expect(
            APIRouter.route(method: "GET", uri: "/v1/location?at=2019-05-01")
                == .location(at: EntryTime.given("2019-05-01")?.moment))
        #expect(APIRouter.route(method: "GET", uri: "/v1/location") == .location(at: nil))
        guard case .refused(let response) = APIRouter.route(method: "GET", uri: "/v1/location?at=yesterday") else {
            Issue.record("a time that is none is refused")
            return
        }
        #expect(response.status == 400)
    }
}
