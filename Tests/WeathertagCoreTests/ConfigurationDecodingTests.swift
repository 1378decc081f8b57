import Logging
import Testing
import WeathertagCore
import WeathertagTestSupport

/// The core decodes a configuration without touching the disk: every file it needs is asked of `ConfigurationFiles`.
@Suite("Configuration without a disk")
struct ConfigurationDecodingTests {
    /// A plugin as the daemon's are written: settings validated at load, a provider built from them later.
    static let fixed = LocationProviderPlugin(
        type: "fixed", name: "a fixed place",
        keys: [.number("latitude", required: true), .number("longitude", required: true)]
    ) {
        (config, _) throws(ConfigurationError) in
        Position(
            latitude: try config.latitude("latitude"), longitude: try config.longitude("longitude"), source: "fixed",
            takenAt: Fixtures.observedAt)
    } make: { position, _ in
        StaticLocationProvider(position)
    }

    /// A weather source as the daemon's are written: its settings from a section of its own, which Core knows only
    /// through its plugin, and listed without `weather.providers` when that section holds a key.
    static let weather = WeatherSourcePlugin(
        type: "station", name: "The Station", needsKey: true, keys: [], sections: [StationSection.self],
        impliedBy: { $0.sections[StationSection.self].key == nil ? nil : "a station key, so the station alone" }
    ) { (_, context) throws(ConfigurationError) in
        context.sections[StationSection.self].key
    } make: { _, _ in
        StaticWeatherSource(Fixtures.weather)
    }

    /// `station`: a key in a file, read through `ConfigurationFiles` as every file is.
    struct StationSection: ConfigurationSection {
        static let name = "station"
        static let declaredKeys: [ConfigKey] = [.string("key_file", minLength: 1)]
        var key: String?

        init(_ object: ConfigObject, context: SectionContext, warnings: inout [String]) throws(ConfigurationError) {
            guard let name = try object.nonEmptyString("key_file") else { return }
            let file = context.paths.absolute(name)
            guard let bytes = context.files.contents(file) else {
                throw ConfigurationError(field: object.fieldPath("key_file"), message: "cannot read \(file)")
            }
            self.key = String(decoding: bytes, as: UTF8.self).trimmingWhitespaceAndNewlines()
        }
    }

    func load(_ files: MemoryConfigurationFiles) throws(ConfigurationError) -> Configuration {
        try Configuration.load(
            path: "/etc/weathertag/config.json", environment: [:],
            plugins: PluginRegistries(
                location: LocationProviderRegistry([Self.fixed]), weather: WeatherSourceRegistry([Self.weather])),
            files: files)
    }

    @Test func everythingComesThroughTheFilesItIsGiven() async throws {
        let document = """
            {"station": {"key_file": "key"}, "inbox": {"path": "/srv/diary"},
             "location": {"providers": [{"type": "fixed", "latitude": 1, "longitude": 2}]}}
            """
        var files = MemoryConfigurationFiles(
            files: ["/etc/weathertag/config.json": (document, 0o644), "/etc/weathertag/key": ("k-1\n", 0o644)],
            folders: ["/srv/diary"])
        let configuration = try self.load(files)
        #expect(configuration.sections[StationSection.self].key == "k-1")
        // A key and no `weather.providers`: the source its section implies.
        #expect(configuration.weather.origin == .implied(because: "a station key, so the station alone"))
        #expect(configuration.weather.sources.map(\.type) == ["station"])
        #expect(configuration.weather.sources.first?.settings as? String == "k-1")
        #expect(configuration.inbox.path == "/srv/diary")
        // Plain settings until something builds the provider.
        #expect(configuration.providers.map(\.type) == ["fixed"])
        #expect((configuration.providers[0].settings as? Position)?.longitude == 2)
        let provider = configuration.providers[0].makeProvider(
            LocationProviderContext(http: RecordingHTTPClient(body: "{}"), logger: Logger(label: "test")))
        #expect(try await provider.locate().latitude == 1)
        // The section's keys are the accepted ones: none is warned about, and the table has them.
        #expect(configuration.warnings.isEmpty)
        #expect(
            Configuration.sectionKeys(
                PluginRegistries(location: LocationProviderRegistry(), weather: WeatherSourceRegistry([Self.weather])))[
                    "station"] == ["key_file"])

