import WeathertagCore

extension WeatherSourceRegistry {
    /// Every weather source weathertag ships. A new source is one file in this folder with its source, its
    /// `Settings` and its `WeatherSourcePlugin`, plus a line here.
    public static var builtIns: WeatherSourceRegistry {
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
    public static let builtIns = PluginRegistries(location: .builtIns, weather: .builtIns)
}
