import Logging
import Testing
import WeathertagCore
import WeathertagTestSupport

/// The core decodes a configuration without touching the disk: every file it needs is asked of `ConfigurationFiles`.
@Suite("Configuration without a disk")
struct ConfigurationDecodingTests {
    /// A plugin as the daemon's are written: settings validated at load, a provider built from them later.
    static let fixed = LocationProviderPlugin(type: "fixed", keys: ["latitude", "longitude"]) {
        (config, _) throws(ConfigurationError) in
        Position(
            latitude: try config.latitude("latitude"), longitude: try config.longitude("longitude"), source: "fixed",
            takenAt: Fixtures.observedAt)
    } make: { position, _ in
        StaticLocationProvider(position)
    }

    /// A weather source as the daemon's are written: its settings from the service's own section.
    static let weather = WeatherSourcePlugin(type: "openweather", keys: []) {
        (_, context) throws(ConfigurationError) in
        context.openWeather.baseURL
    } make: { _, _ in
        StaticWeatherSource(Fixtures.weather)
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
            {"openweather": {"api_key_file": "key"}, "inbox": {"path": "/srv/diary"},
             "location": {"providers": [{"type": "fixed", "latitude": 1, "longitude": 2}]}}
            """
        var files = MemoryConfigurationFiles(
            files: ["/etc/weathertag/config.json": (document, 0o644), "/etc/weathertag/key": ("k-1\n", 0o644)],
            folders: ["/srv/diary"])
        let configuration = try self.load(files)
        #expect(configuration.openWeather.apiKey?.value == "k-1")
        // A key and no `weather.providers`: OpenWeather alone, as before sources were plugins.
        #expect(configuration.weather.origin == .openWeatherKey)
        #expect(configuration.weather.sources.map(\.type) == ["openweather"])
        #expect(configuration.inbox.path == "/srv/diary")
        // Plain settings until something builds the provider.
        #expect(configuration.providers.map(\.type) == ["fixed"])
        #expect((configuration.providers[0].settings as? Position)?.longitude == 2)
        let provider = configuration.providers[0].makeProvider(
            LocationProviderContext(http: RecordingHTTPClient(body: "{}"), logger: Logger(label: "test")))
        #expect(try await provider.locate().latitude == 1)
        #expect(configuration.warnings.contains { $0.contains("can be read by others (mode 644)") })

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
                {"openweather": {"api_key": "k-1"}, "inbox": {"path": "/srv/diary"\(extra)},
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
}
