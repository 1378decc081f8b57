import FoundationEssentials

/// The weather Day One kept with an entry (its `weather` object), in Day One's own units: what `import dayone` writes
/// as the entry's `weather:` block (`weather_source: dayone`), nothing fetched again.
package struct DayOneWeather: Sendable, Equatable {
    package var temperatureCelsius: Double
    /// `conditionsDescription`, as written ("Mostly Cloudy"); empty when Day One kept none.
    package var description: String
    /// `weatherCode`: the words of Day One's weather services over the years (`mostly-cloudy-night`, `fair`,
    /// `showers`, `hazy`, …).
    package var code: String
    /// `weatherServiceName`: `HAMweather`, `Forecast.io`, `Weather Underground`, `AerisWeather`, `Apple Weather`, …
    package var service: String?
    package var relativeHumidity: Double?
    package var windSpeedKPH: Double?
    package var windBearing: Double?
    package var windChillCelsius: Double?
    package var pressureMB: Double?
    package var visibilityKM: Double?
    package var sunrise: Date?
    package var sunset: Date?

    package init(
        temperatureCelsius: Double, description: String, code: String, service: String? = nil,
        relativeHumidity: Double? = nil, windSpeedKPH: Double? = nil, windBearing: Double? = nil,
        windChillCelsius: Double? = nil, pressureMB: Double? = nil, visibilityKM: Double? = nil, sunrise: Date? = nil,
        sunset: Date? = nil
    ) {
        (self.temperatureCelsius, self.description, self.code, self.service) =
            (temperatureCelsius, description, code, service)
        (self.relativeHumidity, self.windSpeedKPH, self.windBearing, self.windChillCelsius) =
            (relativeHumidity, windSpeedKPH, windBearing, windChillCelsius)
        (self.pressureMB, self.visibilityKM, self.sunrise, self.sunset) = (pressureMB, visibilityKM, sunrise, sunset)
    }

    /// The block's weather at `date` where the entry was written, in `units`.
    package func tag(at date: Date, zone: Zone, position: Position, units: Units) -> WeatherTag {
        let condition = DayOneWeatherCode(code: self.code, description: self.description)
        let isDay: Bool
        if self.code.lowercased().hasSuffix("-night") {
            isDay = false
        } else if let sunrise, let sunset, sunrise < sunset {
            isDay = date >= sunrise && date < sunset
        } else {
            isDay = true
        }
        let temperature = { (celsius: Double) in units.temperature(celsius: celsius) }
        let wind = self.windSpeedKPH.map { units.speed(kilometresPerHour: $0) }
        let weather = Weather(
            condition: condition.condition,
            description: self.description.isEmpty ? condition.words : self.description,
            code: condition.openWeatherID,
            icon: condition.iconNumber.isEmpty ? "" : condition.iconNumber + (isDay ? "d" : "n"),
            temperature: temperature(self.temperatureCelsius),
            feelsLike: self.windChillCelsius.map(temperature),
            humidity: self.relativeHumidity.flatMap(\.roundedInt),
            pressure: self.pressureMB.flatMap(\.roundedInt),
            windSpeed: wind, units: units, observedAt: date, sunrise: self.sunrise, sunset: self.sunset,
            utcOffset: zone.secondsFromGMT(for: date), windDegrees: self.windBearing.flatMap(\.roundedInt),
            visibility: self.visibilityKM.flatMap { ($0 * 1000).roundedInt }, source: "dayone", zone: zone.identifier)
        var tag = WeatherTag(weather: weather, position: position, iconFile: nil, fetchedAt: date, kind: .current)
        tag.weather.service = self.service
        return tag
    }
}

