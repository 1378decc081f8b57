import Foundation

/// The whole configuration, decoded and validated before the daemon touches anything.
public struct Configuration: Sendable {
    public var openWeather: OpenWeatherConfiguration
    /// `location.providers`, in order: plain settings, validated; `ServiceFactory` builds the running providers.
    public var providers: [LocationProviderSpec]
    /// `location.strategy`: the first position, or the most accurate of all.
    public var locationStrategy: LocationStrategy = .first
    public var cache: CacheConfiguration
    public var state: StateConfiguration
    public var history: HistoryConfiguration
    public var privacy: PrivacyPolicy
    /// The place by name from OpenWeather's reverse geocoder (`geocoding.enabled`, default true).
    public var geocoding: Bool
    /// The air at the place, one more call per place per cache TTL (`air_quality.enabled`, default false).
    public var airQuality: Bool
    public var inbox: InboxConfiguration
    public var stamp: StampConfiguration
    public var socket: SocketConfiguration
    /// Unknown keys and other things that did not stop the load.
    public var warnings: [String]

    /// The longest Unix socket path Linux accepts (`sun_path` is 108 bytes with its NUL).
    public static let maximumSocketPathLength = 107

    static let knownKeys: Set<String> = Self.keys("")

    static func keys(_ section: String) -> Set<String> { Self.sectionKeys[section] ?? [] }

    /// The keys each section reads, by section ("" is the top level); anything else is warned about and ignored.
    /// config.schema.json describes exactly these (a test compares them).
    public static let sectionKeys: [String: Set<String>] = [
        "": [
            "$schema", "openweather", "location", "cache", "state", "history", "privacy", "geocoding", "air_quality",
            "inbox", "stamp", "socket",
        ],
        "openweather": [
            "api_key", "api_key_file", "base_url", "icon_base_url", "units", "lang", "timeout_seconds",
            "max_calls_per_minute",
        ],
        "location": ["providers", "strategy"],
        "cache": ["directory", "ttl_seconds", "max_stale_seconds"],
        "state": ["directory", "enabled", "forget_after_seconds"],
        "history": ["enabled", "max_calls_per_day"],
        "privacy": ["stamp_coordinates", "decimals", "request_decimals", "zones"],
        "geocoding": ["enabled"],
        "air_quality": ["enabled"],
        "stamp": ["max_age_seconds", "keep_mtime", "backdated_after_seconds", "fields"],
        "inbox": ["path", "max_bytes", "poll_seconds", "settle_seconds", "recursive", "max_depth", "exclude"],
        "socket": ["path", "max_connections", "idle_timeout_seconds"],
    ]

    /// Reads, parses and validates the file at `path`.
    public static func load(
        path: String,
        environment: [String: String],
        registry: LocationProviderRegistry,
        files: any ConfigurationFiles
    ) throws(ConfigurationError) -> Configuration {
        let (json, directory) = try Self.readDocument(path, environment: environment, files: files)
        return try Self.decode(
            json, environment: environment, registry: registry, configDirectory: directory, files: files)
    }

