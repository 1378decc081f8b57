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
        let inbox = self.directory.file("inbox")
        if !FileManager.default.fileExists(atPath: inbox) { _ = try self.directory.makeDirectory("inbox") }
        let text = """
            {"openweather": {"api_key": "k", "base_url": "http://127.0.0.1:9"},
             "location": {"providers": [{"type": "fixed", "latitude": 46.204412, "longitude": 6.143211}]},
             "geocoding": {"enabled": false},
             "cache": {"directory": "\(self.directory.file("cache"))"}, "state": {"directory": "\(self.directory.file("state"))", "enabled": \(stateEnabled)},
             "inbox": {"path": "\(inbox)"}\(extra)}
            """
        let configuration = try Configuration.decode(
            try JSONParser.parse(Array(text.utf8)), environment: [:], registry: .builtIns,
            configDirectory: self.directory.path, files: LocalConfigurationFiles())
        let http = RecordingHTTPClient { request in
            HTTPResponse(
                status: request.url.contains("/img/") ? 404 : 200, headers: [:], body: Array(Self.weather.utf8))
        }
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return (ServiceFactory(configuration: configuration, http: http, threadPool: .singleton, logger: logger), http)
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
        #expect(try plain.diaryIndex() == nil, "no diary index before the daemon made one")
        let database = try #require(plain.stateDatabase())
        #expect(database.path == self.directory.file("state") + "/state.sqlite")
        #expect(try plain.diaryIndex() != nil)

        let (off, _) = try self.factory(stateEnabled: false)
        #expect(off.stateDatabase() == nil, "state.enabled false")
        #expect(try off.diaryIndex() == nil)
        let (historical, _) = try self.factory(#", "history": {"enabled": true}"#)
        #expect(historical.historyService(store: nil) != nil, "kept in memory without a store")
        #expect(historical.historyService(store: database) != nil)
    }
}
