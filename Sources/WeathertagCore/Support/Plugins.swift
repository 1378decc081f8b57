import FoundationEssentials

/// Plugin families (where positions come from, where weather comes from) share one shape: the configuration lists
/// entries by `type`; each type's plugin validates its entry into plain settings at load, every error naming its
/// field; a factory builds the running thing from those settings later. A family is three typealiases of these
/// (`LocationProviderPlugin`, `WeatherSourcePlugin`, …), and a new member is one file and one registry line.

/// One entry of a family's list (`location.providers[2]`, `weather.providers[0]`), decoded and validated at load:
/// its type and its plugin's plain settings. Nothing runs until `make` builds it.
package struct PluginSpec<Context: Sendable, Product>: Sendable {
    package let type: String
    /// The plugin's settings (`FixedLocationProvider.Settings`, `OpenMeteoSource.Settings`, …): plain values.
    package let settings: any Sendable
    private let build: @Sendable (Context) -> Product
    /// What it builds as a `HistorySource`, when its plugin's product is one (a weather source that can answer for
    /// the past): the type says so, not a flag beside it.
    private let buildPast: (@Sendable (Context) -> any HistorySource)?

    init(
        type: String, settings: any Sendable, build: @escaping @Sendable (Context) -> Product,
        buildPast: (@Sendable (Context) -> any HistorySource)? = nil
    ) {
        self.type = type
        self.settings = settings
        self.build = build
        self.buildPast = buildPast
    }

    /// A running provider or source for these settings.
    package func make(_ context: Context) -> Product {
        self.build(context)
    }

    /// The running source, as one that answers for the past; nil when what it builds is not a `HistorySource`.
    package func makePast(_ context: Context) -> (any HistorySource)? {
        self.buildPast?(context)
    }
}

/// One kind of answer a plugin reads (a service's documented JSON, a program's output), as the running plugin reads
/// it: bytes in, the reading thrown away. Registered with its plugin (`Plugin.answers`), so that the fuzz targets
/// read every input with every plugin's readers and a new plugin's are fuzzed without a list of them. A reader never
/// traps, whatever the bytes.
package struct AnswerReader: Sendable {
    /// What it reads, in a fuzz report's words ("Open-Meteo's current weather").
    package let name: String
    private let reading: @Sendable (_ bytes: [UInt8]) -> Void

    package init(_ name: String, read: @escaping @Sendable (_ bytes: [UInt8]) -> Void) {
        self.name = name
        self.reading = read
    }

    package func read(_ bytes: [UInt8]) {
        self.reading(bytes)
    }

    /// Where an answer a reader reads is taken to be for, when its reading needs a place (Oslo).
    package static let position = PrivacyPolicy.exact.requestPosition(
        Position(latitude: 59.9, longitude: 10.7, source: "answer", takenAt: Date(timeIntervalSince1970: 0)))
}

