import FoundationEssentials

// One decoder per section of the configuration file, each warning about its unknown keys and naming its field in
// every error. `Configuration.decode` puts them together.
extension Configuration {
    /// The section `name`, its unknown keys warned about; nil when the file has none.
    static func section(
        _ root: ConfigObject, _ name: String, warnings: inout [String]
    ) throws(ConfigurationError) -> ConfigObject? {
        guard let object = try root.object(name) else { return nil }
        warnings += object.unknownKeys(known: Self.keys(name))
        return object
    }

    /// `{"enabled": …}` sections (`geocoding`, `air_quality`).
    static func decodeSwitch(
        _ root: ConfigObject, _ name: String, default value: Bool, warnings: inout [String]
    ) throws(ConfigurationError) -> Bool {
        try Self.section(root, name, warnings: &warnings)?.bool("enabled") ?? value
    }

    static func decodeState(
        _ root: ConfigObject, paths: PathResolver, warnings: inout [String]
    ) throws(ConfigurationError) -> StateConfiguration {
        let object = try Self.section(root, "state", warnings: &warnings)
        var state = StateConfiguration(directory: paths.defaultStateDirectory)
        if let directory = try object?.nonEmptyString("directory") { state.directory = paths.absolute(directory) }
        if let enabled = try object?.bool("enabled") { state.enabled = enabled }
        if let forget = try object?.seconds("forget_after_seconds", maximum: 30 * 86_400) { state.forgetAfter = forget }
        return state
    }

    /// `location.providers` as plain specs (each plugin validates its own keys), and `location.strategy`.
    static func decodeLocation(
        _ root: ConfigObject, registry: LocationProviderRegistry, context: LocationSettingsContext,
        warnings: inout [String]
    ) throws(ConfigurationError) -> ([LocationProviderSpec], LocationStrategy) {
        let location = try Self.section(root, "location", warnings: &warnings)
        var providers: [LocationProviderSpec] = []
        if let entries = try location?.array("providers") {
            providers = try Self.decodePlugins(
                entries, field: "location.providers", noun: ("provider", "provider"), registry: registry,
                context: context, warnings: &warnings)
        } else if let ip = registry.plugin(for: "ip") {
            providers.append(try ip.decode(try ConfigObject(.object([]), path: "location.providers[0]"), context))
        }
        let strategy =
            try location?.choice("strategy", ["first": LocationStrategy.first, "most_accurate": .mostAccurate])
            ?? .first
        return (providers, strategy)
    }

    static func decodeCache(
        _ root: ConfigObject, paths: PathResolver, warnings: inout [String]
    ) throws(ConfigurationError) -> CacheConfiguration {
        let object = try Self.section(root, "cache", warnings: &warnings)
        var cache = CacheConfiguration(directory: paths.defaultCacheDirectory)
        if let directory = try object?.nonEmptyString("directory") { cache.directory = paths.absolute(directory) }
        if let ttl = try object?.seconds("ttl_seconds", maximum: 86_400) { cache.ttl = ttl }
        if let stale = try object?.seconds("max_stale_seconds", maximum: 7 * 86_400) { cache.maximumStaleness = stale }
        return cache
    }

    /// `history`: on or off, the source asked (a weather source whose plugin knows the past, validated as its plugin
    /// validates it), and its daily ceiling.
    static func decodeHistory(
        _ root: ConfigObject, registry: WeatherSourceRegistry, context: WeatherSettingsContext,
        warnings: inout [String]
    ) throws(ConfigurationError) -> HistoryConfiguration {
        let object = try Self.section(root, "history", warnings: &warnings)
        var history = HistoryConfiguration()
        if let enabled = try object?.bool("enabled") { history.enabled = enabled }
        let pastSources = registry.plugins.filter(\.knowsThePast).map(\.type).sorted()
        if let source = try object?.nonEmptyString("source") {
            guard let plugin = registry.plugin(for: source), plugin.knowsThePast else {
                throw ConfigurationError(
                    field: "history.source",
                    message: "unknown value \"\(source)\"; expected one of: \(pastSources.joined(separator: ", "))")
            }
            history.source = source
        }
        if let calls = try object?.integer("max_calls_per_day", in: 1...100_000) { history.maximumCallsPerDay = calls }
        if history.enabled, let plugin = registry.plugin(for: history.source) {
            history.sourceSpec = try plugin.decode(ConfigObject(type: history.source, path: "history.source"), context)
        }
        return history
    }

