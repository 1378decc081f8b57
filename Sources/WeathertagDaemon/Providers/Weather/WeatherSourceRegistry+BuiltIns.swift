import WeathertagCore

extension WeatherSourceRegistry {
    /// Every weather source weathertag ships. A new source is one file in this folder with its source, its
    /// `Settings` and its `WeatherSourcePlugin`, plus a line here.
    package static var builtIns: WeatherSourceRegistry {
        WeatherSourceRegistry([
            .openWeather,
            .openMeteo,
            .metNorway,
            .command,
        ])
    }
}

extension PluginRegistries {
    /// Every built-in plugin of both families.
    package static let builtIns = PluginRegistries(location: .builtIns, weather: .builtIns)
}
