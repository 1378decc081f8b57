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

    /// A made-up source as a contributor adds one, following docs/weather-sources.md: this file is its file (the
    /// plugin, its section, its reader), `register` its registry line. Every place that lists sources picks it up
    /// with no other edit: the schema, the accepted keys (which weathertag.json(5) is checked against), `check`'s
    /// line, the stamp's summary, the keyless hint, the fuzz targets' readers and README.md's lists.
    struct GardenSection: ConfigurationSection {
        static let name = "garden_station"
        static let description: String? = "The station in the garden (no key)."
        static let declaredKeys: [ConfigKey] = [
            .url("base_url", default: "http://garden.local", "Where the station answers."),
            .integer("sensor", minimum: 1, maximum: 8, default: 1),
        ]
        var baseURL = "http://garden.local"

        init(_ object: ConfigObject, context: SectionContext, warnings: inout [String]) throws(ConfigurationError) {
            if let url = try object.url("base_url") { self.baseURL = url }
        }
    }

    static let garden = WeatherSourcePlugin(
        type: "garden", name: "The Garden Station",
        answers: [AnswerReader("the garden station's reading") { bytes in _ = try? JSONParser.parse(bytes) }],
        keys: [.seconds("timeout_seconds", maximum: 60, default: 2, "How long the station may take.")],
        sections: [GardenSection.self]
    ) { (_, context) throws(ConfigurationError) in
        context.sections[GardenSection.self].baseURL
    } make: { _, _ in
        StaticWeatherSource(Fixtures.weather)
    }

    @Test func aNewSourceIsPickedUpEverywhereWithNoOtherEdit() async throws {
        var weather = WeatherSourceRegistry.builtIns
        weather.register(Self.garden)
        let plugins = PluginRegistries(location: .builtIns, weather: weather, geocoders: .builtIns)

        // The schema: its section, its type, its entry's keys.
        let schema = try #require(
            try JSONSerialization.jsonObject(with: Data(ConfigSchema.text(plugins).utf8)) as? [String: Any])
        let properties = schema["properties"] as? [String: Any]
        let section = properties?["garden_station"] as? [String: Any]
        #expect(Set((section?["properties"] as? [String: Any])?.keys.map { $0 } ?? []) == ["base_url", "sensor"])
        #expect(section?["description"] as? String == "The station in the garden (no key).")
        let source = (schema["definitions"] as? [String: Any])?["source"] as? [String: Any]
        let types = ((source?["properties"] as? [String: Any])?["type"] as? [String: Any])?["enum"] as? [String]
        #expect(types?.last == "garden")
        // The built-ins' schema has none of it: the committed file is the built-ins'.
        #expect(!ConfigSchema.text(.builtIns).contains("garden"))
        // The accepted keys, which the man page is checked against.
        #expect(Configuration.sectionKeys(plugins)["garden_station"] == ["base_url", "sensor"])
        // `check`'s line, the stamp's summary.
        #expect(plugins.weather.label(of: "garden") == "garden (The Garden Station)")
        var answered = Fixtures.weather
        answered.source = "garden"
        #expect(plugins.nameOfSource(of: answered) == "The Garden Station")
        // The keyless hint, the fuzz targets' readers, README.md's lists.
        #expect(plugins.weather.keyless.last == "garden")
        #expect(plugins.weather.answers.contains { $0.type == "garden" && $0.reader.name.contains("garden") })
        let listed = GeneratedFilesTests.readmeLists(plugins)["weather sources, listed"]
        #expect(listed?.contains("The Garden Station") == true)

        // And a configuration that lists it is valid by the schema and by the decoder; a key it lacks is refused by
        // the schema (python3-jsonschema, a validator of its own).
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("schema.json", ConfigSchema.text(plugins))
        let inbox = try directory.makeDirectory("inbox")
        let good = """
            {"inbox": {"path": "\(inbox)"}, "garden_station": {"sensor": 2},
             "weather": {"providers": [{"type": "garden", "timeout_seconds": 5}]}}
            """
        let bad = """
            {"inbox": {"path": "\(inbox)"}, "weather": {"providers": [{"type": "garden", "colour": "green"}]}}
            """
        try directory.write("documents.json", "[\(good), \(bad)]")
        try directory.write(
            "validate.py",
            """
            import json, sys, jsonschema
            validator = jsonschema.Draft7Validator(json.load(open(sys.argv[1])))
            for document in json.load(open(sys.argv[2])):
                print("valid" if validator.is_valid(document) else "invalid")
            """)
        let python = try #require(which("python3"))
        let result = try await ChildProcess.run(
            [python, directory.file("validate.py"), directory.file("schema.json"), directory.file("documents.json")],
            in: directory)
        #expect(result.stdout.split(separator: "\n") == ["valid", "invalid"], "\(result.stderr)")
        let configuration = try Configuration.decode(
            try JSONParser.parse(Array(good.utf8)), environment: ["HOME": directory.path], plugins: plugins,
            configDirectory: directory.path, files: LocalConfigurationFiles())
        #expect(configuration.weather.sources.map(\.type) == ["garden"])
    }
}