    /// `stamp`, checked against the cache's TTL: cached weather must be young enough to stamp with.
    static func decodeStamp(
        _ root: ConfigObject, cache: CacheConfiguration, warnings: inout [String]
    ) throws(ConfigurationError) -> StampConfiguration {
        let object = try Self.section(root, "stamp", warnings: &warnings)
        var stamp = StampConfiguration()
        if let age = try object?.seconds("max_age_seconds", maximum: 86_400) { stamp.maximumAge = age }
        if let keep = try object?.bool("keep_mtime") { stamp.keepModificationTime = keep }
        if let fields = try object?.array("fields") {
            let known = StampField.all.map(\.rawValue).joined(separator: ", ")
            guard !fields.isEmpty else {
                throw ConfigurationError(
                    field: "stamp.fields", message: "must name at least one field; known: \(known)")
            }
            stamp.fields = []
            for (index, value) in fields.enumerated() {
                guard case .string(let name) = value, let field = StampField(rawValue: name) else {
                    throw ConfigurationError(
                        field: "stamp.fields[\(index)]", message: "unknown field \(value.serialized); known: \(known)")
                }
                guard !stamp.fields.contains(field) else {
                    throw ConfigurationError(field: "stamp.fields[\(index)]", message: "\(name) is listed twice")
                }
                stamp.fields.append(field)
            }
        }
        if let after = try object?.seconds("backdated_after_seconds", maximum: 10 * 365 * 86_400) {
            stamp.backdatedAfter = after
        }
        guard stamp.maximumAge >= cache.ttl else {
            throw ConfigurationError(
                field: object?.contains("max_age_seconds") == true ? "stamp.max_age_seconds" : "cache.ttl_seconds",
                message: "stamp.max_age_seconds (\(Int(stamp.maximumAge.seconds))) must not be shorter than "
                    + "cache.ttl_seconds (\(Int(cache.ttl.seconds))): cached weather would be too old to stamp with"
            )
        }
        return stamp
    }

    /// `inbox` (required), its folder checked to exist.
    static func decodeInbox(
        _ root: ConfigObject, paths: PathResolver, files: any ConfigurationFiles, warnings: inout [String]
    ) throws(ConfigurationError) -> InboxConfiguration {
        guard let object = try Self.section(root, "inbox", warnings: &warnings) else { throw root.missing("inbox") }
        var inbox = InboxConfiguration(path: paths.absolute(try object.requiredString("path")))
        if let bytes = try object.integer("max_bytes", in: 1...(1 << 30)) { inbox.maximumBytes = bytes }
        if try object.double("poll_seconds") == 0 {
            // 0 turns polling off, even on a network filesystem.
            inbox.pollInterval = .zero
        } else if let poll = try object.seconds("poll_seconds", maximum: 86_400) {
            inbox.pollInterval = poll
        }
        let excludes = try object.stringArray("exclude") ?? []
        inbox.tree = InboxTree(
            recursive: try object.bool("recursive") ?? true,
            maximumDepth: try object.integer("max_depth", in: 0...64) ?? 8,
            excludes: excludes)
        if let bad = excludes.first(where: { pattern in
            let text = pattern.trimmingWhitespace()
            return !text.isEmpty && !text.hasPrefix("#") && ExcludePattern(text) == nil
        }) {
            throw ConfigurationError(field: "inbox.exclude", message: "\"\(bad)\" is not a pattern")
        }
        if try object.double("settle_seconds") == 0 {
            inbox.settle = .zero
        } else if let settle = try object.seconds("settle_seconds", maximum: 3600) {
            inbox.settle = settle
        }
        if let layout = try object.nonEmptyString("layout") {
            do throws(DiaryLayout.Invalid) {
                inbox.layout = try DiaryLayout(layout)
            } catch {
                throw ConfigurationError(field: "inbox.layout", message: "\"\(layout)\" \(error)")
            }
        }
        guard let kind = files.kind(inbox.path) else {
            throw ConfigurationError(
                field: "inbox.path",
                message: "the folder \(inbox.path) does not exist; create it (mkdir -p \(inbox.path)) or fix the path"
            )
        }
        guard kind == .folder else {
            throw ConfigurationError(field: "inbox.path", message: "\(inbox.path) is not a folder")
        }
        return inbox
    }

