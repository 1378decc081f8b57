import Foundation
import Logging

/// A service that knows the weather at a place (`weather.providers`). Adding a source is one file in
/// `WeathertagDaemon/Providers/Weather/`: a type conforming to this, its `Settings` and a `WeatherSourcePlugin`, plus
/// one line in the registry. Sources only ever see a `RequestPosition`: what `privacy` lets leave the machine.
public protocol WeatherSource: Sendable {
    /// The configuration `type`; also what the block says answered (`weather_source`).
    var type: String { get }
    /// Never more calls than this in any 60 seconds (the service's own free limit, or the configured one).
    var maximumCallsPerMinute: Int { get }
    /// The weather now at `position`. Must honour task cancellation and its own timeout.
    func currentWeather(at position: RequestPosition) async throws(WeatherError) -> Weather
    /// The air now at `position`, or nil for a source that has none (`air_quality.enabled`).
    func airQuality(at position: RequestPosition) async throws(WeatherError) -> AirQuality?
}

extension WeatherSource {
    public func airQuality(at position: RequestPosition) async throws(WeatherError) -> AirQuality? { nil }
}

/// What a source's settings may use at load besides its own entry: the services' own sections (`openweather`,
/// `open_meteo`, `met_norway`), decoded, and where relative paths start.
public struct WeatherSettingsContext: Sendable {
    public var openWeather: OpenWeatherConfiguration
    public var openMeteo: OpenMeteoConfiguration
    public var metNorway: METNorwayConfiguration
    public var paths: PathResolver

    public init(
        openWeather: OpenWeatherConfiguration, openMeteo: OpenMeteoConfiguration, metNorway: METNorwayConfiguration,
        paths: PathResolver
    ) {
        self.openWeather = openWeather
        self.openMeteo = openMeteo
        self.metNorway = metNorway
        self.paths = paths
    }
}

/// What a running source is built with (by `ServiceFactory`): the transport, the log, the clock, and a counter of
/// the calls it makes (`/v1/status`).
public struct WeatherSourceContext: Sendable {
    public var http: any HTTPClient
    public var logger: Logger
    public var now: @Sendable () -> Date
    public var countCall: @Sendable () -> Void

    public init(
        http: any HTTPClient, logger: Logger, now: @escaping @Sendable () -> Date = { Date() },
        countCall: @escaping @Sendable () -> Void = {}
    ) {
        self.http = http
        self.logger = logger
        self.now = now
        self.countCall = countCall
    }
}

/// One entry of `weather.providers`, decoded and validated at load: its type and its plugin's plain settings.
public struct WeatherSourceSpec: Sendable {
    public let type: String
    /// The plugin's settings: plain values.
    public let settings: any Sendable
    private let build: @Sendable (WeatherSourceContext) -> any WeatherSource

    init(type: String, settings: any Sendable, build: @escaping @Sendable (WeatherSourceContext) -> any WeatherSource) {
        self.type = type
        self.settings = settings
        self.build = build
    }

    /// A running source for these settings.
    public func makeSource(_ context: WeatherSourceContext) -> any WeatherSource {
        self.build(context)
    }
}

/// One kind of weather source, registered under its configuration `type`.
public struct WeatherSourcePlugin: Sendable {
    public typealias Decode =
        @Sendable (ConfigObject, WeatherSettingsContext) throws(ConfigurationError) -> WeatherSourceSpec

    public let type: String
    /// The keys this source's entry understands, besides `type`; others are warned about.
    public let keys: Set<String>
    public let decode: Decode

    public init<Settings: Sendable>(
        type: String,
        keys: Set<String>,
        settings: @escaping @Sendable (ConfigObject, WeatherSettingsContext) throws(ConfigurationError) -> Settings,
        make: @escaping @Sendable (Settings, WeatherSourceContext) -> any WeatherSource
    ) {
        self.type = type
        self.keys = keys
        self.decode = { (config, context) throws(ConfigurationError) in
            let decoded = try settings(config, context)
            return WeatherSourceSpec(type: type, settings: decoded) { make(decoded, $0) }
        }
    }
}

/// The weather source types the configuration may name, keyed by `type`, in the order they are listed to users.
public struct WeatherSourceRegistry: Sendable {
    public private(set) var plugins: [WeatherSourcePlugin] = []

    public init(_ plugins: [WeatherSourcePlugin] = []) {
        for plugin in plugins { self.register(plugin) }
    }

    /// Adds a source type, replacing one of the same name.
    public mutating func register(_ plugin: WeatherSourcePlugin) {
        self.plugins.removeAll { $0.type == plugin.type }
        self.plugins.append(plugin)
    }

    public func plugin(for type: String) -> WeatherSourcePlugin? {
        self.plugins.first { $0.type == type }
    }

    public var types: [String] { self.plugins.map(\.type) }
}

/// Every plugin family the configuration can name: where positions come from, and where weather comes from.
public struct PluginRegistries: Sendable {
    public var location: LocationProviderRegistry
    public var weather: WeatherSourceRegistry

    public init(location: LocationProviderRegistry, weather: WeatherSourceRegistry) {
        self.location = location
        self.weather = weather
    }
}
