import FoundationEssentials

/// A section weathertag itself reads (`inbox`, `cache`, …): its name and its keys, declared beside its decoder below.
/// The accepted-key table (`Configuration.sectionKeys`) is made of these and the plugins' own sections.
struct CommonSection: Sendable {
    let name: String
    /// What it is for, in config.schema.json.
    let description: String?
    /// Its keys, each with its schema (`ConfigKey`): config.schema.json is made of these.
    let declaredKeys: [ConfigKey]
    /// Whether the file must have it (`inbox`).
    let isRequired: Bool

    init(_ name: String, required: Bool = false, description: String? = nil, keys: [ConfigKey]) {
        (self.name, self.isRequired, self.description, self.declaredKeys) = (name, required, description, keys)
    }

    /// The names of its keys: any other is warned about.
    var keys: Set<String> { Set(self.declaredKeys.map(\.name)) }
}

// One decoder per section of the configuration file, each warning about its unknown keys and naming its field in
// every error. `Configuration.decode` puts them together; the plugins' sections decode themselves
// (`ConfigurationSection`).
extension Configuration {
    /// The section, its unknown keys warned about; nil when the file has none.
    static func section(
        _ root: ConfigObject, _ section: CommonSection, warnings: inout [String]
    ) throws(ConfigurationError) -> ConfigObject? {
        guard let object = try root.object(section.name) else { return nil }
        warnings += object.unknownKeys(known: section.keys)
        return object
    }

    /// `{"enabled": …}` sections (`air_quality`).
    static func decodeSwitch(
        _ root: ConfigObject, _ section: CommonSection, default value: Bool, warnings: inout [String]
    ) throws(ConfigurationError) -> Bool {
        try Self.section(root, section, warnings: &warnings)?.bool("enabled") ?? value
    }
}

extension CommonSection {
    static let airQuality = CommonSection(
        "air_quality",
        keys: [
            .boolean(
                "enabled", default: false,
                "The air at the place (aqi, label, pm2_5, pm10, o3, no2), one more call per place per cache TTL.")
        ])
    static let state = CommonSection(
        "state",
        description:
            "The daemon's memory of its stamps (state.sqlite): an entry that comes back without its weather block gets the same block back.",
        keys: [
            .string(
                "directory", minLength: 1,
                "Default: $STATE_DIRECTORY, else $XDG_STATE_HOME/weathertag, else ~/.local/state/weathertag."),
            .boolean(
                "enabled", default: true,
                "false: nothing is remembered, and an entry that comes back without its block gets new weather."),
            .seconds(
                "forget_after_seconds", maximum: 2592000, default: 600,
                "How long the block of an entry that left the inbox is kept for its return (git and tar delete a file and write it again)."
            ),
        ])
}

extension Configuration {
    static func decodeState(
        _ root: ConfigObject, paths: PathResolver, warnings: inout [String]
    ) throws(ConfigurationError) -> StateConfiguration {
        let object = try Self.section(root, .state, warnings: &warnings)
        var state = StateConfiguration(directory: paths.defaultStateDirectory)
        if let directory = try object?.nonEmptyString("directory") { state.directory = paths.absolute(directory) }
        if let enabled = try object?.bool("enabled") { state.enabled = enabled }
        if let forget = try object?.seconds("forget_after_seconds", maximum: 30 * 86_400) { state.forgetAfter = forget }
        return state
    }
}

extension CommonSection {
    static let location = CommonSection(
        "location",
        keys: [
            ConfigKey(
                "providers",
                schema: [
                    "type": "array", "minItems": 1, "items": ["$ref": "#/definitions/provider"],
                    "default": [["type": "ip"]],
                    "description":
                        "The location chain: asked in order (strategy first) or all at once (most_accurate).",
                ]),
            .choice(
                "strategy", ["first", "most_accurate"], default: "first",
                "first: the first valid position in order wins; most_accurate: every provider is asked at once and the smallest accuracy_m wins (none counts as 5000 m). Back-dated entries are placed the same way."
            ),
        ])
}