    static func decodeNewEntry(
        _ root: ConfigObject, paths: PathResolver, files: any ConfigurationFiles, warnings: inout [String]
    ) throws(ConfigurationError) -> NewEntryConfiguration {
        guard let object = try Self.section(root, "new", warnings: &warnings) else { return NewEntryConfiguration() }
        guard let template = try object.nonEmptyString("template") else { return NewEntryConfiguration() }
        let path = paths.absolute(template)
        guard files.kind(path) == .file else {
            throw ConfigurationError(
                field: "new.template",
                message: "\(path) \(files.kind(path) == nil ? "does not exist" : "is not a file")")
        }
        return NewEntryConfiguration(templatePath: path)
    }

    static func decodeSocket(
        _ root: ConfigObject, paths: PathResolver, warnings: inout [String]
    ) throws(ConfigurationError) -> SocketConfiguration {
        let object = try Self.section(root, "socket", warnings: &warnings)
        var socket = SocketConfiguration(path: paths.defaultSocketPath)
        if let path = try object?.nonEmptyString("path") { socket.path = paths.absolute(path) }
        if let count = try object?.integer("max_connections", in: 1...4096) { socket.maximumConnections = count }
        if let idle = try object?.seconds("idle_timeout_seconds", maximum: 3600) { socket.idleTimeout = idle }
        guard socket.path.utf8.count <= Self.maximumSocketPathLength else {
            throw ConfigurationError(
                field: "socket.path",
                message: "\(socket.path) is \(socket.path.utf8.count) bytes; Unix socket paths are limited to "
                    + "\(Self.maximumSocketPathLength)"
            )
        }
        return socket
    }

    static func decodePrivacy(
        _ root: ConfigObject, warnings: inout [String]
    ) throws(ConfigurationError) -> PrivacyPolicy {
        var privacy = PrivacyPolicy()
        guard let object = try root.object("privacy") else { return privacy }
        warnings += object.unknownKeys(known: Self.keys("privacy"))
        if let coordinates = try object.choice(
            "stamp_coordinates",
            ["exact": PrivacyPolicy.Coordinates.exact, "rounded": .rounded, "none": PrivacyPolicy.Coordinates.none]
        ) {
            privacy.stampCoordinates = coordinates
        }
        if let decimals = try object.integer("decimals", in: 0...6) { privacy.decimals = decimals }
        if let decimals = try object.integer("request_decimals", in: 0...6) { privacy.requestDecimals = decimals }
        if let zones = try object.array("zones") {
            for (index, value) in zones.enumerated() {
                let zone = try ConfigObject(value, path: "privacy.zones[\(index)]")
                warnings += zone.unknownKeys(known: ["name", "latitude", "longitude", "radius_m"])
                guard let name = try zone.nonEmptyString("name") else {
                    throw ConfigurationError(field: zone.fieldPath("name"), message: "is required")
                }
                guard let radius = try zone.double("radius_m"), radius > 0, radius <= 100_000 else {
                    throw ConfigurationError(
                        field: zone.fieldPath("radius_m"), message: "is required: metres, more than 0, at most 100000")
                }
                privacy.zones.append(
                    PrivacyPolicy.Area(
                        name: name, latitude: try zone.latitude("latitude"), longitude: try zone.longitude("longitude"),
                        radiusMeters: radius))
            }
        }
        return privacy
    }

