import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Testing
import WeathertagCore
import WeathertagTestSupport

@testable import WeathertagDaemon

/// A provider that is a few kilometres further east at every call, so that no two calls share a cache entry.
final class WanderingProvider: LocationProvider {
    let type = "wandering"
    let timeout: Duration = .seconds(1)
    private let step = Mutex(0)

    func locate() async throws -> Position {
        let step = self.step.withLock {
            $0 += 1
            return $0
        }
        return Position(latitude: 46.2, longitude: 6.0 + Double(step) * 0.05, source: self.type, takenAt: Date())
    }
}

/// The HTTP status the fake OpenWeather answers with.
final class ModeSwitch: Sendable {
    let status = Mutex(200)
}

@Suite("Weather service: rate ceiling and stale weather")
final class WeatherServiceTests {
    let directory: TemporaryDirectory
    let clock = ManualClock(Fixtures.observedAt)
    let mode = ModeSwitch()

    init() throws {
        self.directory = try TemporaryDirectory()
    }

    deinit {
        self.directory.remove()
    }

    func service(
        _ provider: any LocationProvider,
        maximumCallsPerMinute: Int = 60
    ) async throws -> (WeatherService, RecordingHTTPClient) {
        let mode = self.mode
        let http = RecordingHTTPClient { request in
            let status = mode.status.withLock { $0 }
            if request.url.contains("/img/") { return HTTPResponse(status: 404, headers: [:], body: []) }
            let body =
                status == 200
                ? #"{"weather":[{"id":800,"main":"Clear","description":"clear sky","icon":"01d"}],"main":{"temp":3.5},"dt":1795340460,"name":"Geneva"}"#
                : "<html>Bad Gateway</html>"
            return HTTPResponse(status: status, headers: [:], body: Array(body.utf8))
        }
        // Exact requests, as the service's own default: the wandering steps are far apart anyway.
        let factory = try ServiceFactory.forTesting(
            in: self.directory, #""privacy": {"stamp_coordinates": "exact", "request_decimals": 6}"#, http: http,
            openWeather: #""base_url": "http://127.0.0.1:1", "max_calls_per_minute": \#(maximumCallsPerMinute)"#,
            now: self.clock.now)
        let service = await factory.weatherService(chain: LocationChain(providers: [provider], now: self.clock.now))
        return (service, http)
    }

    func weatherCalls(_ http: RecordingHTTPClient) -> Int {
        http.requests.filter { $0.url.contains("/data/2.5/weather") }.count
    }

    @Test func neverMoreCallsThanTheCeilingInAnyMinute() async throws {
        let (service, http) = try await self.service(WanderingProvider(), maximumCallsPerMinute: 5)
        var refused = 0
        for _ in 0..<12 {
            do {
                _ = try await service.currentTag(maximumAge: .seconds(3600))
            } catch let error as WeatherError {
                guard case .rateLimited = error.kind else { throw error }
                #expect(error.message.contains("openweather.max_calls_per_minute"))
                refused += 1
            }
            self.clock.advance(by: 1)
        }
        #expect(self.weatherCalls(http) == 5, "five calls in the first minute")
        #expect(refused == 7)
        self.clock.advance(by: 60)
        _ = try await service.currentTag(maximumAge: .seconds(3600))
        #expect(self.weatherCalls(http) == 6, "a new minute, a new call")
    }

    @Test func staleWeatherIsUsedUpToTheGivenAgeAndNoFurther() async throws {
        let (service, http) = try await self.service(FixedLocationProvider(latitude: 46.2, longitude: 6.15, name: nil))
        let fresh = try await service.currentTag(maximumAge: .seconds(3600))
        #expect(!fresh.stale)
        self.mode.status.withLock { $0 = 503 }
        self.clock.advance(by: 1200)
        let stale = try await service.currentTag(maximumAge: .seconds(3600))
        #expect(stale.stale && stale.weather == fresh.weather)
        // Twenty minutes old is too old for a caller that accepts fifteen.
        await #expect(throws: WeatherError.self) { try await service.currentTag(maximumAge: .seconds(900)) }
        #expect(self.weatherCalls(http) >= 2)
    }
}

@Suite("Response cache")
struct ResponseCacheTests {
    @Test func answersAreKeptForOneSecondPerURI() {
        let cache = ResponseCache()
        let start = NIODeadline.now()
        let answer = APIResponse(status: 200, contentType: "application/json", body: "{\"a\":1}\n")
        cache.store(answer, for: "/v1/tag", now: start)
        #expect(cache.lookup("/v1/tag", now: start + .milliseconds(999))?.response == answer)
        #expect(cache.lookup("/v1/tag", now: start + .milliseconds(999))?.body.readableBytes == answer.body.utf8.count)
        #expect(cache.lookup("/v1/tag?format=text", now: start) == nil, "another URI is another answer")
        #expect(cache.lookup("/v1/tag", now: start + .seconds(1)) == nil, "gone after a second")
    }
}
