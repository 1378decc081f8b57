/// The fields a stamped block can hold, in their default order (`stamp.fields` picks and orders them).
package enum StampField: String, Sendable, CaseIterable {
    case condition, description, code, icon
    case iconFile = "icon_file"
    case temperature
    case feelsLike = "feels_like"
    case humidity, pressure
    case windSpeed = "wind_speed"
    case windDeg = "wind_deg"
    case windDirection = "wind_direction"
    case windGust = "wind_gust"
    case clouds, visibility
    case rain1h = "rain_1h"
    case snow1h = "snow_1h"
    case units
    case observedAt = "observed_at"
    case localTime = "local_time"
    case sunrise, sunset, daylight
    case moonPhase = "moon_phase"
    case moonIllumination = "moon_illumination"
    case kind
    case weatherSource = "weather_source"
    case weatherService = "weather_service"
    case place, region, country, air, location

    /// Every field, in the default order: the whole block.
    package static let all = Self.allCases
}

extension WeatherTag {
    /// The `weather:` mapping as YAML lines, without line ends (the stamper adds the file's own): every field.
    package var stampLines: [String] { self.stampLines(fields: StampField.all) }

    /// The `weather:` mapping with `fields`, in that order; a field without a value (no gusts, no sunrise) is left
    /// out.
    package func stampLines(fields: [StampField]) -> [String] {
        ["weather:"] + fields.flatMap { self.lines(for: $0) }
    }

    /// The stamp with `fields`, in that order, as `format` writes it: the `weather:` mapping, or Obsidian's typed
    /// properties (`StampProperties`), where `observed_at` and `local_time` are one Date & time at the place, with its
    /// offset and zone beside it.
    package func stampLines(fields: [StampField], format: StampFormat) -> [String] {
        guard format == .properties else { return self.stampLines(fields: fields) }
        var lines: [String] = []
        var timeWritten = false
        for field in fields {
            var field = field
            if field == .observedAt || field == .localTime {
                guard !timeWritten else { continue }
                (field, timeWritten) = (.localTime, true)
            }
            var block = self.lines(for: field)
            if field == .localTime, block.isEmpty {
                // No offset known for the place: its instant on UTC's clock, said as such (`+00:00`, no zone).
                block = ["  local_time: " + self.weather.observedAt.iso8601(utcOffset: 0)]
            }
            lines += StampProperties.lines(ofBlock: block, zone: self.weather.zone)
        }
        return lines
    }

    private func lines(for field: StampField) -> [String] {
        let weather = self.weather
        let value: String?
        switch field {
        case .condition: value = YAMLScalar.string(weather.condition)
        case .description: value = YAMLScalar.string(weather.description)
        case .code: value = String(weather.code)
        case .icon: value = YAMLScalar.string(weather.icon)
        case .iconFile: value = self.iconFile.map(YAMLScalar.string)
        case .temperature: value = YAMLScalar.number(weather.temperature, places: 2)
        case .feelsLike: value = weather.feelsLike.map { YAMLScalar.number($0, places: 2) }
        case .humidity: value = weather.humidity.map(String.init)
        case .pressure: value = weather.pressure.map(String.init)
        case .windSpeed: value = weather.windSpeed.map { YAMLScalar.number($0, places: 2) }
        case .windDeg: value = weather.windDegrees.map(String.init)
        case .windDirection: value = weather.windDirection
        case .windGust: value = weather.windGust.map { YAMLScalar.number($0, places: 2) }
        case .clouds: value = weather.clouds.map(String.init)
        case .visibility: value = weather.visibility.map(String.init)
        case .rain1h: value = weather.rain1h.map { YAMLScalar.number($0, places: 2) }
        case .snow1h: value = weather.snow1h.map { YAMLScalar.number($0, places: 2) }
        case .units: value = weather.units.rawValue
        case .observedAt: value = weather.observedAt.iso8601
        // The place's own clock and its day, from the answer already fetched.
        // Each in the offset of its own instant: the place's zone when the source names it.
        case .localTime:
            value = weather.utcOffset(at: weather.observedAt).map { weather.observedAt.iso8601(utcOffset: $0) }
        case .sunrise:
            value = weather.sunrise.flatMap { date in weather.utcOffset(at: date).map { date.iso8601(utcOffset: $0) } }
        case .sunset:
            value = weather.sunset.flatMap { date in weather.utcOffset(at: date).map { date.iso8601(utcOffset: $0) } }
        case .daylight: value = weather.daylight.map { $0 ? "true" : "false" }
        // The moon, computed here for the time of the weather.
        case .moonPhase: value = MoonPhase(at: weather.observedAt).name.rawValue
        case .moonIllumination: value = YAMLScalar.number(MoonPhase(at: weather.observedAt).illumination, places: 2)
        case .kind: value = self.kind.rawValue
        case .weatherSource: value = self.weather.source.map(YAMLScalar.string)
        case .weatherService: value = self.weather.service.map(YAMLScalar.string)
        case .place: value = self.place.map(YAMLScalar.string)
        case .region: value = self.region.map(YAMLScalar.string)
        case .country: value = self.country.map(YAMLScalar.string)
        case .location: return self.locationLines
        case .air: return self.airLines
        }
        return value.map { ["  \(field.rawValue): \($0)"] } ?? []
    }

    /// `air: {aqi, label, scale, pm2_5, pm10, o3, no2}`, each only when known; `scale` only for the European index
    /// (OpenWeather's blocks stay as they were).
    private var airLines: [String] {
        guard let air = self.airQuality else { return [] }
        var lines = ["  air:", "    aqi: \(air.aqi)", "    label: \(air.label)"]
        if air.scale == .european { lines.append("    scale: european") }
        for (key, value) in [("pm2_5", air.pm2_5), ("pm10", air.pm10), ("o3", air.o3), ("no2", air.no2)] {
            if let value { lines.append("    \(key): \(YAMLScalar.number(value, places: 2))") }
        }
        return lines
    }

    private var locationLines: [String] {
        var lines = ["  location:"]
        func add(_ key: String, _ value: String?) {
            if let value { lines.append("    \(key): \(value)") }
        }
        if self.position.withheld {
            // A privacy zone, or `stamp_coordinates: none`: only what names the place, never where it is.
            add("name", self.position.name.map(YAMLScalar.string))
        } else {
            add("latitude", YAMLScalar.number(self.position.latitude, places: 6))
            add("longitude", YAMLScalar.number(self.position.longitude, places: 6))
            add("accuracy_m", self.position.accuracyMeters.map { YAMLScalar.number($0, places: 0) })
        }
        add("source", YAMLScalar.string(self.position.source))
        return lines
    }
}
