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
        add("wind_deg", weather.windDegrees.map(String.init))
        add("wind_direction", weather.windDirection)
        add("wind_gust", weather.windGust.map { YAMLScalar.number($0, places: 2) })
        add("clouds", weather.clouds.map(String.init))
        add("visibility", weather.visibility.map(String.init))
        add("rain_1h", weather.rain1h.map { YAMLScalar.number($0, places: 2) })
        add("snow_1h", weather.snow1h.map { YAMLScalar.number($0, places: 2) })
        add("units", weather.units.rawValue)
        add("observed_at", weather.observedAt.iso8601)
        // The place's own clock, and its day: from the answer already fetched.
        if let offset = weather.utcOffset {
            add("local_time", weather.observedAt.iso8601(utcOffset: offset))
            add("sunrise", weather.sunrise.map { $0.iso8601(utcOffset: offset) })
            add("sunset", weather.sunset.map { $0.iso8601(utcOffset: offset) })
        }
        add("daylight", weather.daylight.map { $0 ? "true" : "false" })
        // The moon, computed here for the time of the weather.
        let moon = MoonPhase(at: weather.observedAt)
        add("moon_phase", moon.name.rawValue)
        add("moon_illumination", YAMLScalar.number(moon.illumination, places: 2))
        add("kind", self.kind.rawValue)
        add("place", self.place.map(YAMLScalar.string))
        add("region", self.region.map(YAMLScalar.string))
        add("country", self.country.map(YAMLScalar.string))
        lines.append("  location:")
        if self.position.withheld {
            // A privacy zone, or `stamp_coordinates: none`: only what names the place, never where it is.
            add("name", self.position.name.map(YAMLScalar.string), indent: "    ")
        } else {
            add("latitude", YAMLScalar.number(self.position.latitude, places: 6), indent: "    ")
            add("longitude", YAMLScalar.number(self.position.longitude, places: 6), indent: "    ")
            add("accuracy_m", self.position.accuracyMeters.map { YAMLScalar.number($0, places: 0) }, indent: "    ")
        }
        add("source", YAMLScalar.string(self.position.source), indent: "    ")
        return lines
    }
}