    /// Validates an already parsed document. Relative paths resolve against `configDirectory`.
    public static func decode(
        _ json: JSONValue,
        environment: [String: String],
        registry: LocationProviderRegistry,
        configDirectory: String,
        files: any ConfigurationFiles
    ) throws(ConfigurationError) -> Configuration {
        let root = try ConfigObject(json, path: "")
        let paths = PathResolver(environment: environment, base: configDirectory)
        var warnings = root.unknownKeys(known: Self.knownKeys)

        let openWeather = try Self.decodeOpenWeather(root, paths: paths, files: files, warnings: &warnings)

        let stateObject = try root.object("state")
        if let stateObject { warnings += stateObject.unknownKeys(known: Self.keys("state")) }
        var state = StateConfiguration(directory: paths.defaultStateDirectory)
        if let directory = try stateObject?.nonEmptyString("directory") { state.directory = paths.absolute(directory) }
        if let enabled = try stateObject?.bool("enabled") { state.enabled = enabled }
        if let forget = try stateObject?.seconds("forget_after_seconds", maximum: 30 * 86_400) {
            state.forgetAfter = forget
        }

        // What providers' settings may need besides their own keys: paths, tokens, the state directory.
        let context = LocationSettingsContext(
            configDirectory: configDirectory, environment: environment, files: files, stateDirectory: state.directory)

        var providers: [LocationProviderSpec] = []
        let location = try root.object("location")
        if let location { warnings += location.unknownKeys(known: Self.keys("location")) }
        if let entries = try location?.array("providers") {
            guard !entries.isEmpty else {
                throw ConfigurationError(field: "location.providers", message: "must list at least one provider")
            }
            for (index, entry) in entries.enumerated() {
                let config = try ConfigObject(entry, path: "location.providers[\(index)]")
                let known = registry.types.joined(separator: ", ")
                guard let type = try config.string("type") else {
                    throw ConfigurationError(field: config.fieldPath("type"), message: "is required; known: \(known)")
                }
                guard let plugin = registry.plugin(for: type) else {
                    throw ConfigurationError(
                        field: config.fieldPath("type"),
                        message: "unknown provider \"\(type)\"; known: \(known)"
                    )
                }
                warnings += config.unknownKeys(known: plugin.keys.union(["type"]))
                providers.append(try plugin.decode(config, context))
            }
        } else if let ip = registry.plugin(for: "ip") {
            providers.append(try ip.decode(try ConfigObject(.object([]), path: "location.providers[0]"), context))
        }

        let locationStrategy =
            try location?.choice("strategy", ["first": LocationStrategy.first, "most_accurate": .mostAccurate])
            ?? .first

        let cacheObject = try root.object("cache")
        if let cacheObject {
            warnings += cacheObject.unknownKeys(known: Self.keys("cache"))
        }
        var cache = CacheConfiguration(directory: paths.defaultCacheDirectory)
        if let directory = try cacheObject?.nonEmptyString("directory") { cache.directory = paths.absolute(directory) }
        if let ttl = try cacheObject?.seconds("ttl_seconds", maximum: 86_400) { cache.ttl = ttl }
        if let stale = try cacheObject?.seconds("max_stale_seconds", maximum: 7 * 86_400) {
            cache.maximumStaleness = stale
        }

        let historyObject = try root.object("history")
        if let historyObject { warnings += historyObject.unknownKeys(known: Self.keys("history")) }
        var history = HistoryConfiguration()
        if let enabled = try historyObject?.bool("enabled") { history.enabled = enabled }
        if let calls = try historyObject?.integer("max_calls_per_day", in: 1...100_000) {
            history.maximumCallsPerDay = calls
        }

        let privacy = try Self.decodePrivacy(root, warnings: &warnings)
        let geocodingObject = try root.object("geocoding")
        if let geocodingObject { warnings += geocodingObject.unknownKeys(known: Self.keys("geocoding")) }
        let geocoding = try geocodingObject?.bool("enabled") ?? true
        let airObject = try root.object("air_quality")
        if let airObject { warnings += airObject.unknownKeys(known: Self.keys("air_quality")) }
        let airQuality = try airObject?.bool("enabled") ?? false

        let stampObject = try root.object("stamp")
        if let stampObject { warnings += stampObject.unknownKeys(known: Self.keys("stamp")) }
        var stamp = StampConfiguration()
        if let age = try stampObject?.seconds("max_age_seconds", maximum: 86_400) { stamp.maximumAge = age }
        if let keep = try stampObject?.bool("keep_mtime") { stamp.keepModificationTime = keep }
        if let fields = try stampObject?.array("fields") {
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
        if let after = try stampObject?.seconds("backdated_after_seconds", maximum: 10 * 365 * 86_400) {
            stamp.backdatedAfter = after
        }
        guard stamp.maximumAge >= cache.ttl else {
            throw ConfigurationError(
                field: stampObject?.contains("max_age_seconds") == true ? "stamp.max_age_seconds" : "cache.ttl_seconds",
                message: "stamp.max_age_seconds (\(Int(stamp.maximumAge.seconds))) must not be shorter than "
                    + "cache.ttl_seconds (\(Int(cache.ttl.seconds))): cached weather would be too old to stamp with"
            )
        }

        guard let inboxObject = try root.object("inbox") else { throw root.missing("inbox") }
        warnings += inboxObject.unknownKeys(known: Self.keys("inbox"))
        var inbox = InboxConfiguration(path: paths.absolute(try inboxObject.requiredString("path")))
        if let bytes = try inboxObject.integer("max_bytes", in: 1...(1 << 30)) { inbox.maximumBytes = bytes }
        if try inboxObject.double("poll_seconds") == 0 {
            // 0 turns polling off, even on a network filesystem.
            inbox.pollInterval = .zero
        } else if let poll = try inboxObject.seconds("poll_seconds", maximum: 86_400) {
            inbox.pollInterval = poll
        }
        let excludes = try inboxObject.stringArray("exclude") ?? []
        inbox.tree = InboxTree(
            recursive: try inboxObject.bool("recursive") ?? true,
            maximumDepth: try inboxObject.integer("max_depth", in: 0...64) ?? 8,
            excludes: excludes)
        if let bad = excludes.first(where: { pattern in
            let text = pattern.trimmingCharacters(in: .whitespaces)
            return !text.isEmpty && !text.hasPrefix("#") && ExcludePattern(text) == nil
        }) {
            throw ConfigurationError(field: "inbox.exclude", message: "\"\(bad)\" is not a pattern")
        }
        if try inboxObject.double("settle_seconds") == 0 {
            inbox.settle = .zero
        } else if let settle = try inboxObject.seconds("settle_seconds", maximum: 3600) {
            inbox.settle = settle
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

        let socketObject = try root.object("socket")
        if let socketObject {
            warnings += socketObject.unknownKeys(known: Self.keys("socket"))
        }
        var socket = SocketConfiguration(path: paths.defaultSocketPath)
        if let path = try socketObject?.nonEmptyString("path") { socket.path = paths.absolute(path) }
        if let count = try socketObject?.integer("max_connections", in: 1...4096) { socket.maximumConnections = count }
        if let idle = try socketObject?.seconds("idle_timeout_seconds", maximum: 3600) { socket.idleTimeout = idle }
        guard socket.path.utf8.count <= Self.maximumSocketPathLength else {
            throw ConfigurationError(
                field: "socket.path",
                message: "\(socket.path) is \(socket.path.utf8.count) bytes; Unix socket paths are limited to "
                    + "\(Self.maximumSocketPathLength)"
            )
        }

        return Configuration(
            openWeather: openWeather,
            providers: providers,
            locationStrategy: locationStrategy,
            cache: cache,
            state: state,
            history: history,
            privacy: privacy,
            geocoding: geocoding,
            airQuality: airQuality,
            inbox: inbox,
            stamp: stamp,
            socket: socket,
            warnings: warnings
        )
    }

    private static func decodePrivacy(
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
                    PrivacyPolicy.Zone(
                        name: name, latitude: try zone.latitude("latitude"), longitude: try zone.longitude("longitude"),
                        radiusMeters: radius))
            }
        }
        return privacy
    }

    private static func decodeOpenWeather(
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
        if let units = try object.choice(
            "units",
            ["standard": Units.standard, "metric": Units.metric, "imperial": Units.imperial]
        ) {
            config.units = units
        }
        if let lang = try object.nonEmptyString("lang") {
            guard lang.count <= 8, lang.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_" || $0 == "-") }) else {
                throw ConfigurationError(
                    field: "openweather.lang",
                    message: "\"\(lang)\" is not a language code such as en, de, zh_cn"
                )
            }
            config.lang = lang
        }
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
    ) throws(ConfigurationError) -> APIKey {
        func clean(_ text: String) -> String? {
            let key = text.trimmingCharacters(in: .whitespacesAndNewlines)
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
        throw ConfigurationError(
            field: "openweather.api_key",
            message: "no OpenWeather API key: set $OPENWEATHER_API_KEY, put the key in a file named by "
                + "openweather.api_key_file, set openweather.api_key, or under systemd use "
                + "LoadCredential=openweather-api-key:/etc/weathertag/api-key"
        )
    }
}

extension Configuration {
    /// Only `socket.path` (or its default), for clients such as `weathertag tag --config`: they need not have the API
    /// key or see the inbox.
    public static func socketPath(
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
            return (try JSONParser.parse(data), (absolute as NSString).deletingLastPathComponent)
        } catch {
            throw ConfigurationError(field: "", message: "\(absolute): invalid JSON at \(error)")
        }
    }
}