    /// `weather.units` and `weather.lang`: every source's units and language. `openweather.units` and
    /// `openweather.lang`, where they were when OpenWeather was the only source, are still read when the `weather`
    /// ones are not given, with a line (in `check` and the log) saying where they go now.
    static func decodeUnitsAndLanguage(
        _ root: ConfigObject, warnings: inout [String]
    ) throws(ConfigurationError) -> (units: Units, lang: String) {
        let weather = try root.object("weather")
        let old = try root.object("openweather")
        let choices: KeyValuePairs<String, Units> = [
            "standard": Units.standard, "metric": Units.metric, "imperial": Units.imperial,
        ]
        func lang(_ object: ConfigObject?) throws(ConfigurationError) -> String? {
            guard let lang = try object?.nonEmptyString("lang") else { return nil }
            guard lang.count <= 8, lang.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_" || $0 == "-") }) else {
                throw ConfigurationError(
                    field: object?.fieldPath("lang") ?? "lang",
                    message: "\"\(lang)\" is not a language code such as en, de, zh_cn")
            }
            return lang
        }
        var result: (units: Units, lang: String) = (.metric, "en")
        if let units = try weather?.choice("units", choices) {
            result.units = units
            if old?.contains("units") == true { warnings.append("openweather.units: ignored: weather.units is given") }
        } else if let units = try old?.choice("units", choices) {
            result.units = units
            warnings.append(Self.moved("openweather.units", to: "weather.units"))
        }
        if let given = try lang(weather) {
            result.lang = given
            if old?.contains("lang") == true { warnings.append("openweather.lang: ignored: weather.lang is given") }
        } else if let given = try lang(old) {
            result.lang = given
            warnings.append(Self.moved("openweather.lang", to: "weather.lang"))
        }
        return result
    }

    static func moved(_ old: String, to new: String) -> String {
        "\(old): deprecated, read as \(new), which every weather source reads; move it there"
    }

    static func decodeOpenWeather(
        _ root: ConfigObject,
        paths: PathResolver,
        files: any ConfigurationFiles,
        warnings: inout [String]
    ) throws(ConfigurationError) -> OpenWeatherConfiguration {
        var object = try ConfigObject(.object([]), path: "openweather")
        if let given = try root.object("openweather") { object = given }
        warnings += object.unknownKeys(known: Self.keys("openweather"))
        var config = OpenWeatherConfiguration(
            apiKey: try Self.resolveAPIKey(object, paths: paths, files: files, warnings: &warnings)
        )
        if let url = try object.url("base_url") { config.baseURL = url }
        if let url = try object.url("icon_base_url") { config.iconBaseURL = url }
        // `units` and `lang` are every source's: `decodeUnitsAndLanguage` reads them here too, as it used to.
        if let timeout = try object.seconds("timeout_seconds", maximum: 120) { config.timeout = timeout }
        if let calls = try object.integer("max_calls_per_minute", in: 1...3000) { config.maximumCallsPerMinute = calls }
        return config
    }

    /// Highest first: systemd credential, `$OPENWEATHER_API_KEY`, `api_key_file`, `api_key`.
    private static func resolveAPIKey(
        _ object: ConfigObject,
        paths: PathResolver,
        files: any ConfigurationFiles,
        warnings: inout [String]
    ) throws(ConfigurationError) -> APIKey? {
        func clean(_ text: String) -> String? {
            let key = text.trimmingWhitespaceAndNewlines()
            return key.isEmpty ? nil : key
        }
        if let directory = paths.environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            let file = directory + "/openweather-api-key"
            if let data = files.contents(file),
                let key = clean(String(decoding: data, as: UTF8.self))
            {
                return APIKey(key, origin: "systemd credential openweather-api-key")
            }
        }
        if let key = paths.environment["OPENWEATHER_API_KEY"].flatMap(clean) {
            return APIKey(key, origin: "$OPENWEATHER_API_KEY")
        }
        if let name = try object.nonEmptyString("api_key_file") {
            let file = paths.absolute(name)
            guard let data = files.contents(file) else {
                throw ConfigurationError(field: "openweather.api_key_file", message: "cannot read \(file)")
            }
            guard let key = clean(String(decoding: data, as: UTF8.self)) else {
                throw ConfigurationError(field: "openweather.api_key_file", message: "\(file) is empty")
            }
            if let mode = files.permissions(file), mode & 0o077 != 0 {
                warnings.append(
                    "openweather.api_key_file: \(file) can be read by others (mode \(String(mode, radix: 8))); "
                        + "chmod 600 \(file)"
                )
            }
            return APIKey(key, origin: file)
        }
        if let key = try object.string("api_key").flatMap(clean) {
            return APIKey(key, origin: "openweather.api_key")
        }
        return nil
    }

    /// The error for a part of the configuration that needs OpenWeather (`user`, such as `history.source`) when
    /// there is no key.
    package static func missingKey(neededBy user: String) -> ConfigurationError {
        ConfigurationError(
            field: "openweather.api_key",
            message: "no OpenWeather API key, and \(user) needs one: set $OPENWEATHER_API_KEY, put the key in a "
                + "file named by openweather.api_key_file, set openweather.api_key, or under systemd use "
                + "LoadCredential=openweather-api-key:/etc/weathertag/api-key; or use a keyless source "
                + "(open-meteo, met-norway)"
        )
    }

    static func decodeOpenMeteo(
        _ root: ConfigObject, warnings: inout [String]
    ) throws(ConfigurationError) -> OpenMeteoConfiguration {
        let object = try Self.section(root, "open_meteo", warnings: &warnings)
        var config = OpenMeteoConfiguration()
        if let url = try object?.url("base_url") { config.baseURL = url }
        if let url = try object?.url("archive_url") { config.archiveURL = url }
        if let url = try object?.url("air_quality_url") { config.airQualityURL = url }
        if let timeout = try object?.seconds("timeout_seconds", maximum: 120) { config.timeout = timeout }
        if let calls = try object?.integer("max_calls_per_minute", in: 1...60_000) {
            config.maximumCallsPerMinute = calls
        }
        return config
    }

    static func decodeMETNorway(
        _ root: ConfigObject, warnings: inout [String]
    ) throws(ConfigurationError) -> METNorwayConfiguration {
        let object = try Self.section(root, "met_norway", warnings: &warnings)
        var config = METNorwayConfiguration()
        if let url = try object?.url("base_url") { config.baseURL = url }
        if let contact = try object?.nonEmptyString("contact") {
            // It goes into a header: one printable line.
            guard contact.count <= 200, contact.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F })
            else {
                throw ConfigurationError(
                    field: "met_norway.contact",
                    message: "must be an e-mail address or a web address in plain ASCII on one line")
            }
            config.contact = contact
        }
        if let timeout = try object?.seconds("timeout_seconds", maximum: 120) { config.timeout = timeout }
        return config
    }

    /// `weather.providers` as plain specs, tried in order; without it, OpenWeather alone when a key is configured
    /// (as before sources were plugins), else Open-Meteo, which needs no key.
    static func decodeWeather(
        _ root: ConfigObject, registry: WeatherSourceRegistry, context: WeatherSettingsContext,
        warnings: inout [String]
    ) throws(ConfigurationError) -> WeatherConfiguration {
        let object = try Self.section(root, "weather", warnings: &warnings)
        let known = registry.types.joined(separator: ", ")
        guard let entries = try object?.array("providers") else {
            let type = context.openWeather.apiKey == nil ? "open-meteo" : "openweather"
            guard let plugin = registry.plugin(for: type) else {
                throw ConfigurationError(
                    field: "weather.providers", message: "no \(type) source is built in; known: \(known)")
            }
            let entry = try ConfigObject(.object([]), path: "weather.providers[0]")
            return WeatherConfiguration(
                sources: [try plugin.decode(entry, context)],
                origin: type == "openweather" ? .openWeatherKey : .keyless)
        }
        let sources = try Self.decodePlugins(
            entries, field: "weather.providers", noun: ("source", "weather source"), registry: registry,
            context: context, warnings: &warnings)
        return WeatherConfiguration(sources: sources, origin: .configured)
    }

    /// A plugin family's list (`location.providers`, `weather.providers`): at least one entry, each with a `type`
    /// its registry knows, validated by its plugin; unknown keys warned about with their path. `noun` names an
    /// entry in messages ("must list at least one source", "unknown weather source").
    static func decodePlugins<SettingsContext, Context, Product>(
        _ entries: [JSONValue], field: String, noun: (short: String, long: String),
        registry: PluginRegistry<SettingsContext, Context, Product>, context: SettingsContext,
        warnings: inout [String]
    ) throws(ConfigurationError) -> [PluginSpec<Context, Product>] {
        guard !entries.isEmpty else {
            throw ConfigurationError(field: field, message: "must list at least one \(noun.short)")
        }
        let known = registry.types.joined(separator: ", ")
        var specs: [PluginSpec<Context, Product>] = []
        for (index, entry) in entries.enumerated() {
            let config = try ConfigObject(entry, path: "\(field)[\(index)]")
            guard let type = try config.string("type") else {
                throw ConfigurationError(field: config.fieldPath("type"), message: "is required; known: \(known)")
            }
            guard let plugin = registry.plugin(for: type) else {
                throw ConfigurationError(
                    field: config.fieldPath("type"), message: "unknown \(noun.long) \"\(type)\"; known: \(known)")
            }
            warnings += config.unknownKeys(known: plugin.keys.union(["type"]))
            specs.append(try plugin.decode(config, context))
        }
        return specs
    }

    /// `geocoding`: who names places. `enabled: false` is `none`; without `provider`, the GeoNames folder given,
    /// else OpenWeather when there is a key (as before), else the offline towns index shipped with weathertag
    /// (`$WEATHERTAG_TOWNS`, set by the command line to the folder beside it; empty: none), else none.
    static func decodeGeocoding(
        _ root: ConfigObject, paths: PathResolver, hasKey: Bool, files: any ConfigurationFiles,
        warnings: inout [String]
    ) throws(ConfigurationError) -> GeocodingProvider {
        let object = try Self.section(root, "geocoding", warnings: &warnings)
        let directory = try object?.nonEmptyString("geonames_directory").map { paths.absolute($0) }
        if let directory, files.kind(directory) != .folder {
            throw ConfigurationError(field: "geocoding.geonames_directory", message: "\(directory) is not a folder")
        }
        let provider = try object?.choice(
            "provider", ["openweather": "openweather", "geonames": "geonames", "none": "none"])
        if try object?.bool("enabled") == false { return .none }
        switch provider {
        case "openweather"?:
            guard hasKey else { throw Self.missingKey(neededBy: "geocoding.provider openweather") }
            return .openWeather
        case "geonames"?:
            guard let directory else {
                throw ConfigurationError(
                    field: "geocoding.geonames_directory",
                    message: "is required with geocoding.provider geonames: the folder holding cities1000.txt "
                        + "(or cities500, cities5000, cities15000) and admin1CodesASCII.txt")
            }
            return .geoNames(directory: directory)
        case "none"?:
            return .none
        default:
            if let directory { return .geoNames(directory: directory) }
            if hasKey { return .openWeather }
            if let towns = paths.environment[Configuration.townsVariable], !towns.isEmpty,
                files.kind(towns) == .folder
            {
                return .geoNames(directory: towns)
            }
            return .none
        }
    }
}