        files.folders = []
        files.files["/srv/diary"] = ("", 0o644)
        #expect { try self.load(files) } throws: { ($0 as? ConfigurationError)?.field == "inbox.path" }
        files.files["/etc/weathertag/config.json"] = nil
        #expect { try self.load(files) } throws: { "\($0)".contains("it does not exist") }
    }

    /// `inbox.layout` and `new.template`: read, and a bad one refused naming the field.
    @Test func theDiarysLayoutAndTheNewEntrysTemplate() throws {
        func files(_ extra: String) -> MemoryConfigurationFiles {
            let document = """
                {"station": {}, "weather": {"providers": [{"type": "station"}]}, "inbox": {"path": "/srv/diary"\(extra)},
                 "location": {"providers": [{"type": "fixed", "latitude": 1, "longitude": 2}]}}
                """
            return MemoryConfigurationFiles(
                files: [
                    "/etc/weathertag/config.json": (document, 0o644), "/etc/weathertag/day.md": ("{{title}}", 0o644),
                ],
                folders: ["/srv/diary"])
        }
        let plain = try self.load(files(""))
        #expect(plain.inbox.layout == .default && plain.newEntry.templatePath == nil)
        let set = try self.load(files(#", "layout": "%Y/%Y-%m-%d.md"}, "new": {"template": "day.md""#))
        #expect(set.inbox.layout.pattern == "%Y/%Y-%m-%d.md")
        #expect(set.newEntry.templatePath == "/etc/weathertag/day.md")
        #expect { try self.load(files(#", "layout": "../%Y-%m-%d.md""#)) } throws: { error in
            (error as? ConfigurationError)?.field == "inbox.layout" && "\(error)".contains("..")
        }
        #expect { try self.load(files(#", "layout": "%Y-%m.md""#)) } throws: { error in
            (error as? ConfigurationError)?.field == "inbox.layout" && "\(error)".contains("%d")
        }
        #expect { try self.load(files(#"}, "new": {"template": "missing.md""#)) } throws: { error in
            (error as? ConfigurationError)?.field == "new.template" && "\(error)".contains("does not exist")
        }
    }

    /// A section is known because a registered plugin reads it: without that plugin, its key is unknown at the top
    /// level, warned about and ignored, and nothing of it is decoded.
    @Test func aSectionIsAcceptedOnlyWithThePluginThatReadsIt() throws {
        let document = """
            {"station": {"key_file": "missing"}, "inbox": {"path": "/srv/diary"},
             "weather": {"providers": [{"type": "other"}]},
             "location": {"providers": [{"type": "fixed", "latitude": 1, "longitude": 2}]}}
            """
        let files = MemoryConfigurationFiles(
            files: ["/etc/weathertag/config.json": (document, 0o644)], folders: ["/srv/diary"])
        let other = WeatherSourcePlugin(type: "other", name: "Other", keys: []) { (_, _) throws(ConfigurationError) in
            0
        } make: { _, _ in
            StaticWeatherSource(Fixtures.weather)
        }
        let without = try Configuration.load(
            path: "/etc/weathertag/config.json", environment: [:],
            plugins: PluginRegistries(
                location: LocationProviderRegistry([Self.fixed]), weather: WeatherSourceRegistry([other])),
            files: files)
        #expect(without.warnings.contains { $0.hasPrefix("station: unknown key, ignored") })
        // With it, the section is its plugin's to decode: its missing file is an error naming the field.
        #expect { try self.load(files) } throws: { ($0 as? ConfigurationError)?.field == "station.key_file" }
    }
}
