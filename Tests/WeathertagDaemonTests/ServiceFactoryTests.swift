import Foundation
import Logging
import Testing
import WeathertagCore
import WeathertagTestSupport

@testable import WeathertagDaemon

/// The one factory: what it builds from a configuration, as `serve`, `stamp`, `check` and `entries` get it.
@Suite("the service factory")
final class ServiceFactoryTests {
    let directory: TemporaryDirectory

    init() throws {
        self.directory = try TemporaryDirectory()
    }

    deinit {
        self.directory.remove()
    }

    static let weather =
        #"{"weather":[{"id":800,"main":"Clear","description":"clear sky","icon":"01d"}],"main":{"temp":3.5},"dt":1795340460,"name":"Geneva"}"#

    func factory(_ extra: String = "", stateEnabled: Bool = true) throws -> (ServiceFactory, RecordingHTTPClient) {
        let http = RecordingHTTPClient { request in
            HTTPResponse(
                status: request.url.contains("/img/") ? 404 : 200, headers: [:], body: Array(Self.weather.utf8))
        }
        let factory = try ServiceFactory.forTesting(
            in: self.directory,
            """
            "location": {"providers": [{"type": "fixed", "latitude": 46.204412, "longitude": 6.143211}]},
            "state": {"directory": "\(self.directory.file("state"))", "enabled": \(stateEnabled)}\(extra)
            """, http: http)
        return (factory, http)
    }

    @Test func theWeatherOfAConfigurationAsEveryCommandGetsIt() async throws {
        let (factory, http) = try self.factory()
        #expect(factory.providers.map(\.type) == ["fixed"], "built once from the plain settings")
        let tag = try await factory.weatherService().currentTag(maximumAge: .seconds(600))
        #expect(tag.weather.description == "clear sky")
        #expect(tag.position.latitude == 46.204, "shown as privacy.decimals allows")
        let asked = try #require(http.requests.first?.url)
        #expect(asked.contains("lat=46.20000&lon=6.14000"), "asked with privacy.request_decimals: \(asked)")
        // A command's body runs while the providers' background work does, and its answer comes back.
        let chain = factory.locationChain()
        #expect(try await factory.withProvidersRunning { try await chain.locate() }.longitude == 6.143211)
    }

    @Test func storesAndHistoryAsTheConfigurationSays() async throws {
        let (plain, _) = try self.factory()
        #expect(plain.historyService(store: nil) == nil, "history.enabled is off by default")
        #expect(try await plain.diaryIndex() == nil, "no diary index before the daemon made one")
        let database = try #require(await plain.stateDatabase())
        #expect(database.path == self.directory.file("state") + "/state.sqlite")
        #expect(try await plain.diaryIndex() != nil)

        let (off, _) = try self.factory(stateEnabled: false)
        #expect(await off.stateDatabase() == nil, "state.enabled false")
        #expect(try await off.diaryIndex() == nil)
        let (historical, _) = try self.factory(#", "history": {"enabled": true, "source": "openweather"}"#)
        #expect(historical.historyService(store: nil) != nil, "kept in memory without a store")
        #expect(historical.historyService(store: database.history) != nil)
    }
}

extension ServiceFactory {
    /// The factory of a configuration for unit tests: OpenWeather (`openWeather`: its members besides the key; a
    /// closed loopback port by default) answered by `http`, no geocoding, the cache in `directory`, an inbox made
    /// there, and `sections` (JSON members) besides.
    static func forTesting(
        in directory: TemporaryDirectory, _ sections: String, http: any HTTPClient,
        openWeather: String = #""base_url": "http://127.0.0.1:9""#, now: @escaping @Sendable () -> Date = { Date() }
    ) throws -> ServiceFactory {
        let inbox = directory.file("inbox")
        if !FileManager.default.fileExists(atPath: inbox) { _ = try directory.makeDirectory("inbox") }
        let text = """
            {"openweather": {"api_key": "k", \(openWeather)}, "geocoding": {"enabled": false},
             "cache": {"directory": "\(directory.file("cache"))"}, "inbox": {"path": "\(inbox)"}, \(sections)}
            """
        let configuration = try Configuration.decode(
            try JSONParser.parse(Array(text.utf8)), environment: [:], plugins: .builtIns,
            configDirectory: directory.path, files: LocalConfigurationFiles())
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return ServiceFactory(
            configuration: configuration, http: http, threadPool: .singleton, logger: logger, now: now)
    }
}
