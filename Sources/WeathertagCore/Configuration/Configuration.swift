import FoundationEssentials

/// The whole configuration, decoded and validated before the daemon touches anything.
package struct Configuration: Sendable {
    /// The sections plugins own (`openweather`, `open_meteo`, `met_norway`), decoded by their own code.
    package var sections: PluginSections
    /// `weather.providers`: plain settings, validated; `ServiceFactory` builds the running sources.
    package var weather: WeatherConfiguration
    /// `location.providers`, in order: plain settings, validated; `ServiceFactory` builds the running providers.
    package var providers: [LocationProviderSpec]
    /// `location.strategy`: the first position, or the most accurate of all.
    package var locationStrategy: LocationStrategy = .first
    package var cache: CacheConfiguration
    package var state: StateConfiguration
    package var history: HistoryConfiguration
    package var privacy: PrivacyPolicy
    /// Who names the place (`geocoding`): a remote geocoder (OpenWeather's), the GeoNames files, or no one.
    package var geocoding: GeocodingProvider
    /// The air at the place, one more call per place per cache TTL (`air_quality.enabled`, default false).
    package var airQuality: Bool
    package var inbox: InboxConfiguration
    package var stamp: StampConfiguration
    package var socket: SocketConfiguration
    /// How `weathertag new` starts an entry (`new.template`).
    package var newEntry = NewEntryConfiguration()
    /// The page the daemon keeps current (`timeline.output`).
    package var timeline = TimelineConfiguration()
    /// Unknown keys and other things that did not stop the load.
    package var warnings: [String]

    /// The longest Unix socket path Linux accepts (`sun_path` is 108 bytes with its NUL).
    package static let maximumSocketPathLength = 107

    /// The sections weathertag itself reads, each declared with its decoder (`Configuration+Decoding.swift`).
    static let commonSections: [CommonSection] = [
        .weather, .location, .cache, .state, .history, .privacy, .geocoding, .airQuality, .inbox, .stamp, .socket,
        .newEntry, .timeline,
    ]

    /// The keys each section reads, by section ("" is the top level): the common sections' and those of every
    /// plugin's section in `plugins`, as their decoders declare them; anything else is warned about and ignored.
    /// config.schema.json describes exactly these (a test compares them).
    package static func sectionKeys(_ plugins: PluginRegistries) -> [String: Set<String>] {
        var table: [String: Set<String>] = [:]
        for section in Self.commonSections { table[section.name] = section.keys }
        for section in plugins.sections { table[section.name] = section.keys }
        table[""] = Set(table.keys).union(["$schema"])
        return table
    }

    /// The environment variable naming the offline towns index's folder (GeoNames' file formats, `tools/towns.py`):
    /// the keyless default geocoder.
    package static let townsVariable = "WEATHERTAG_TOWNS"

    /// Reads, parses and validates the file at `path`.
    package static func load(
        path: String,
        environment: [String: String],
        plugins: PluginRegistries,
        files: any ConfigurationFiles
    ) throws(ConfigurationError) -> Configuration {
        let (json, directory) = try Self.readDocument(path, environment: environment, files: files)
        return try Self.decode(
            json, environment: environment, plugins: plugins, configDirectory: directory, files: files)
    }

    /// Validates an already parsed document, a section at a time (`Configuration+Decoding.swift`); every error names
    /// its field. Relative paths resolve against `configDirectory`.
    package static func decode(
        _ json: JSONValue,
        environment: [String: String],
        plugins: PluginRegistries,
        configDirectory: String,
        files: any ConfigurationFiles
    ) throws(ConfigurationError) -> Configuration {
        let root = try ConfigObject(json, path: "")
        let paths = PathResolver(environment: environment, base: configDirectory)
        var warnings = root.unknownKeys(known: Self.sectionKeys(plugins)[""] ?? [])
        let sections = try PluginSections.decode(
            plugins.sections, from: root, context: SectionContext(paths: paths, files: files), warnings: &warnings)
        // Every source's, stored once (`weather.units`, `weather.lang`); sources get them through the context.
        let (units, lang) = try Self.decodeUnitsAndLanguage(root, plugins: plugins, warnings: &warnings)
        let state = try Self.decodeState(root, paths: paths, warnings: &warnings)
        // What providers' settings may need besides their own keys: paths, tokens, the state directory.
        let context = LocationSettingsContext(
            configDirectory: configDirectory, environment: environment, files: files, stateDirectory: state.directory)
        let (providers, strategy) = try Self.decodeLocation(
            root, registry: plugins.location, context: context, warnings: &warnings)
        let weatherContext = WeatherSettingsContext(
            units: units, lang: lang, sections: sections, paths: paths, keyless: plugins.weather.keyless)
        var weather = try Self.decodeWeather(
            root, registry: plugins.weather, context: weatherContext, warnings: &warnings)
        (weather.units, weather.lang) = (units, lang)
        let cache = try Self.decodeCache(root, paths: paths, warnings: &warnings)
        let history = try Self.decodeHistory(
            root, registry: plugins.weather, context: weatherContext, warnings: &warnings)
        let privacy = try Self.decodePrivacy(root, warnings: &warnings)
        let geocoding = try Self.decodeGeocoding(
            root, paths: paths, geocoders: plugins.geocoders, sections: sections, files: files, warnings: &warnings)
        let airQuality = try Self.decodeSwitch(root, .airQuality, default: false, warnings: &warnings)
        let stamp = try Self.decodeStamp(root, cache: cache, warnings: &warnings)
        let inbox = try Self.decodeInbox(root, paths: paths, files: files, warnings: &warnings)
        let socket = try Self.decodeSocket(root, paths: paths, warnings: &warnings)
        let newEntry = try Self.decodeNewEntry(root, paths: paths, files: files, warnings: &warnings)
        var timeline = try Self.decodeTimeline(root, paths: paths, files: files, warnings: &warnings)
        timeline.lang = timeline.lang ?? lang
        return Configuration(
            sections: sections, weather: weather, providers: providers, locationStrategy: strategy, cache: cache,
            state: state, history: history, privacy: privacy, geocoding: geocoding, airQuality: airQuality,
            inbox: inbox, stamp: stamp, socket: socket, newEntry: newEntry, timeline: timeline, warnings: warnings)
    }
}