extension Configuration {
    /// `location.providers` as plain specs (each plugin validates its own keys), and `location.strategy`.
    static func decodeLocation(
        _ root: ConfigObject, registry: LocationProviderRegistry, context: LocationSettingsContext,
        warnings: inout [String]
    ) throws(ConfigurationError) -> ([LocationProviderSpec], LocationStrategy) {
        let location = try Self.section(root, .location, warnings: &warnings)
        var providers: [LocationProviderSpec] = []
        if let entries = try location?.array("providers") {
            providers = try Self.decodePlugins(
                entries, field: "location.providers", noun: ("provider", "provider"), registry: registry,
                context: context, warnings: &warnings)
        } else if let type = registry.fallback?.type, let plugin = registry.plugin(for: type) {
            // Without a list, the registry's fallback (IP geolocation) with its defaults.
            providers.append(try plugin.decode(try ConfigObject(.object([]), path: "location.providers[0]"), context))
        }
        let strategy =
            try location?.choice("strategy", ["first": LocationStrategy.first, "most_accurate": .mostAccurate])
            ?? .first
        return (providers, strategy)
    }
}

extension CommonSection {
    static let cache = CommonSection(
        "cache",
        keys: [
            .string(
                "directory", minLength: 1,
                "Default: $CACHE_DIRECTORY, else $XDG_CACHE_HOME/weathertag, else ~/.cache/weathertag."),
            .seconds("ttl_seconds", maximum: 86400, default: 600),
            .seconds("max_stale_seconds", maximum: 604800, default: 10800),
        ])
}

extension Configuration {
    static func decodeCache(
        _ root: ConfigObject, paths: PathResolver, warnings: inout [String]
    ) throws(ConfigurationError) -> CacheConfiguration {
        let object = try Self.section(root, .cache, warnings: &warnings)
        var cache = CacheConfiguration(directory: paths.defaultCacheDirectory)
        if let directory = try object?.nonEmptyString("directory") { cache.directory = paths.absolute(directory) }
        if let ttl = try object?.seconds("ttl_seconds", maximum: 86_400) { cache.ttl = ttl }
        if let stale = try object?.seconds("max_stale_seconds", maximum: 7 * 86_400) { cache.maximumStaleness = stale }
        return cache
    }
}

extension CommonSection {
    static let history = CommonSection(
        "history",
        description:
            "The weather of back-dated entries' own time: Open-Meteo's archive (no key) or OpenWeather's One Call 3.0 timemachine.",
        keys: [
            .boolean(
                "enabled", default: false,
                "Back-dated entries get the weather of their own time; off, they are left alone with the reason."),
            .choice(
                "source", from: { $0.weather.plugins.filter(\.knowsThePast).map(\.type) }, default: "open-meteo",
                "open-meteo: a whole year of a place's hours per request, no key; openweather: the timemachine, one call per entry, a One Call 3.0 subscription."
            ),
            .integer(
                "max_calls_per_day", minimum: 1, maximum: 100000,
                "Calls a day at most, counted across restarts: the timemachine's per local day (default 900), or Open-Meteo's weighted calls in any 24 hours (default 5000, half their free limit)."
            ),
        ])
}

