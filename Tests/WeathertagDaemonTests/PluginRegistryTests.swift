import Foundation
import Synchronization
import Testing
import WeathertagCore
import WeathertagDaemon
import WeathertagFuzzing
import WeathertagTestSupport

/// A plugin says what the lists of plugins wanted (its name, whether it needs a key, its answer readers), and every
/// place that names plugins asks the registry: a source registered here, and nowhere else, is offered, named and
/// fuzzed.
@Suite("Plugin registry")
struct PluginRegistryTests {
    /// A keyless source no list names: only its registration can put it in the places below.
    static let station = WeatherSourcePlugin(
        type: "station", name: "The Garden Station",
        answers: [AnswerReader("the station's reading") { bytes in Self.stationReads.add(bytes.count) }],
        keys: []
    ) { (_, _) throws(ConfigurationError) in
        0
    } make: { _, _ in
        StaticWeatherSource(Fixtures.weather)
    }
    static let stationReads = Counter()

    final class Counter: Sendable {
        private let total = Mutex(0)
        func add(_ count: Int) { self.total.withLock { $0 += count } }
        var value: Int { self.total.withLock { $0 } }
    }

    @Test func everyBuiltInPluginSaysItsNameAndWhetherItNeedsAKey() {
        let registries = PluginRegistries.builtIns
        let types = registries.weather.plugins.map(\.type) + registries.location.plugins.map(\.type)
        let names = registries.weather.plugins.map(\.name) + registries.location.plugins.map(\.name)
        for (type, name) in zip(types, names) { #expect(!name.isEmpty, "\(type)") }
        #expect(registries.weather.plugins.filter(\.needsKey).map(\.type) == ["openweather"])
        #expect(registries.weather.name(of: "met-norway") == "MET Norway")
        #expect(registries.weather.name(of: "no-such-source") == "no-such-source")
        #expect(registries.weather.keyless == ["open-meteo", "met-norway", "command"])
        #expect(registries.location.name(of: "ip") == "IP geolocation")
    }

    /// Where a key is missing, the sources that need none are offered: the registry's, whatever they are.
    @Test func theMissingKeyErrorOffersEverySourceRegisteredThatNeedsNone() throws {
        var weather = WeatherSourceRegistry.builtIns
        weather.register(Self.station)
        let plugins = PluginRegistries(location: .builtIns, weather: weather)
        let document = #"{"inbox": {"path": "/srv/diary"}, "weather": {"providers": [{"type": "openweather"}]}}"#
        let files = MemoryConfigurationFiles(
            files: ["/etc/weathertag/config.json": (document, 0o644)], folders: ["/srv/diary"])
        #expect {
            try Configuration.load(
                path: "/etc/weathertag/config.json", environment: [:], plugins: plugins, files: files)
        } throws: { error in
            let message = "\(error)"
            return (error as? ConfigurationError)?.field == "openweather.api_key"
                && message.contains("needs no key (open-meteo, met-norway, command, station)")
        }
    }

    /// The fuzz targets read every input with every registered reader: none is missing, none is named by hand.
    @Test func theFuzzTargetsReadWithEveryRegisteredReader() {
        let registries = PluginRegistries.builtIns
        let registered =
            (registries.weather.plugins.flatMap { plugin in plugin.answers.map { (plugin.type, $0.name) } }
                + registries.location.plugins.flatMap { plugin in plugin.answers.map { (plugin.type, $0.name) } })
        #expect(FuzzChecks.readers.map { "\($0.type): \($0.reader.name)" } == registered.map { "\($0): \($1)" })
        // Every plugin whose answers are bytes has a reader: only gpsd's (libgps reads them) and a fixed place's
        // (none) have not.
        let without =
            (registries.weather.plugins.filter(\.answers.isEmpty).map(\.type)
                + registries.location.plugins.filter(\.answers.isEmpty).map(\.type))
        #expect(without == ["gpsd", "fixed"])
        // And a registry's readers are its plugins': a new one's are read with no other edit.
        var weather = WeatherSourceRegistry.builtIns
        weather.register(Self.station)
        let before = Self.stationReads.value
        for (_, reader) in weather.answers { reader.read(Array("{\"temperature\": 4}".utf8)) }
        #expect(Self.stationReads.value == before + 18)
    }
}