extension Configuration {
    /// Only `socket.path` (or its default), for clients such as `weathertag tag --config`: they need not have the API
    /// key or see the inbox.
    package static func socketPath(
        configPath: String, environment: [String: String], files: any ConfigurationFiles
    ) throws(ConfigurationError) -> String {
        let (json, directory) = try Self.readDocument(configPath, environment: environment, files: files)
        let paths = PathResolver(environment: environment, base: directory)
        guard let path = try ConfigObject(json, path: "").object("socket")?.nonEmptyString("path") else {
            return paths.defaultSocketPath
        }
        return paths.absolute(path)
    }

    /// The parsed file and the folder it is in (relative paths in it resolve against that folder).
    private static func readDocument(
        _ path: String,
        environment: [String: String],
        files: any ConfigurationFiles
    ) throws(ConfigurationError) -> (JSONValue, directory: String) {
        let absolute = PathResolver(environment: environment, base: "").absolute(path)
        if files.kind(absolute) == .folder {
            throw ConfigurationError(
                field: "",
                message: "\(absolute) is a folder, not a configuration file (give the file: \(absolute)/config.json?)")
        }
        guard let data = files.contents(absolute) else {
            let reason = files.kind(absolute) == nil ? "it does not exist" : "it cannot be read"
            throw ConfigurationError(field: "", message: "cannot read the configuration file \(absolute): \(reason)")
        }
        do {
            return (try JSONParser.parse(data), Paths.deletingLastComponent(absolute))
        } catch {
            throw ConfigurationError(field: "", message: "\(absolute): invalid JSON at \(error)")
        }
    }
}
