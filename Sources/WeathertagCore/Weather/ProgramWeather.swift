import FoundationEssentials

/// What a `command` weather source's program prints (docs/weather-sources.md), read purely: the source, in the
/// daemon, runs the program, and this reads what it printed. `temperature` (in `{units}`) and one of `wmo_code`
/// (Open-Meteo's codes), `symbol_code` (MET Norway's) or `code` + `icon` + `condition` + `description`
/// (OpenWeather's) are required; the rest is optional. A number of another type is left out.
package struct ProgramWeather: Decodable {
    var temperature: Double?
    var wmoCode: Int?
    var symbolCode: String?
    var code: Int?
    var icon: String?
    var condition: String?
    var description: String?
    var feelsLike: Double?
    var humidity: Double?
    var pressure: Double?
    var windSpeed: Double?
    var windDeg: Double?
    var windGust: Double?
    var clouds: Double?
    var visibility: Double?
    var rain1h: Double?
    var snow1h: Double?
    var observedAt: String?
    var place: String?
    var utcOffset: Int?
    /// The place's zone in the tz database (`Europe/Berlin`): its local times, each for its own instant.
    var timezone: String?

    enum CodingKeys: String, CodingKey {
        case temperature, code, icon, condition, description, humidity, pressure, clouds, visibility, place
        case wmoCode = "wmo_code"
        case symbolCode = "symbol_code"
        case feelsLike = "feels_like"
        case windSpeed = "wind_speed"
        case windDeg = "wind_deg"
        case windGust = "wind_gust"
        case rain1h = "rain_1h"
        case snow1h = "snow_1h"
        case observedAt = "observed_at"
        case utcOffset = "utc_offset"
        case timezone
    }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        self.temperature = fields.lenient(Double.self, forKey: .temperature)
        self.wmoCode = fields.lenient(Int.self, forKey: .wmoCode)
        self.symbolCode = fields.lenient(String.self, forKey: .symbolCode)
        self.code = fields.lenient(Int.self, forKey: .code)
        self.icon = fields.lenient(String.self, forKey: .icon)
        self.condition = fields.lenient(String.self, forKey: .condition)
        self.description = fields.lenient(String.self, forKey: .description)
        self.feelsLike = fields.lenient(Double.self, forKey: .feelsLike)
        self.humidity = fields.lenient(Double.self, forKey: .humidity)
        self.pressure = fields.lenient(Double.self, forKey: .pressure)
        self.windSpeed = fields.lenient(Double.self, forKey: .windSpeed)
        self.windDeg = fields.lenient(Double.self, forKey: .windDeg)
        self.windGust = fields.lenient(Double.self, forKey: .windGust)
        self.clouds = fields.lenient(Double.self, forKey: .clouds)
        self.visibility = fields.lenient(Double.self, forKey: .visibility)
        self.rain1h = fields.lenient(Double.self, forKey: .rain1h)
        self.snow1h = fields.lenient(Double.self, forKey: .snow1h)
        self.observedAt = fields.lenient(String.self, forKey: .observedAt)
        self.place = fields.lenient(String.self, forKey: .place)
        self.utcOffset = fields.lenient(Int.self, forKey: .utcOffset)
        self.timezone = fields.lenient(String.self, forKey: .timezone)
    }

    package func weather(
        at position: RequestPosition, units: Units, lang: String, now: Date, program: String
    ) throws(WeatherError) -> Weather {
        guard let temperature, temperature.isFinite else {
            throw WeatherError(kind: .badResponse, message: "\(program) printed no numeric temperature")
        }
        let observedAt = self.observedAt.flatMap(Date.init(iso8601:)) ?? now
        let sunUp = Sun.isUp(latitude: position.latitude, longitude: position.longitude, at: observedAt)
        let condition: (String, String, Int, String)
        if let wmo = self.wmoCode.flatMap(WMOWeatherCode.init) {
            condition = (wmo.condition, wmo.description(in: lang), wmo.openWeatherID, wmo.icon(isDay: sunUp))
        } else if let symbol = self.symbolCode.flatMap(METSymbolCode.init) {
            condition = (
                symbol.condition, symbol.description(in: lang), symbol.openWeatherID, symbol.icon(isDay: sunUp)
            )
        } else if let code = self.code, let icon = self.icon, OpenWeatherAPI.isValidIconCode(icon),
            let main = self.condition, let description = self.description
        {
            condition = (main, description, code, icon)
        } else {
            throw WeatherError(
                kind: .badResponse,
                message: "\(program) printed no known wmo_code, symbol_code, or code with icon, condition and "
                    + "description")
        }
        var sunrise: Date?
        var sunset: Date?
        if case .risesAndSets(let rise, let set) = Sun.day(
            latitude: position.latitude, longitude: position.longitude, at: observedAt)
        {
            (sunrise, sunset) = (rise, set)
        }
        return Weather(
            condition: condition.0, description: condition.1, code: condition.2, icon: condition.3,
            temperature: temperature, feelsLike: self.feelsLike, humidity: self.humidity.flatMap(\.roundedInt),
            pressure: self.pressure.flatMap(\.roundedInt), windSpeed: self.windSpeed, units: units,
            observedAt: observedAt, place: self.place, sunrise: sunrise, sunset: sunset,
            // The program's word on the place's clock; else the machine's (the C library's zone: Foundation's
            // here knows no names).
            utcOffset: answerOffset(self.utcOffset) ?? Zone.system.secondsFromGMT(for: observedAt),
            windDegrees: self.windDeg.flatMap(\.roundedInt), windGust: self.windGust,
            clouds: self.clouds.flatMap(\.roundedInt), visibility: self.visibility.flatMap(\.roundedInt),
            rain1h: self.rain1h, snow1h: self.snow1h,
            zone: self.timezone.flatMap { Zone.named($0) == nil ? nil : $0 })
    }
}
