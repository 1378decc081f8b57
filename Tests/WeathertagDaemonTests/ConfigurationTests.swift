import Foundation
import Logging
import Testing
import WeathertagCore
import WeathertagDaemon
import WeathertagTestSupport

/// Decoding with the files on the disk: the inbox folder, key files and their modes, the configuration file.
@Suite("Configuration")
final class ConfigurationTests {
    let directory: TemporaryDirectory
    let inbox: String

    init() throws {
        self.directory = try TemporaryDirectory()
        self.inbox = try self.directory.makeDirectory("inbox")
    }

    deinit {
        self.directory.remove()
    }

    func decode(_ text: String, environment: [String: String] = [:]) throws(ConfigurationError) -> Configuration {
        let json: JSONValue
        do {
            json = try JSONParser.parse(Array(text.utf8))
        } catch {
            throw ConfigurationError(field: "", message: "\(error)")
        }
        return try Configuration.decode(
            json,
            environment: environment,
            plugins: PluginRegistries(
                location: LocationProviderRegistry(
                    [.ip, .fixed], fallback: LocationProviderRegistry.builtIns.fallback),
                weather: .builtIns, geocoders: .builtIns),
            configDirectory: self.directory.path,
            files: LocalConfigurationFiles()
        )
    }

    func error(_ text: String, environment: [String: String] = [:]) -> String {
        do {
            _ = try self.decode(text, environment: environment)
            return "no error"
        } catch {
            return error.description
        }
    }

    @Test func minimalConfigurationGetsDefaults() throws {
        let config = try self.decode(
            #"{"openweather": {"api_key": "k"}, "inbox": {"path": "inbox"}}"#,
            environment: ["XDG_CACHE_HOME": "/home/u/.cache", "XDG_RUNTIME_DIR": "/run/user/1000"]
        )
        #expect(config.sections[OpenWeatherSection.self].apiKey?.value == "k")
        #expect(config.sections[OpenWeatherSection.self].baseURL == "https://api.openweathermap.org")
        #expect(config.weather.units == .metric)
        #expect(config.weather.lang == "en")
        #expect(config.sections[OpenWeatherSection.self].timeout == .seconds(10))
        #expect(config.inbox.path == self.inbox)
        #expect(config.cache.directory == "/home/u/.cache/weathertag")
        #expect(config.cache.ttl == .seconds(600))
        #expect(config.socket.path == "/run/user/1000/weathertag.sock")
        #expect(config.providers.map(\.type) == ["ip"])
        #expect(config.warnings.isEmpty)
    }

    /// `weather.units` and `weather.lang` are every source's; `openweather.units` and `.lang` are still read where
    /// the `weather` ones are not given, with a line saying where they go now.
    @Test func unitsAndLanguageAreTheWeatherSections() throws {
        let neutral = try self.decode(
            #"{"inbox": {"path": "inbox"}, "weather": {"units": "imperial", "lang": "ko"}}"#)
        #expect(neutral.weather.units == .imperial && neutral.weather.lang == "ko")
        let keyed = try self.decode(
            #"{"openweather": {"api_key": "k"}, "inbox": {"path": "inbox"}, "weather": {"units": "imperial", "lang": "ko"}}"#
        )
        let openWeather = try #require(keyed.weather.sources.first?.settings as? OpenWeatherClient.Settings)
        #expect(openWeather.units == .imperial && openWeather.lang == "ko", "OpenWeather asks in them")
        #expect(neutral.warnings.isEmpty)
        let old = try self.decode(#"{"inbox": {"path": "inbox"}, "openweather": {"units": "standard", "lang": "de"}}"#)
        #expect(old.weather.units == .standard && old.weather.lang == "de")
        #expect(
            old.warnings == [
                "openweather.units: deprecated, read as weather.units, which every weather source reads; move it there",
                "openweather.lang: deprecated, read as weather.lang, which every weather source reads; move it there",
            ])
        let both = try self.decode(
            #"{"inbox": {"path": "inbox"}, "openweather": {"units": "standard"}, "weather": {"units": "metric"}}"#)
        #expect(both.weather.units == .metric, "the weather section wins")
        #expect(both.warnings == ["openweather.units: ignored: weather.units is given"])
        #expect(
            self.error(#"{"inbox": {"path": "inbox"}, "weather": {"lang": "not a language"}}"#)
                == #"weather.lang: "not a language" is not a language code such as en, de, zh_cn"#)
    }

    /// Without a key and without `geocoding`, the towns index shipped beside the executable names places
    /// (`$WEATHERTAG_TOWNS`); a key keeps OpenWeather's geocoder, a folder given wins, and empty means none.
    @Test func theShippedTownsIndexIsTheKeylessGeocoder() throws {
        let towns = try self.directory.makeDirectory("towns")
        let keyless = #"{"inbox": {"path": "inbox"}}"#
        #expect(
            try self.decode(keyless, environment: ["WEATHERTAG_TOWNS": towns]).geocoding
                == .geoNames(directory: towns))
        #expect(try self.decode(keyless).geocoding == GeocodingProvider.none)
        #expect(try self.decode(keyless, environment: ["WEATHERTAG_TOWNS": ""]).geocoding == GeocodingProvider.none)
        #expect(
            try self.decode(keyless, environment: ["WEATHERTAG_TOWNS": towns + "/missing"]).geocoding
                == GeocodingProvider.none)
        let keyed = #"{"openweather": {"api_key": "k"}, "inbox": {"path": "inbox"}}"#
        #expect(try self.decode(keyed, environment: ["WEATHERTAG_TOWNS": towns]).geocoding.serviceType == "openweather")
        let own = try self.directory.makeDirectory("geonames")
        #expect(
            try self.decode(
                #"{"inbox": {"path": "inbox"}, "geocoding": {"geonames_directory": "\#(own)"}}"#,
                environment: ["WEATHERTAG_TOWNS": towns]
            ).geocoding == .geoNames(directory: own))
    }

