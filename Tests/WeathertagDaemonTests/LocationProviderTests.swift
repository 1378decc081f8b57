import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

@testable import WeathertagDaemon

@Suite("IP geolocation answers")
struct IPLocationProviderTests {
    func decode(_ service: IPLocationProvider.Service, _ body: String, status: Int = 200) throws -> Position {
        try IPLocationProvider.decode(
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
