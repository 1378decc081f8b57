import WeathertagCore

extension WeatherSourceRegistry {
    /// Every weather source weathertag ships. A new source is one file in this folder with its source, its
    /// `Settings`, its `WeatherSourcePlugin` and the section it reads (if any), plus a line here. Without
    /// `weather.providers` and nothing implied (an OpenWeather key), Open-Meteo: it needs no key.
    package static var builtIns: WeatherSourceRegistry {
        WeatherSourceRegistry(
            [
                .openWeather,
                .openMeteo,
                .metNorway,
                .command,
            ],
            fallback: .init(type: "open-meteo", reason: "no OpenWeather key, so Open-Meteo (no key needed)"))
    }
}

extension GeocoderRegistry {
    /// The remote geocoders `geocoding.provider` may name (besides `geonames` and `none`), tried in this order when
    /// it names none.
    package static var builtIns: GeocoderRegistry {
        GeocoderRegistry([
            .openWeather
        ])
    }
}

extension PluginRegistries {
    /// Every built-in plugin of both families.
    package static let builtIns = PluginRegistries(location: .builtIns, weather: .builtIns, geocoders: .builtIns)
}