/// One kind of plugin, registered under its configuration `type`: how its entry is validated into settings (every
/// error names its field, through `SettingsContext`: paths, files, the sections it reads), and how the running
/// thing is built from them (with `Context`: the transport, the log, the clock).
package struct Plugin<SettingsContext: Sendable, Context: Sendable, Product>: Sendable {
    package typealias Decode =
        @Sendable (ConfigObject, SettingsContext) throws(ConfigurationError) -> PluginSpec<Context, Product>

    package let type: String
    /// How people call it ("Open-Meteo", "IP geolocation"): the stamp's summary, `check`, messages.
    package let name: String
    /// Whether it answers only with a key or an account (OpenWeather's): the others are offered where one is missing.
    package let needsKey: Bool
    /// Its readers of what it is answered (`AnswerReader`), fuzzed by being registered.
    package let answers: [AnswerReader]
    /// The keys an entry of this type understands, besides `type`, each with its schema (`ConfigKey`); others are
    /// warned about.
    package let declaredKeys: [ConfigKey]
    /// The names of `declaredKeys`.
    package var keys: Set<String> { Set(self.declaredKeys.map(\.name)) }
    /// Whether what it builds can also answer for the past (a weather source that is a `HistorySource`, named by
    /// `history.source`): true exactly when its `make` returns a `HistorySource`.
    package let knowsThePast: Bool
    package let decode: Decode
    /// The top-level sections it reads besides its entry (`open_meteo`), decoded at load whether or not it is listed.
    package let sections: [any ConfigurationSection.Type]
    /// Why it is listed when its family's list is not given, or nil when it is not: OpenWeather is, when its section
    /// holds a key ("an OpenWeather key, so OpenWeather alone"), as before sources were plugins.
    package let impliedBy: (@Sendable (SettingsContext) -> String?)?

    package init<Settings: Sendable>(
        type: String,
        name: String,
        needsKey: Bool = false,
        answers: [AnswerReader] = [],
        keys: [ConfigKey],
        sections: [any ConfigurationSection.Type] = [],
        impliedBy: (@Sendable (SettingsContext) -> String?)? = nil,
        settings: @escaping @Sendable (ConfigObject, SettingsContext) throws(ConfigurationError) -> Settings,
        make: @escaping @Sendable (Settings, Context) -> Product
    ) {
        (self.type, self.name, self.needsKey, self.answers) = (type, name, needsKey, answers)
        self.declaredKeys = keys
        self.sections = sections
        self.impliedBy = impliedBy
        self.knowsThePast = false
        self.decode = { (config, context) throws(ConfigurationError) in
            let decoded = try settings(config, context)
            return PluginSpec(type: type, settings: decoded) { make(decoded, $0) }
        }
    }

    /// A weather source that also answers for the past: `make` builds a `HistorySource`.
    package init<Settings: Sendable, Source: HistorySource>(
        type: String,
        name: String,
        needsKey: Bool = false,
        answers: [AnswerReader] = [],
        keys: [ConfigKey],
        sections: [any ConfigurationSection.Type] = [],
        impliedBy: (@Sendable (SettingsContext) -> String?)? = nil,
        settings: @escaping @Sendable (ConfigObject, SettingsContext) throws(ConfigurationError) -> Settings,
        makePast make: @escaping @Sendable (Settings, Context) -> Source
    ) where Product == any WeatherSource {
        (self.type, self.name, self.needsKey, self.answers) = (type, name, needsKey, answers)
        self.declaredKeys = keys
        self.sections = sections
        self.impliedBy = impliedBy
        self.knowsThePast = true
        self.decode = { (config, context) throws(ConfigurationError) in
            let decoded = try settings(config, context)
            return PluginSpec(
                type: type, settings: decoded, build: { make(decoded, $0) }, buildPast: { make(decoded, $0) })
        }
    }
}

/// The types a family's list may name, keyed by `type`, in the order they are listed to users.
package struct PluginRegistry<SettingsContext: Sendable, Context: Sendable, Product>: Sendable {
    /// The type listed when the configuration lists none and no plugin is implied (`impliedBy`), and why, in the
    /// words `check` prints: IP geolocation for positions, Open-Meteo (no key) for weather.
    package struct Fallback: Sendable {
        package var type: String
        package var reason: String

        package init(type: String, reason: String) {
            (self.type, self.reason) = (type, reason)
        }
    }

    package private(set) var plugins: [Plugin<SettingsContext, Context, Product>] = []
    package var fallback: Fallback?

    package init(_ plugins: [Plugin<SettingsContext, Context, Product>] = [], fallback: Fallback? = nil) {
        self.fallback = fallback
        for plugin in plugins { self.register(plugin) }
    }

    /// Every section its plugins read, each once, in the order they are registered.
    package var sections: [any ConfigurationSection.Type] {
        var names: Set<String> = []
        return self.plugins.flatMap(\.sections).filter { names.insert($0.name).inserted }
    }

    /// Adds a type, replacing one of the same name.
    package mutating func register(_ plugin: Plugin<SettingsContext, Context, Product>) {
        self.plugins.removeAll { $0.type == plugin.type }
        self.plugins.append(plugin)
    }

    package func plugin(for type: String) -> Plugin<SettingsContext, Context, Product>? {
        self.plugins.first { $0.type == type }
    }

    package var types: [String] { self.plugins.map(\.type) }

    /// How people call the plugin of `type` ("MET Norway"); the type itself when none is registered under it.
    package func name(of type: String) -> String {
        self.plugin(for: type)?.name ?? type
    }

    /// A type as `check` says it: with its plugin's name when that says more than the type (`ip (IP geolocation)`,
    /// but `open-meteo`).
    package func label(of type: String) -> String {
        let name = self.name(of: type)
        let letters = { (text: String) in text.lowercased().filter { $0.isLetter || $0.isNumber } }
        return letters(name) == letters(type) ? type : "\(type) (\(name))"
    }

    /// The types that answer without a key, in the order they are listed.
    package var keyless: [String] { self.plugins.filter { !$0.needsKey }.map(\.type) }

    /// Every registered reader of answers, with its plugin's type.
    package var answers: [(type: String, reader: AnswerReader)] {
        self.plugins.flatMap { plugin in plugin.answers.map { (plugin.type, $0) } }
    }
}
