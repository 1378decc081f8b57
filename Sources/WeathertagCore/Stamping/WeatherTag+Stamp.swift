extension WeatherTag {
    /// The `weather:` mapping as YAML lines, without line ends; the stamper adds the file's own.
    public var stampLines: [String] {
        var lines = ["weather:"]
        func add(_ key: String, _ value: String?, indent: String = "  ") {
            if let value { lines.append("\(indent)\(key): \(value)") }
        }
        let weather = self.weather
        add("condition", YAMLScalar.string(weather.condition))
        add("description", YAMLScalar.string(weather.description))
        add("code", String(weather.code))
        add("icon", YAMLScalar.string(weather.icon))
        add("icon_file", self.iconFile.map(YAMLScalar.string))
        add("temperature", YAMLScalar.number(weather.temperature, places: 2))
        add("feels_like", weather.feelsLike.map { YAMLScalar.number($0, places: 2) })
        add("humidity", weather.humidity.map(String.init))
        add("pressure", weather.pressure.map(String.init))
        add("wind_speed", weather.windSpeed.map { YAMLScalar.number($0, places: 2) })
        add("units", weather.units.rawValue)
        add("observed_at", weather.observedAt.iso8601)
        add("kind", self.kind.rawValue)
        add("place", self.place.map(YAMLScalar.string))
        lines.append("  location:")
        add("latitude", YAMLScalar.number(self.position.latitude, places: 6), indent: "    ")
        add("longitude", YAMLScalar.number(self.position.longitude, places: 6), indent: "    ")
        add("accuracy_m", self.position.accuracyMeters.map { YAMLScalar.number($0, places: 0) }, indent: "    ")
        add("source", YAMLScalar.string(self.position.source), indent: "    ")
        return lines
    }
}
