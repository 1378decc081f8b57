import FoundationEssentials

/// Open-Meteo's current weather (`/v1/forecast` with `current=` and `daily=sunrise,sunset`; no key): the request
/// and its documented answers, into the same `Weather` OpenWeather gives (its WMO code through `WMOWeatherCode`).
package enum OpenMeteoAPI {
    /// What `current=` asks for.
    static let currentVariables = [
        "temperature_2m", "relative_humidity_2m", "apparent_temperature", "is_day", "precipitation", "rain",
        "snowfall", "weather_code", "cloud_cover", "pressure_msl", "wind_speed_10m", "wind_direction_10m",
        "wind_gusts_10m",
    ]

    /// `{base}/v1/forecast?latitude=&longitude=&current=…&daily=sunrise,sunset&…`, in `units`' units (Kelvin is
    /// asked as °C and converted). Times come as Unix seconds (`timeformat=unixtime`), today's sunrise and sunset
    /// in the place's own day (`timezone=auto`).
    package static func currentURL(baseURL: String, at position: RequestPosition, units: Units) -> String {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        let query = [
            "latitude=\(Self.coordinate(position.latitude))", "longitude=\(Self.coordinate(position.longitude))",
            "current=" + Self.currentVariables.joined(separator: ","), "daily=sunrise,sunset", "timezone=auto",
            "timeformat=unixtime", "forecast_days=1",
            "temperature_unit=" + (units == .imperial ? "fahrenheit" : "celsius"),
            "wind_speed_unit=" + (units == .imperial ? "mph" : "ms"), "precipitation_unit=mm",
        ]
        return base + "/v1/forecast?" + query.joined(separator: "&")
    }

    /// The weather of an answer, or the documented error: 400 `{"error": true, "reason": …}`, 429 when a limit is
    /// passed, 5xx.
    package static func decodeCurrent(
        _ response: HTTPResponse, units: Units, lang: String
    ) throws(WeatherError)
        -> Weather
    {
        if let error = Self.error(for: response) { throw error }
        guard let body = Body.decodeJSON(response.body), let current = body.current,
            let temperature = current.temperature_2m, temperature.isFinite,
            let time = current.time?.unix(offset: answerOffset(body.utc_offset_seconds)),
            let observed = Date(unixSeconds: time),
            let code = current.weather_code.flatMap({ Int(exactly: $0).flatMap(WMOWeatherCode.init) })
        else {
            throw WeatherError(kind: .badResponse, message: "Open-Meteo's answer is not the documented JSON shape")
        }
        let offset = answerOffset(body.utc_offset_seconds)
        let answered = Self.temperatureUnits(asking: units)
        return Weather(
            condition: code.condition,
            description: code.description(in: lang),
            code: code.openWeatherID,
            // Without `is_day`, the sun at the answer's grid point says whether it is night.
            icon: code.icon(
                isDay: current.is_day.map { $0 != 0 }
                    ?? Sun.isUp(
                        latitude: body.latitude ?? 0, longitude: body.longitude ?? 0,
                        at: observed)),
            temperature: units.temperature(temperature, from: answered),
            feelsLike: current.apparent_temperature.map { units.temperature($0, from: answered) },
            humidity: current.relative_humidity_2m.flatMap(\.roundedInt),
            pressure: current.pressure_msl.flatMap(\.roundedInt),
            windSpeed: current.wind_speed_10m,
            units: units,
            observedAt: observed,
            sunrise: body.daily?.sunrise?.first?.flatMap { Date(unixSeconds: $0.unix(offset: offset)) },
            sunset: body.daily?.sunset?.first?.flatMap { Date(unixSeconds: $0.unix(offset: offset)) },
            utcOffset: offset,
            windDegrees: current.wind_direction_10m.flatMap(\.roundedInt),
            windGust: current.wind_gusts_10m,
            clouds: current.cloud_cover.flatMap(\.roundedInt),
            // Of the last interval (15 minutes), only when it rained or snowed; snowfall comes in cm.
            rain1h: current.rain.flatMap { $0 > 0 ? $0 : nil },
            snow1h: current.snowfall.flatMap { $0 > 0 ? $0 * 10 : nil },
            zone: body.timezone
        )
    }

    /// `{base}/v1/air-quality?latitude=&longitude=&current=european_aqi,pm2_5,pm10,ozone,nitrogen_dioxide`.
    package static func airQualityURL(baseURL: String, at position: RequestPosition) -> String {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        return base + "/v1/air-quality?latitude=\(Self.coordinate(position.latitude))&longitude="
            + "\(Self.coordinate(position.longitude))&current=european_aqi,pm2_5,pm10,ozone,nitrogen_dioxide"
            + "&timeformat=unixtime"
    }

    /// The air of an answer, on the European index; µg/m³ as sent.
    package static func decodeAirQuality(_ response: HTTPResponse) throws(WeatherError) -> AirQuality {
        if let error = Self.error(for: response) { throw error }
        guard let current = AirBody.decodeJSON(response.body)?.current, let index = current.european_aqi,
            index >= 0, let aqi = index.roundedInt
        else {
            throw WeatherError(
                kind: .badResponse, message: "Open-Meteo's air quality answer is not the documented JSON shape")
        }
        return AirQuality(
            aqi: aqi, scale: .european, pm2_5: current.pm2_5, pm10: current.pm10,
            o3: current.ozone, no2: current.nitrogen_dioxide)
    }

    struct AirBody: Decodable {
        struct Current: Decodable {
            var european_aqi: Double?
            var pm2_5: Double?
            var pm10: Double?
            var ozone: Double?
            var nitrogen_dioxide: Double?
        }

        var current: Current?
    }

    /// The documented error an answer is, or nil for a 200: 400 `{"error": true, "reason": …}`, 429 when a limit is
    /// passed, 5xx.
    package static func error(for response: HTTPResponse, now: Date = Date()) -> WeatherError? {
        guard response.status != 200 else { return nil }
        let reason = ErrorBody.decodeJSON(response.body)?.reason.map { ": \($0.prefix(200))" } ?? ""
        return WeatherError.status(
            response.status, from: "Open-Meteo", detail: reason,
            retryAfter: RetryAfter.parse(response.headers["retry-after"], now: now))
    }

    private static func coordinate(_ value: Double) -> String { String(cFormat: "%.5f", value) }

    /// `{"error": true, "reason": "Parameter 'latitude' is out of range"}`.
    struct ErrorBody: Decodable {
        var reason: String?

        enum CodingKeys: String, CodingKey { case reason }

        init(from decoder: any Decoder) throws {
            self.reason = try decoder.container(keyedBy: CodingKeys.self).lenient(String.self, forKey: .reason)
        }
    }

    // The answer's own names, as Open-Meteo spells them.
    struct Body: Decodable {
        struct Current: Decodable {
            var time: OpenMeteoTime?
            var temperature_2m: Double?
            var relative_humidity_2m: Double?
            var apparent_temperature: Double?
            var is_day: Double?
            var rain: Double?
            var snowfall: Double?
            var weather_code: Double?
            var cloud_cover: Double?
            var pressure_msl: Double?
            var wind_speed_10m: Double?
            var wind_direction_10m: Double?
            var wind_gusts_10m: Double?
        }

        /// A day without sunrise or sunset (a polar night, a midnight sun) has null there.
        struct Daily: Decodable {
            var sunrise: [OpenMeteoTime?]?
            var sunset: [OpenMeteoTime?]?
        }

        var utc_offset_seconds: Int?
        /// The place's zone (`timezone=auto`).
        var timezone: String?
        var latitude: Double?
        var longitude: Double?
        var current: Current?
        var daily: Daily?
    }
}

extension OpenMeteoAPI {
    /// The units Open-Meteo's temperatures come in when `units` are asked for: kelvin is not one of its units, so
    /// standard is asked in °C (and converted by `Units`).
    static func temperatureUnits(asking units: Units) -> Units {
        units == .standard ? .metric : units
    }
}
