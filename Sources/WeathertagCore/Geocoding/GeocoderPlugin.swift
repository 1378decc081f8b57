/// A service that names the place of a position over the network (`geocoding.provider`): the position, as `privacy`
/// lets it leave, goes to it. The GeoNames files and the towns index name places on the machine and are not plugins.
package protocol PlaceNamingService: Sendable {
    /// The source whose gate its calls are counted in (its ceiling is that source's).
    var type: String { get }
    /// The setting that sets that ceiling, named when it is reached.
    var ceilingSetting: String { get }
    /// The place by name near `position`; nil when the service knows none (in the sea).
    func placeName(at position: RequestPosition) async throws(WeatherError) -> PlaceName?
}

/// A remote geocoder the configuration can name in `geocoding.provider`, registered as weather sources are: its
/// settings come from its own sections (OpenWeather's geocoder reads `openweather`, with its key).
package struct GeocoderPlugin: Sendable {
    /// What `geocoding.provider` names it by.
    package let type: String
    /// Who names places, in `check`'s words ("OpenWeather's geocoder").
    package let description: String
    /// The sections it reads, decoded at load with the weather sources' own.
    package let sections: [any ConfigurationSection.Type]
    /// Its settings from the sections: nil when they do not configure it (no key), unless `neededBy` (the field
    /// that names it) says it is required, when that is an error naming what to set.
    package let decode: @Sendable (PluginSections, _ neededBy: String?) throws(ConfigurationError) -> GeocoderSpec?

    package init<Settings: Sendable>(
        type: String, description: String, sections: [any ConfigurationSection.Type],
        settings: @escaping @Sendable (PluginSections, _ neededBy: String?) throws(ConfigurationError) -> Settings?,
        make: @escaping @Sendable (Settings, WeatherSourceContext) -> any PlaceNamingService
    ) {
        self.type = type
        self.description = description
        self.sections = sections
        self.decode = { (sections, neededBy) throws(ConfigurationError) in
            guard let decoded = try settings(sections, neededBy) else { return nil }
            return GeocoderSpec(type: type, description: description) { make(decoded, $0) }
        }
    }
}

/// A remote geocoder as the configuration set it up; nothing runs until `make` builds it.
package struct GeocoderSpec: Sendable {
    package let type: String
    package let description: String
    private let build: @Sendable (WeatherSourceContext) -> any PlaceNamingService

    init(
        type: String, description: String, build: @escaping @Sendable (WeatherSourceContext) -> any PlaceNamingService
    ) {
        self.type = type
        self.description = description
        self.build = build
    }

    package func make(_ context: WeatherSourceContext) -> any PlaceNamingService {
        self.build(context)
    }
}

/// The remote geocoders `geocoding.provider` may name, in the order they are tried when it names none.
package struct GeocoderRegistry: Sendable {
    package private(set) var plugins: [GeocoderPlugin]

    package init(_ plugins: [GeocoderPlugin] = []) {
        self.plugins = plugins
    }

    package func plugin(for type: String) -> GeocoderPlugin? {
        self.plugins.first { $0.type == type }
    }

    package var types: [String] { self.plugins.map(\.type) }
}
