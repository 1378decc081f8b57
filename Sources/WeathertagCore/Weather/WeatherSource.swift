import FoundationEssentials
import Logging

/// A service that knows the weather at a place (`weather.providers`). Adding a source is one file in
/// `WeathertagDaemon/Providers/Weather/`: a type conforming to this, its `Settings` and a `WeatherSourcePlugin`, plus
/// one line in the registry. Sources only ever see a `RequestPosition`: what `privacy` lets leave the machine.
package protocol WeatherSource: Sendable {
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
    /// Where its key came from, for `check` (never the key itself); nil for a source without one.
    var keyOrigin: String? { get }
}

extension WeatherSource {
    package func airQuality(at position: RequestPosition) async throws(WeatherError) -> AirQuality? { nil }
    package var ceilingSetting: String { "\(self.type)'s calls per minute" }
    package var iconImages: IconImages? { nil }
    package var keyOrigin: String? { nil }
}

/// Where a source's icon images are: `{baseURL}/{code}@2x.png`, each asked within `timeout`.
package struct IconImages: Sendable, Equatable {
    package var baseURL: String
    package var timeout: Duration

    package init(baseURL: String, timeout: Duration) {
        (self.baseURL, self.timeout) = (baseURL, timeout)
    }
}

/// What a source's settings may use at load besides its own entry: every source's units and language
/// (`weather.units`, `weather.lang`), the plugins' own sections (`openweather`, `open_meteo`, …), decoded, and where
/// relative paths start.
package struct WeatherSettingsContext: Sendable {
    package var units: Units
    package var lang: String
    package var sections: PluginSections
    package var paths: PathResolver
    /// The registered sources that answer without a key (`Plugin.needsKey`), offered where a key is missing.
    package var keyless: [String]

    package init(units: Units, lang: String, sections: PluginSections, paths: PathResolver, keyless: [String] = []) {
        self.units = units
        self.lang = lang
        self.sections = sections
        self.paths = paths
        self.keyless = keyless
    }
}

/// What a running source is built with (by `ServiceFactory`): the transport, the log, the clock, and a counter of
/// the calls it makes (`/v1/status`).
package struct WeatherSourceContext: Sendable {
    package var http: any HTTPClient
    package var logger: Logger
    package var now: @Sendable () -> Date
    package var countCall: @Sendable () -> Void

    package init(
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
package typealias WeatherSourceSpec = PluginSpec<WeatherSourceContext, any WeatherSource>
package typealias WeatherSourcePlugin = Plugin<WeatherSettingsContext, WeatherSourceContext, any WeatherSource>
package typealias WeatherSourceRegistry = PluginRegistry<
    WeatherSettingsContext, WeatherSourceContext, any WeatherSource
>

extension PluginSpec where Context == WeatherSourceContext, Product == any WeatherSource {
    /// A running source for these settings.
    package func makeSource(_ context: WeatherSourceContext) -> any WeatherSource {
        self.make(context)
    }
}

/// Every plugin family the configuration can name: where positions come from, where weather comes from, and who
/// names places over the network.
package struct PluginRegistries: Sendable {
    package var location: LocationProviderRegistry
    package var weather: WeatherSourceRegistry
    package var geocoders: GeocoderRegistry

    package init(
        location: LocationProviderRegistry, weather: WeatherSourceRegistry,
        geocoders: GeocoderRegistry = GeocoderRegistry()
    ) {
        self.location = location
        self.weather = weather
        self.geocoders = geocoders
    }

    /// Who gave `weather`, as its plugin calls it (a type no plugin has, as it is): weather without a source is
    /// OpenWeather's, configured alone, as blocks were before there were other sources.
    package func nameOfSource(of weather: Weather) -> String {
        self.weather.name(of: weather.source ?? "openweather")
    }

    /// Every section a plugin of any family reads, each once.
    package var sections: [any ConfigurationSection.Type] {
        var names: Set<String> = []
        let all = self.location.sections + self.weather.sections + self.geocoders.plugins.flatMap(\.sections)
        return all.filter { names.insert($0.name).inserted }
    }
}