extension Configuration {
    /// `history`: on or off, the source asked (a weather source whose plugin knows the past, validated as its plugin
    /// validates it), and its daily ceiling.
    static func decodeHistory(
        _ root: ConfigObject, registry: WeatherSourceRegistry, context: WeatherSettingsContext,
        warnings: inout [String]
    ) throws(ConfigurationError) -> HistoryConfiguration {
        let object = try Self.section(root, .history, warnings: &warnings)
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
}

extension CommonSection {
    static let stamp = CommonSection(
        "stamp",
        keys: [
            .list(
                "fields", minItems: 1, unique: true, of: ["enum": .array(StampField.all.map { .string($0.rawValue) })],
                "The block's fields, in order; all of them by default."),
            .seconds(
                "max_age_seconds", maximum: 86400, default: 3600,
                "Entries are stamped only with weather at most this old; never shorter than cache.ttl_seconds."),
            .seconds(
                "backdated_after_seconds", maximum: 315360000, default: 10800,
                "An entry written longer ago than this (by its front matter's date/created/created_at/time, a date in its file name, else its modification time; a date without a time: any day before today) is back-dated: it never gets current weather and is left alone with the reason."
            ),
            .boolean(
                "keep_mtime", default: true,
                "The stamped file keeps the entry's modification time (for many diaries the record of when it was written)."
            ),
            .choice(
                "format", ["block", "properties"], default: "block",
                "How the stamp is written: one weather: mapping (block), or top-level properties Obsidian types (weather_temperature, weather_local_time, …; no mapping anywhere). Either form is known as a stamp."
            ),
        ])
}

extension Configuration {
    /// `stamp`, checked against the cache's TTL: cached weather must be young enough to stamp with.
    static func decodeStamp(
        _ root: ConfigObject, cache: CacheConfiguration, warnings: inout [String]
    ) throws(ConfigurationError) -> StampConfiguration {
        let object = try Self.section(root, .stamp, warnings: &warnings)
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
        if let format = try object?.choice("format", ["block": StampFormat.block, "properties": .properties]) {
            stamp.format = format
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
}

extension CommonSection {
    static let inbox = CommonSection(
        "inbox", required: true,
        keys: [
            .string("path", required: true, minLength: 1, "The watched folder; it must exist."),
            .integer("max_bytes", minimum: 1, maximum: 1073741824, default: 16777216),
            .number(
                "poll_seconds", minimum: 0, maximum: 86400,
                "Rescan this often besides inotify; 0 turns it off. Default: 30 on network filesystems, off on local ones."
            ),
            .boolean(
                "recursive", default: true,
                "Watch and list the folders below the inbox (year/month folders, daily-note folders)."),
            .integer(
                "max_depth", minimum: 0, maximum: 64, default: 8,
                "How many levels of folders below the inbox are followed."),
            .choice(
                "entries", InboxTree.EntryScope.allCases.map(\.rawValue), default: "auto",
                "Which notes are entries when the inbox is a notes app's vault (it holds .obsidian/, or Logseq's logseq/config.edn): auto, the folders its daily notes, periodic notes and journals are in (templates are never entries, whatever this says); all, every note. An inbox that is no vault's root: every note either way."
            ),
            .list(
                "exclude", of: ["type": "string"],
                "gitignore-style patterns of files and folders that are not entries: \"drafts/\", \"*.private.md\", \"/archive\", \"templates/**\". Hidden folders (.git, .obsidian, .trash) are never followed."
            ),
            .number(
                "settle_seconds", minimum: 0, maximum: 3600, default: 2,
                "An entry written or moved in is stamped once no write has reached it for this long (autosaving editors save many times); 0 stamps at once. Entries an editor has open (its swap or lock file beside them) wait until it closes them."
            ),
            .string(
                "layout", minLength: 1, pattern: "%d", default: "%Y/%m/%Y-%m-%d-%H%M.md",
                "Where an entry of a given time lives below the inbox, for `new` and `import`: %Y %m %d %H %M %S are its local year, month, day, hour, minute and second, %% a percent sign. Relative, ends in .md or .markdown, holds %d; a second entry of the same name gets -2."
            ),
        ])
}

extension Configuration {
    /// `inbox` (required), its folder checked to exist.
    static func decodeInbox(
        _ root: ConfigObject, paths: PathResolver, files: any ConfigurationFiles, warnings: inout [String]
    ) throws(ConfigurationError) -> InboxConfiguration {
        guard let object = try Self.section(root, .inbox, warnings: &warnings) else { throw root.missing("inbox") }
        var inbox = InboxConfiguration(path: paths.absolute(try object.requiredString("path")))
        if let bytes = try object.integer("max_bytes", in: 1...(1 << 30)) { inbox.maximumBytes = bytes }
        if try object.double("poll_seconds") == 0 {
            // 0 turns polling off, even on a network filesystem.
            inbox.pollInterval = .zero
        } else if let poll = try object.seconds("poll_seconds", maximum: 86_400) {
            inbox.pollInterval = poll
        }
        let excludes = try object.stringArray("exclude") ?? []
        let scope = try object.choice("entries", ["auto": InboxTree.EntryScope.auto, "all": .all])
        inbox.tree = InboxTree(
            recursive: try object.bool("recursive") ?? true,
            maximumDepth: try object.integer("max_depth", in: 0...64) ?? 8,
            excludes: excludes, entries: scope ?? .auto)
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
        // A notes app's vault lays out its own entries and templates (`VaultLayout`); read as its settings are now.
        inbox.tree.vault = VaultLayout.read(inbox: Paths.standardized(inbox.path), files: files)
        return inbox
    }
}

extension CommonSection {
    static let newEntry = CommonSection(
        "new", description: "How `weathertag new` starts an entry.",
        keys: [
            .string(
                "template", minLength: 1,
                "A file whose text starts every new entry (relative to the configuration's folder); {{title}}, {{date}}, {{day}} and {{time}} are filled in. Default: a front matter with title and date."
            )
        ])
}

extension Configuration {
    static func decodeNewEntry(
        _ root: ConfigObject, paths: PathResolver, files: any ConfigurationFiles, warnings: inout [String]
    ) throws(ConfigurationError) -> NewEntryConfiguration {
        guard let object = try Self.section(root, .newEntry, warnings: &warnings) else {
            return NewEntryConfiguration()
        }
        guard let template = try object.nonEmptyString("template") else { return NewEntryConfiguration() }
        let path = paths.absolute(template)
        guard files.kind(path) == .file else {
            throw ConfigurationError(
                field: "new.template",
                message: "\(path) \(files.kind(path) == nil ? "does not exist" : "is not a file")")
        }
        return NewEntryConfiguration(templatePath: path)
    }
}

extension CommonSection {
    static let socket = CommonSection(
        "socket",
        keys: [
            .string(
                "path", minLength: 1, maxLength: 107,
                "Default: $RUNTIME_DIRECTORY/weathertag.sock, else $XDG_RUNTIME_DIR/weathertag.sock."),
            .integer("max_connections", minimum: 1, maximum: 4096, default: 64),
            .seconds("idle_timeout_seconds", maximum: 3600, default: 30),
        ])
}

extension Configuration {
    static func decodeSocket(
        _ root: ConfigObject, paths: PathResolver, warnings: inout [String]
    ) throws(ConfigurationError) -> SocketConfiguration {
        let object = try Self.section(root, .socket, warnings: &warnings)
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
}

extension CommonSection {
    static let privacy = CommonSection(
        "privacy", description: "How much of a position leaves the machine or is written down.",
        keys: [
            .choice(
                "stamp_coordinates", ["exact", "rounded", "none"], default: "rounded",
                "The coordinates in the block, /v1/tag, /v1/location and status: exact, rounded to decimals, or none."),
            .integer(
                "decimals", minimum: 0, maximum: 6, default: 3, "Decimals of rounded coordinates (3: about 110 m)."),
            .integer(
                "request_decimals", minimum: 0, maximum: 6, default: 2,
                "OpenWeather and the cache never see more decimals than this (2: about 1.1 km)."),
            ConfigKey(
                "zones",
                schema: [
                    "type": "array",
                    "items": [
                        "type": "object", "additionalProperties": false,
                        "required": ["name", "latitude", "longitude", "radius_m"],
                        "properties": [
                            "name": ["type": "string", "minLength": 1],
                            "latitude": ["type": "number", "minimum": -90, "maximum": 90],
                            "longitude": ["type": "number", "minimum": -180, "maximum": 180],
                            "radius_m": ["type": "number", "exclusiveMinimum": 0, "maximum": 100000],
                        ],
                    ],
                    "description":
                        "Places whose coordinates are never written or served: inside one, the block's location is its name and source, and requests use its centre.",
                ]),
        ])
}

extension Configuration {
    static func decodePrivacy(
        _ root: ConfigObject, warnings: inout [String]
    ) throws(ConfigurationError) -> PrivacyPolicy {
        var privacy = PrivacyPolicy()
        guard let object = try Self.section(root, .privacy, warnings: &warnings) else { return privacy }
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

    /// `weather.units` and `weather.lang`: every source's units and language. A plugin's section may still accept
    /// them where they were when its source was the only one (`openweather.units`, its `movedKeys`): read there when
    /// the `weather` ones are not given, with a line (in `check` and the log) saying where they go now.
    static func decodeUnitsAndLanguage(
        _ root: ConfigObject, plugins: PluginRegistries, warnings: inout [String]
    ) throws(ConfigurationError) -> (units: Units, lang: String) {
        let weather = try root.object("weather")
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
        // The plugins' sections that still hold `key`, in the order their plugins are registered.
        func moved(_ key: String) throws(ConfigurationError) -> [ConfigObject] {
            var objects: [ConfigObject] = []
            for section in plugins.sections where section.movedKeys[key] == "weather.\(key)" {
                if let object = try root.object(section.name), object.contains(key) { objects.append(object) }
            }
            return objects
        }
        var result: (units: Units, lang: String) = (.metric, "en")
        if let units = try weather?.choice("units", choices) {
            result.units = units
            for object in try moved("units") {
                warnings.append("\(object.fieldPath("units")): ignored: weather.units is given")
            }
        } else if let object = try moved("units").first, let units = try object.choice("units", choices) {
            result.units = units
            warnings.append(Self.moved(object.fieldPath("units"), to: "weather.units"))
        }
        if let given = try lang(weather) {
            result.lang = given
            for object in try moved("lang") {
                warnings.append("\(object.fieldPath("lang")): ignored: weather.lang is given")
            }
        } else if let object = try moved("lang").first, let given = try lang(object) {
            result.lang = given
            warnings.append(Self.moved(object.fieldPath("lang"), to: "weather.lang"))
        }
        return result
    }

    static func moved(_ old: String, to new: String) -> String {
        "\(old): deprecated, read as \(new), which every weather source reads; move it there"
    }
}

extension CommonSection {
    static let weather = CommonSection(
        "weather",
        keys: [
            ConfigKey(
                "providers",
                schema: [
                    "type": "array", "minItems": 1, "items": ["$ref": "#/definitions/source"],
                    "description":
                        "The weather sources, tried in order: the first that answers stamps, and the block says which (weather_source). Without it: OpenWeather alone when a key is configured, else Open-Meteo.",
                ]),
            .choice(
                "units", ["standard", "metric", "imperial"], default: "metric",
                "Every source's units: standard (K), metric (°C, m/s), imperial (°F, mph)."),
            .string(
                "lang", pattern: "^[A-Za-z_-]{1,8}$", default: "en",
                "The language of description, whoever answers: en, de, ko, zh_cn ..."),
        ])
}

extension Configuration {
    /// `weather.providers` as plain specs, tried in order; without it, the first source its own section implies
    /// (OpenWeather alone when a key is configured, as before sources were plugins), else the registry's fallback
    /// (Open-Meteo, which needs no key).
    static func decodeWeather(
        _ root: ConfigObject, registry: WeatherSourceRegistry, context: WeatherSettingsContext,
        warnings: inout [String]
    ) throws(ConfigurationError) -> WeatherConfiguration {
        let object = try Self.section(root, .weather, warnings: &warnings)
        guard let entries = try object?.array("providers") else {
            let entry = try ConfigObject(.object([]), path: "weather.providers[0]")
            for plugin in registry.plugins {
                if let reason = plugin.impliedBy?(context) {
                    return WeatherConfiguration(
                        sources: [try plugin.decode(entry, context)], origin: .implied(because: reason))
                }
            }
            guard let fallback = registry.fallback, let plugin = registry.plugin(for: fallback.type) else {
                throw ConfigurationError(
                    field: "weather.providers",
                    message: "is required: no source is built in to ask without it; known: "
                        + registry.types.joined(separator: ", "))
            }
            return WeatherConfiguration(
                sources: [try plugin.decode(entry, context)], origin: .fallback(because: fallback.reason))
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
    /// else the first remote geocoder its own sections configure (OpenWeather's, with a key, as before), else the
    /// offline towns index shipped with weathertag (`$WEATHERTAG_TOWNS`, set by the command line to the folder beside
    /// it; empty: none), else none.
    static func decodeGeocoding(
        _ root: ConfigObject, paths: PathResolver, geocoders: GeocoderRegistry, sections: PluginSections,
        files: any ConfigurationFiles, warnings: inout [String]
    ) throws(ConfigurationError) -> GeocodingProvider {
        let object = try Self.section(root, .geocoding, warnings: &warnings)
        let directory = try object?.nonEmptyString("geonames_directory").map { paths.absolute($0) }
        if let directory, files.kind(directory) != .folder {
            throw ConfigurationError(field: "geocoding.geonames_directory", message: "\(directory) is not a folder")
        }
        let provider = try object?.choice("provider", among: geocoders.types + ["geonames", "none"])
        if try object?.bool("enabled") == false { return .none }
        switch provider {
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
        case let type?:
            guard let plugin = geocoders.plugin(for: type),
                let spec = try plugin.decode(sections, "geocoding.provider \(type)")
            else { return .none }
            return .service(spec)
        case nil:
            if let directory { return .geoNames(directory: directory) }
            for plugin in geocoders.plugins {
                if let spec = try plugin.decode(sections, nil) { return .service(spec) }
            }
            if let towns = paths.environment[Configuration.townsVariable], !towns.isEmpty,
                files.kind(towns) == .folder
            {
                return .geoNames(directory: towns)
            }
            return .none
        }
    }
}

extension CommonSection {
    static let geocoding = CommonSection(
        "geocoding",
        keys: [
            .boolean("enabled", default: true, "false: no place names (as provider none)."),
            .choice(
                "provider", from: { $0.geocoders.types + ["geonames", "none"] },
                "Who names places (place, region and country in the block): openweather (its reverse geocoder; the position leaves as privacy allows), geonames (the GeoNames files in geonames_directory; nothing leaves), none. Default: geonames when geonames_directory is given (it must be a folder), else openweather with a key, else none."
            ),
            .string(
                "geonames_directory", minLength: 1,
                "The folder holding cities500.txt, cities1000.txt, cities5000.txt or cities15000.txt (the first found) and admin1CodesASCII.txt, and optionally alternateNamesV2.txt (names in weather.lang), from download.geonames.org/export/dump/."
            ),
        ])
}

extension CommonSection {
    static let timeline = CommonSection(
        "timeline",
        description:
            "The timeline page and the map the daemon keeps current: written again once stamps and edits settle, at most once a minute, never while a batch is written.",
        keys: [
            .string(
                "output", minLength: 1, pattern: "\\.html?$",
                "The page's file (relative to the configuration's folder), written atomically; its folder must exist. Inside the diary it shows the entries' photos. Default: none (`weathertag timeline` writes a page on demand)."
            ),
            .string(
                "map_output", minLength: 1, pattern: "\\.svg$",
                "The map of where you wrote, alone, as `weathertag map` draws it (relative to the configuration's folder), written atomically with the page; its folder must exist. Default: none (the page holds the map too)."
            ),
            .string("title", minLength: 1, default: "Diary", "The page's title."),
            .string(
                "lang", pattern: "^[A-Za-z_-]{1,8}$",
                "The language of the page's and the map's words: ko, ja, zh_CN, zh_TW, de, fr, es, en (en-XA marks every word, to find one not translated). Default: weather.lang."
            ),
        ])
}

extension Configuration {
    /// `timeline`: the page the daemon keeps current, and its title. Its folder must exist; the page is an `.html`
    /// file (inside the diary or anywhere else).
    static func decodeTimeline(
        _ root: ConfigObject, paths: PathResolver, files: any ConfigurationFiles, warnings: inout [String]
    ) throws(ConfigurationError) -> TimelineConfiguration {
        let object = try Self.section(root, .timeline, warnings: &warnings)
        var timeline = TimelineConfiguration()
        timeline.map = MapFiles(environment: paths.environment)
        timeline.localeDirectory = paths.environment[MessageLanguages.directoryVariable]
        if let title = try object?.nonEmptyString("title") { timeline.title = title }
        if let lang = try object?.nonEmptyString("lang") {
            guard lang.count <= 8, lang.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_" || $0 == "-") }) else {
                throw ConfigurationError(
                    field: "timeline.lang", message: "\"\(lang)\" is not a language code such as ko, zh_TW, de")
            }
            timeline.lang = lang
        }
        if let output = try object?.nonEmptyString("output") {
            timeline.output = try Self.outputFile(output, "timeline.output", [".html", ".htm"], paths, files)
        }
        if let output = try object?.nonEmptyString("map_output") {
            timeline.mapOutput = try Self.outputFile(output, "timeline.map_output", [".svg"], paths, files)
        }
        return timeline
    }

    /// A file the daemon writes: not a folder, with one of `suffixes`, in a folder that exists.
    private static func outputFile(
        _ given: String, _ field: String, _ suffixes: [String], _ paths: PathResolver, _ files: any ConfigurationFiles
    ) throws(ConfigurationError) -> String {
        let path = paths.absolute(given)
        let folder = Paths.deletingLastComponent(path)
        guard files.kind(path) != .folder else {
            throw ConfigurationError(
                field: field, message: "\(path) is a folder; name the file (\(path)/diary\(suffixes[0])?)")
        }
        guard suffixes.contains(where: { path.hasSuffix($0) }) else {
            throw ConfigurationError(field: field, message: "\(path) must end in \(suffixes[0])")
        }
        guard files.kind(folder) == .folder else {
            throw ConfigurationError(
                field: field,
                message: "the folder \(folder) does not exist; create it (mkdir -p \(folder)) or fix the path")
        }
        return path
    }
}
