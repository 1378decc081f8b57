import FoundationEssentials

/// OpenWeather's unit systems.
package enum Units: String, Sendable, Codable, CaseIterable {
    /// Kelvin, m/s.
    case standard
    /// °C, m/s.
    case metric
    /// °F, mph.
    case imperial

    package var temperatureSymbol: String {
        switch self {
        case .standard: return " K"
        case .metric: return "°C"
        case .imperial: return "°F"
        }
    }
}

/// The weather at one place and time, as a source reported it.
package struct Weather: Sendable, Equatable, Codable {
    /// The condition group, e.g. `Clouds`.
    package var condition: String
    /// The condition in the configured language, e.g. `broken clouds`.
    package var description: String
    /// OpenWeather's condition id, e.g. 803.
    package var code: Int
    /// The icon code, e.g. `04d`.
    package var icon: String
    package var temperature: Double
    package var feelsLike: Double?
    package var humidity: Int?
    package var pressure: Int?
    package var windSpeed: Double?
    package var units: Units
    /// When OpenWeather observed it (`dt`).
    package var observedAt: Date
    /// The place name OpenWeather gave; may be empty.
    package var place: String?
    /// Sunrise and sunset of the day at the place (`sys.sunrise`, `sys.sunset`).
    package var sunrise: Date?
    package var sunset: Date?
    /// The place's offset from UTC in seconds (`timezone`), for its local times.
    package var utcOffset: Int?
    /// Where the wind comes from, in degrees (`wind.deg`), and its gusts (`wind.gust`).
    package var windDegrees: Int?
    package var windGust: Double?
    /// Cloud cover in % (`clouds.all`) and visibility in metres (`visibility`).
    package var clouds: Int?
    package var visibility: Int?
    /// Rain and snow of the last hour in mm (`rain.1h`, `snow.1h`), only when it rained or snowed.
    package var rain1h: Double?
    package var snow1h: Double?
    /// Which source answered (`weather.providers`' type: `open-meteo`, `openweather`, …); nil when OpenWeather is
    /// the only source of a configuration without `weather.providers`, whose blocks stay as they always were.
    package var source: String?
    /// The service behind that source, when it names one other than itself: an imported Day One entry's
    /// `weatherServiceName` (`HAMweather`, `Forecast.io`); nil for what weathertag fetched.
    package var service: String?
    /// The place's zone in the tz database (`Europe/Berlin`), when the source names it (Open-Meteo's `timezone`
    /// with `timezone=auto`): local times are read in it for their own instant, whatever one offset an answer
    /// carries (a year of hours spans summer and winter).
    package var zone: String?

    package init(
        condition: String,
        description: String,
        code: Int,
        icon: String,
        temperature: Double,
        feelsLike: Double? = nil,
        humidity: Int? = nil,
        pressure: Int? = nil,
        windSpeed: Double? = nil,
        units: Units,
        observedAt: Date,
        place: String? = nil,
        sunrise: Date? = nil,
        sunset: Date? = nil,
        utcOffset: Int? = nil,
        windDegrees: Int? = nil,
        windGust: Double? = nil,
        clouds: Int? = nil,
        visibility: Int? = nil,
        rain1h: Double? = nil,
        snow1h: Double? = nil,
        source: String? = nil,
        zone: String? = nil
    ) {
        self.condition = condition
        self.description = description
        self.code = code
        self.icon = icon
        self.temperature = temperature
        self.feelsLike = feelsLike
        self.humidity = humidity
        self.pressure = pressure
        self.windSpeed = windSpeed
        self.units = units
        self.observedAt = observedAt
        self.place = place
        self.sunrise = sunrise
        self.sunset = sunset
        self.utcOffset = utcOffset
        self.windDegrees = windDegrees
        self.windGust = windGust
        self.clouds = clouds
        self.visibility = visibility
        self.rain1h = rain1h
        self.snow1h = snow1h
        self.source = source
        self.zone = zone
    }

    /// The place's offset from UTC at `date`: its zone's (`zone`) for that instant when known, else the one offset
    /// the source gave (`utcOffset`); nil when neither is known.
    package func utcOffset(at date: Date) -> Int? {
        if let zone = self.zone.flatMap(Zone.named) { return zone.secondsFromGMT(for: date) }
        return self.utcOffset
    }

    /// Whether it was day where and when it was observed (between sunrise and sunset); nil when unknown.
    package var daylight: Bool? {
        guard let sunrise = self.sunrise, let sunset = self.sunset else { return nil }
        return self.observedAt >= sunrise && self.observedAt < sunset
    }

    /// The wind's direction on a 16-point compass (`N`, `NNE`, … `NNW`); nil when unknown.
    package var windDirection: String? {
        self.windDegrees.map { Self.compass(degrees: $0) }
    }

    package static func compass(degrees: Int) -> String {
        let points = [
            "N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW",
        ]
        let normalized = ((Double(degrees).truncatingRemainder(dividingBy: 360)) + 360).truncatingRemainder(
            dividingBy: 360)
        return points[Int((normalized / 22.5).rounded()) % 16]
    }

    enum CodingKeys: String, CodingKey {
        case condition, description, code, icon, temperature, humidity, pressure, units, place
        case feelsLike = "feels_like"
        case windSpeed = "wind_speed"
        case observedAt = "observed_at"
        case sunrise, sunset, clouds, visibility
        case utcOffset = "utc_offset"
        case windDegrees = "wind_deg"
        case windGust = "wind_gust"
        case rain1h = "rain_1h"
        case snow1h = "snow_1h"
        case source, service
    }
}
