import FoundationEssentials
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
    /// The setting that sets `maximumCallsPerMinute`, named in the message that says the ceiling was reached.
    var ceilingSetting: String { get }
    /// Where the images of its icon codes come from, or nil: every source gives OpenWeather's codes, but the images
    /// are OpenWeather's, fetched only when it is a source (a keyless configuration asks no commercial service).
    var iconImages: IconImages? { get }
}

extension WeatherSource {
    public func airQuality(at position: RequestPosition) async throws(WeatherError) -> AirQuality? { nil }
    public var ceilingSetting: String { "\(self.type)'s calls per minute" }
    public var iconImages: IconImages? { nil }
}

/// Where a source's icon images are: `{baseURL}/{code}@2x.png`, each asked within `timeout`.
public struct IconImages: Sendable, Equatable {
    public var baseURL: String
    public var timeout: Duration

    public init(baseURL: String, timeout: Duration) {
        (self.baseURL, self.timeout) = (baseURL, timeout)
    }
}

/// What a source's settings may use at load besides its own entry: every source's units and language
/// (`weather.units`, `weather.lang`), the services' own sections (`openweather`, `open_meteo`, `met_norway`),
/// decoded, and where relative paths start.
public struct WeatherSettingsContext: Sendable {
    public var units: Units
    public var lang: String
    public var openWeather: OpenWeatherConfiguration
    public var openMeteo: OpenMeteoConfiguration
    public var metNorway: METNorwayConfiguration
    public var paths: PathResolver

    public init(
        units: Units, lang: String, openWeather: OpenWeatherConfiguration, openMeteo: OpenMeteoConfiguration,
        metNorway: METNorwayConfiguration, paths: PathResolver
    ) {
        self.units = units
        self.lang = lang
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

/// `weather.providers`: the weather source plugin family (`Support/Plugins.swift`).
public typealias WeatherSourceSpec = PluginSpec<WeatherSourceContext, any WeatherSource>
public typealias WeatherSourcePlugin = Plugin<WeatherSettingsContext, WeatherSourceContext, any WeatherSource>
public typealias WeatherSourceRegistry = PluginRegistry<
    WeatherSettingsContext, WeatherSourceContext, any WeatherSource
>

extension PluginSpec where Context == WeatherSourceContext, Product == any WeatherSource {
    /// A running source for these settings.
    public func makeSource(_ context: WeatherSourceContext) -> any WeatherSource {
        self.make(context)
    }
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