    @Test func systemdDirectoriesWin() throws {
        let config = try self.decode(
            #"{"openweather": {"api_key": "k"}, "inbox": {"path": "inbox"}}"#,
            environment: [
                "CACHE_DIRECTORY": "/var/cache/weathertag", "RUNTIME_DIRECTORY": "/run/weathertag:/run/other",
                "XDG_CACHE_HOME": "/x", "XDG_RUNTIME_DIR": "/y",
            ]
        )
        #expect(config.cache.directory == "/var/cache/weathertag")
        #expect(config.socket.path == "/run/weathertag/weathertag.sock")
    }

    @Test func pathsExpandTildeAndResolveAgainstTheConfigFolder() throws {
        try self.directory.makeDirectory("home/diary")
        let config = try self.decode(
            #"{"openweather": {"api_key": "k"}, "inbox": {"path": "~/diary"}, "cache": {"directory": "c/../cache"},"#
                + #" "socket": {"path": "s.sock"}}"#,
            environment: ["HOME": self.directory.file("home")]
        )
        #expect(config.inbox.path == self.directory.file("home/diary"))
        #expect(config.cache.directory == self.directory.file("cache"))
        #expect(config.socket.path == self.directory.file("s.sock"))
    }

    @Test func apiKeyPrecedence() throws {
        try self.directory.makeDirectory("credentials")
        try self.directory.write("credentials/openweather-api-key", "from-credential\n")
        try self.directory.write("key-file", "  from-file \n")
        let text = #"{"openweather": {"api_key": "inline", "api_key_file": "key-file"}, "inbox": {"path": "inbox"}}"#
        let credentials = ["CREDENTIALS_DIRECTORY": self.directory.file("credentials")]
        #expect(
            try self.decode(text, environment: credentials.merging(["OPENWEATHER_API_KEY": "env"]) { $1 }).sections[
                OpenWeatherSection.self
            ]
            .apiKey?.value == "from-credential")
        #expect(
            try self.decode(text, environment: ["OPENWEATHER_API_KEY": "env"]).sections[OpenWeatherSection.self].apiKey?
                .value == "env")
        #expect(try self.decode(text).sections[OpenWeatherSection.self].apiKey?.value == "from-file")
        #expect(
            try self.decode(#"{"openweather": {"api_key": "inline"}, "inbox": {"path": "inbox"}}"#).sections[
                OpenWeatherSection.self
            ].apiKey?
            .value == "inline"
        )
    }

    @Test func aKeyFileOthersCanReadIsWarnedAbout() throws {
        try self.directory.write("open-key", "k1\n")
        try self.directory.write("closed-key", "k2\n")
        chmod(self.directory.file("open-key"), 0o644)
        chmod(self.directory.file("closed-key"), 0o600)
        let open = try self.decode(#"{"openweather": {"api_key_file": "open-key"}, "inbox": {"path": "inbox"}}"#)
        #expect(open.warnings.contains { $0.contains("can be read by others (mode 644); chmod 600") })
        let closed = try self.decode(#"{"openweather": {"api_key_file": "closed-key"}, "inbox": {"path": "inbox"}}"#)
        #expect(closed.warnings.isEmpty)
    }

    @Test func newLimitsAndPolicies() throws {
        let config = try self.decode(
            #"""
            {"openweather": {"api_key": "k", "max_calls_per_minute": 30}, "inbox": {"path": "inbox", "max_bytes": 1000,
             "poll_seconds": 0}, "cache": {"ttl_seconds": 300, "max_stale_seconds": 7200},
             "stamp": {"max_age_seconds": 900}, "socket": {"max_connections": 8, "idle_timeout_seconds": 5}}
            """#
        )
        #expect(config.sections[OpenWeatherSection.self].maximumCallsPerMinute == 30)
        #expect(config.inbox.maximumBytes == 1000 && config.inbox.pollInterval == .zero)
        #expect(config.cache.maximumStaleness == .seconds(7200) && config.stamp.maximumAge == .seconds(900))
        #expect(config.socket.maximumConnections == 8 && config.socket.idleTimeout == .seconds(5))
        #expect(config.warnings.isEmpty)
    }

    @Test func theKeyNeverPrints() throws {
        let config = try self.decode(#"{"openweather": {"api_key": "s3cr3t"}, "inbox": {"path": "inbox"}}"#)
        let key = try #require(config.sections[OpenWeatherSection.self].apiKey)
        #expect(
            !"\(key)".contains("s3cr3t")
                && !"\(String(describing: config.sections[OpenWeatherSection.self].apiKey))".contains("s3cr3t"))
        #expect(!String(reflecting: key).contains("s3cr3t"))
    }

    @Test(
        "errors name the field and the problem",
        arguments: [
            (
                #"{"inbox": {"path": "inbox"}, "weather": {"providers": [{"type": "openweather"}]}}"#,
                "openweather.api_key: no OpenWeather API key, and weather.providers[0].type openweather needs one"
            ),
            (
                #"{"inbox": {"path": "inbox"}, "history": {"enabled": true, "source": "openweather"}}"#,
                "openweather.api_key: no OpenWeather API key, and history.source openweather needs one"
            ),
            (
                #"{"inbox": {"path": "inbox"}, "geocoding": {"provider": "openweather"}}"#,
                "openweather.api_key: no OpenWeather API key, and geocoding.provider openweather needs one"
            ),
            (
                #"{"inbox": {"path": "inbox"}, "weather": {"providers": []}}"#,
                "weather.providers: must list at least one source"
            ),
            (
                #"{"inbox": {"path": "inbox"}, "weather": {"providers": [{"type": "accuweather"}]}}"#,
                "weather.providers[0].type: unknown weather source \"accuweather\"; known: openweather, open-meteo"
            ),
            (
                #"{"inbox": {"path": "inbox"}, "geocoding": {"provider": "geonames"}}"#,
                "geocoding.geonames_directory: is required with geocoding.provider geonames"
            ),
            (
                #"{"inbox": {"path": "inbox"}, "geocoding": {"geonames_directory": "/nonexistent/geonames"}}"#,
                "geocoding.geonames_directory: /nonexistent/geonames is not a folder"
            ),
            (
                #"{"inbox": {"path": "inbox"}, "weather": {"providers": [{"type": "met-norway"}]}}"#,
                "met_norway.contact: is required with weather.providers[0].type met-norway"
            ),
            (
                #"{"inbox": {"path": "inbox"}, "met_norway": {"contact": "me\nyou"}}"#,
                "met_norway.contact: must be an e-mail address or a web address in plain ASCII on one line"
            ),
            (
                #"{"inbox": {"path": "inbox"}, "weather": {"providers": [{"type": "command", "argv": ["/nonexistent"]}]}}"#,
                "weather.providers[0].argv[0]: /nonexistent is not an executable file"
            ),
            (
                #"{"inbox": {"path": "inbox"}, "history": {"source": "accuweather"}}"#,
                #"history.source: unknown value "accuweather"; expected one of: open-meteo, openweather"#
            ),
            (
                #"{"openweather": {"api_key": "k"}, "inbox": {"path": "inbox"}, "stamp": {"max_age_seconds": 60}}"#,
                "stamp.max_age_seconds: stamp.max_age_seconds (60) must not be shorter than cache.ttl_seconds (600)"
            ),
            (
                #"{"openweather": {"api_key": "k", "max_calls_per_minute": 0}, "inbox": {"path": "inbox"}}"#,
                "openweather.max_calls_per_minute: 0 is out of range"
            ),
            (
                #"{"openweather": {"api_key": "k"}, "inbox": {"path": "inbox", "poll_seconds": -1}}"#,
                "inbox.poll_seconds:"
            ),
            (#"{"openweather": {"api_key": "k"}}"#, "inbox: is required"),
            (#"{"openweather": {"api_key": "k"}, "inbox": {"path": "nope"}}"#, "inbox.path: the folder "),
            (
                #"{"openweather": {"api_key": "k"}, "inbox": {"path": 3}}"#,
                "inbox.path: expected a string, got a number"
            ),
            (#"{"openweather": {"api_key": "k"}, "inbox": []}"#, "inbox: expected an object, got an array"),
            (
                #"{"openweather": {"api_key": "k"}, "inbox": {"path": "inbox"}, "location": {"providers": [{"type": "fixed", "latitude": 1, "longitude": 2}, {"type": "ip"}, {"type": "teleport"}]}}"#,
                #"location.providers[2].type: unknown provider "teleport"; known: ip, fixed"#
            ),
            (
                #"{"openweather": {"api_key": "k"}, "inbox": {"path": "inbox"}, "location": {"providers": [{"latitude": 1}]}}"#,
                "location.providers[0].type: is required; known: ip, fixed"
            ),
            (
                #"{"openweather": {"api_key": "k"}, "inbox": {"path": "inbox"}, "location": {"providers": [{"type": "fixed", "latitude": 91, "longitude": 2}]}}"#,
                "location.providers[0].latitude: 91.0 is out of range (-90…90)"
            ),
            (
                #"{"openweather": {"api_key": "k"}, "inbox": {"path": "inbox"}, "location": {"providers": [{"type": "fixed", "latitude": 1, "longitude": -181}]}}"#,
                "location.providers[0].longitude: -181.0 is out of range (-180…180)"
            ),
            (
                #"{"openweather": {"api_key": "k"}, "inbox": {"path": "inbox"}, "location": {"providers": [{"type": "fixed", "latitude": "north", "longitude": 2}]}}"#,
                "location.providers[0].latitude: expected a number, got a string"
            ),
            (
                #"{"openweather": {"api_key": "k"}, "inbox": {"path": "inbox"}, "location": {"providers": []}}"#,
                "location.providers: must list at least one provider"
            ),
            (
                #"{"openweather": {"api_key": "k", "units": "kelvin"}, "inbox": {"path": "inbox"}}"#,
                #"openweather.units: unknown value "kelvin"; expected one of: standard, metric, imperial"#
            ),
            (
                #"{"openweather": {"api_key": "k", "timeout_seconds": 0}, "inbox": {"path": "inbox"}}"#,
                "openweather.timeout_seconds: 0.0 is out of range"
            ),
            (
                #"{"openweather": {"api_key": "k", "base_url": "ftp://x"}, "inbox": {"path": "inbox"}}"#,
                #"openweather.base_url: "ftp://x" is not an http:// or https:// URL"#
            ),
            (
                #"{"openweather": {"api_key": "k", "api_key_file": "missing"}, "inbox": {"path": "inbox"}}"#,
                "openweather.api_key_file: cannot read "
            ),
            (
                #"{"openweather": {"api_key": "k"}, "inbox": {"path": "inbox"}, "cache": {"ttl_seconds": true}}"#,
                "cache.ttl_seconds: expected a number, got a boolean"
            ),
            (
                #"{"openweather": {"api_key": "k"}, "inbox": {"path": "inbox"}, "location": {"providers": [{"type": "ip", "service": "maxmind"}]}}"#,
                #"location.providers[0].service: unknown value "maxmind"; expected one of: ip-api, ipinfo"#
            ),
        ]
    )
    func errorsNameTheField(text: String, expected: String) {
        let message = self.error(text)
        #expect(message.hasPrefix(expected), "got: \(message)")
    }

    @Test func socketPathLengthIsChecked() {
        let long = String(repeating: "s", count: 120)
        let message = self.error(
            #"{"openweather": {"api_key": "k"}, "inbox": {"path": "inbox"}, "socket": {"path": "/tmp/\#(long)"}}"#
        )
        #expect(message.hasPrefix("socket.path: "))
        #expect(message.contains("limited to 107"))
    }

    @Test func unknownKeysWarnWithTheirPath() throws {
        let config = try self.decode(
            #"{"openweather": {"api_key": "k", "apikey": "x"}, "inbox": {"path": "inbox", "poll": 1}, "colour": 1,"#
                + #" "location": {"providers": [{"type": "fixed", "latitude": 1, "longitude": 2, "lat": 3}]}}"#
        )
        #expect(config.warnings.count == 4)
        #expect(config.warnings.contains { $0.hasPrefix("openweather.apikey: unknown key") })
        #expect(config.warnings.contains { $0.hasPrefix("inbox.poll: unknown key") })
        #expect(config.warnings.contains { $0.hasPrefix("colour: unknown key") })
        #expect(config.warnings.contains { $0.hasPrefix("location.providers[0].lat: unknown key") })
    }

    /// What loading the file at `path` says, or "no error".
    func loadError(_ path: String) -> String {
        do {
            _ = try Configuration.load(
                path: path, environment: [:],
                plugins: PluginRegistries(
                    location: LocationProviderRegistry([.ip], fallback: LocationProviderRegistry.builtIns.fallback),
                    weather: .builtIns, geocoders: .builtIns),
                files: LocalConfigurationFiles())
            return "no error"
        } catch {
            return error.description
        }
    }

    /// An inbox that is an Obsidian vault's root (a real vault's settings, `Recorded/Vaults/journal-templater`, on
    /// the disk): its layout is read at load, and `inbox.entries` says which notes are entries.
    @Test func aVaultsLayoutIsReadAtLoad() throws {
        let recorded = Fixtures.repositoryRoot + "/Tests/WeathertagCoreTests/Recorded/Vaults/journal-templater"
        for item in try FileManager.default.contentsOfDirectory(atPath: recorded) {
            try FileManager.default.copyItem(atPath: recorded + "/" + item, toPath: self.inbox + "/" + item)
        }
        let configuration = try self.decode(#"{"inbox": {"path": "inbox"}}"#)
        let tree = configuration.inbox.tree
        #expect(tree.isScopedToVault && tree.vault?.entries.map(\.path) == ["Journal"])
        #expect(tree.vault?.templateFolders.map(\.path) == ["Templates"])
        #expect(tree.isEntry("Journal/2022/W28/2022-07-12.md") && !tree.isEntry("README.md"))
        let all = try self.decode(#"{"inbox": {"path": "inbox", "entries": "all"}}"#)
        #expect(!all.inbox.tree.isScopedToVault && all.inbox.tree.isEntry("README.md"))
        #expect(all.inbox.tree.template("Templates/Daily.md") != nil)
        #expect(
            self.error(#"{"inbox": {"path": "inbox", "entries": "daily"}}"#).hasPrefix("inbox.entries: "),
            "\(self.error(#"{"inbox": {"path": "inbox", "entries": "daily"}}"#))")
    }

    @Test func invalidJSONSaysWhere() throws {
        try self.directory.write("bad.json", "{\n  \"inbox\": {\"path\": \"inbox\"},\n  \"socket\": tru\n}\n")
        let error = self.loadError(self.directory.file("bad.json"))
        #expect(error.contains("bad.json: invalid JSON at line 3, column 13"), "\(error)")
    }

    @Test func typosAreNamedWithTheKeyMeant() {
        #expect(
            self.error(#"{"openweather": {"api_key": "k"}, "inbox": {"pathh": "inbox"}}"#)
                == "inbox.pathh: unknown key; did you mean inbox.path?")
        let config = try? self.decode(
            #"{"openweather": {"api_key": "k", "unitz": "metric"}, "inbox": {"path": "inbox"}}"#)
        #expect(config?.warnings == ["openweather.unitz: unknown key, ignored; did you mean openweather.units?"])
        // Far from every known key: the list of known keys instead.
        let far = try? self.decode(#"{"openweather": {"api_key": "k"}, "inbox": {"path": "inbox", "colour": 1}}"#)
        #expect(far?.warnings.first?.hasPrefix("inbox.colour: unknown key, ignored (known: ") == true)
    }

    @Test func aFolderIsNotAConfigurationFile() {
        let error = self.loadError(self.directory.path)
        #expect(error.contains("is a folder, not a configuration file"), "\(error)")
    }

    @Test func missingFileIsNamed() {
        #expect(self.loadError(self.directory.file("absent.json")).contains("absent.json: it does not exist"))
    }
}