/// A Day One `weatherCode` in OpenWeather's terms (the condition group, an id of the same kind, its icon), as
/// `WMOWeatherCode` does for Open-Meteo, so that icons, waybar's classes and the timeline's colours treat imported
/// entries as stamped ones. Day One's codes changed with its weather services (HAMweather/AerisWeather, Forecast.io,
/// Weather Underground, Apple's WeatherKit): the known words first, then the words in the code and the description
/// (`Breezy and Partly Cloudy` under `wind`); a code that says nothing known is `Unknown`, never a guess.
package struct DayOneWeatherCode: Sendable, Equatable {
    package var condition: String
    package var openWeatherID: Int
    /// `01` … `50`, without `d` or `n`; empty when unknown.
    package var iconNumber: String
    /// The condition in words, when Day One kept no description.
    package var words: String

    package init(code: String, description: String = "") {
        let key = code.lowercased().replacing("_", with: "-")
        let bare =
            key.hasSuffix("-night") ? String(key.dropLast(6)) : key.hasSuffix("-day") ? String(key.dropLast(4)) : key
        if let known = Self.table[bare] {
            self = known
        } else if let found = Self.fromWords(bare.replacing("-", with: " ")) ?? Self.fromWords(description.lowercased())
        {
            self = found
        } else {
            self = DayOneWeatherCode(condition: "Unknown", openWeatherID: 0, iconNumber: "", words: "unknown")
        }
    }

    private init(condition: String, openWeatherID: Int, iconNumber: String, words: String) {
        (self.condition, self.openWeatherID, self.iconNumber, self.words) = (
            condition, openWeatherID, iconNumber, words
        )
    }

    private static func entry(_ condition: String, _ id: Int, _ icon: String, _ words: String) -> DayOneWeatherCode {
        DayOneWeatherCode(condition: condition, openWeatherID: id, iconNumber: icon, words: words)
    }

    /// The codes Day One's exports hold, without their `-night` (or `-day`) ending.
    static let table: [String: DayOneWeatherCode] = [
        "clear": entry("Clear", 800, "01", "clear sky"),
        "sunny": entry("Clear", 800, "01", "clear sky"),
        "fair": entry("Clouds", 801, "02", "few clouds"),
        "mostly-sunny": entry("Clouds", 801, "02", "few clouds"),
        "mostly-clear": entry("Clouds", 801, "02", "few clouds"),
        "partly-cloudy": entry("Clouds", 802, "03", "scattered clouds"),
        "partly-sunny": entry("Clouds", 802, "03", "scattered clouds"),
        "mostly-cloudy": entry("Clouds", 803, "04", "broken clouds"),
        "cloudy": entry("Clouds", 804, "04", "overcast clouds"),
        "overcast": entry("Clouds", 804, "04", "overcast clouds"),
        "drizzle": entry("Drizzle", 300, "09", "light intensity drizzle"),
        "showers": entry("Rain", 521, "09", "shower rain"),
        "rain-showers": entry("Rain", 521, "09", "shower rain"),
        "light-rain": entry("Rain", 500, "10", "light rain"),
        "rain": entry("Rain", 501, "10", "moderate rain"),
        "heavy-rain": entry("Rain", 502, "10", "heavy intensity rain"),
        "freezing-rain": entry("Rain", 511, "13", "freezing rain"),
        "freezing-drizzle": entry("Rain", 511, "13", "freezing rain"),
        "ice": entry("Rain", 511, "13", "freezing rain"),
        "sleet": entry("Snow", 611, "13", "sleet"),
        "rain-snow": entry("Snow", 616, "13", "rain and snow"),
        "rain-sleet": entry("Snow", 615, "13", "light rain and snow"),
        "snow-sleet": entry("Snow", 611, "13", "sleet"),
        "wintry-mix": entry("Snow", 616, "13", "rain and snow"),
        "flurries": entry("Snow", 600, "13", "light snow"),
        "snow": entry("Snow", 601, "13", "snow"),
        "snow-showers": entry("Snow", 621, "13", "shower snow"),
        "heavy-snow": entry("Snow", 602, "13", "heavy snow"),
        "blizzard": entry("Snow", 602, "13", "heavy snow"),
        "blowing-snow": entry("Snow", 602, "13", "heavy snow"),
        "hail": entry("Thunderstorm", 202, "11", "thunderstorm with heavy rain"),
        "thunderstorm": entry("Thunderstorm", 211, "11", "thunderstorm"),
        "thunderstorms": entry("Thunderstorm", 211, "11", "thunderstorm"),
        "tstorms": entry("Thunderstorm", 211, "11", "thunderstorm"),
        "chance-tstorms": entry("Thunderstorm", 210, "11", "light thunderstorm"),
        "fog": entry("Fog", 741, "50", "fog"),
        "mist": entry("Mist", 701, "50", "mist"),
        "hazy": entry("Haze", 721, "50", "haze"),
        "haze": entry("Haze", 721, "50", "haze"),
        "smoke": entry("Smoke", 711, "50", "smoke"),
        "smoky": entry("Smoke", 711, "50", "smoke"),
        "dust": entry("Dust", 761, "50", "dust"),
        "sand": entry("Sand", 751, "50", "sand"),
        "tornado": entry("Tornado", 781, "50", "tornado"),
    ]

    /// The first kind the words name, the rarer and stronger first (`thunderstorm` before `rain`, `rain` before
    /// `cloudy`): nil when none is named. `wind` alone names no sky.
    private static func fromWords(_ words: String) -> DayOneWeatherCode? {
        let kinds: [(String, String)] = [
            ("tornado", "tornado"), ("thunder", "thunderstorm"), ("storm", "thunderstorm"), ("hail", "hail"),
            ("blizzard", "blizzard"), ("sleet", "sleet"), ("freezing", "freezing-rain"), ("snow", "snow"),
            ("flurr", "flurries"), ("shower", "showers"), ("drizzle", "drizzle"), ("rain", "rain"), ("fog", "fog"),
            ("mist", "mist"), ("haz", "hazy"), ("smoke", "smoke"), ("dust", "dust"), ("overcast", "cloudy"),
            ("mostly cloudy", "mostly-cloudy"), ("partly cloudy", "partly-cloudy"), ("partly sunny", "partly-sunny"),
            ("mostly sunny", "mostly-sunny"), ("mostly clear", "mostly-clear"), ("cloud", "cloudy"),
            ("fair", "fair"), ("clear", "clear"), ("sunny", "sunny"),
        ]
        for (word, code) in kinds where words.contains(word) { return Self.table[code] }
        return nil
    }
}
