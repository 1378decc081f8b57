import FoundationEssentials

/// MET Norway's `locationforecast/2.0/compact` (no key): the request, its identifying User-Agent, and the first
/// time step of the answer into the same `Weather` OpenWeather gives (its symbol code through `METSymbolCode`).
/// MET sends no sunrise, sunset, "feels like" or zone: the first two are computed (`Sun`), the third from the
/// temperature, humidity and wind (`apparentTemperature`), and local times use the machine's zone.
package enum METNorwayAPI {
    /// `{base}/weatherapi/locationforecast/2.0/compact?lat=&lon=`, at most 4 decimals (MET refuses more).
    package static func url(baseURL: String, at position: RequestPosition) -> String {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        return base + "/weatherapi/locationforecast/2.0/compact?lat="
            + Self.coordinate(position.latitude) + "&lon=" + Self.coordinate(position.longitude)
    }

    /// `weathertag/0.1.0 (you@example.org)`: their terms ask for the application and a way to reach its user.
    package static func userAgent(version: String, contact: String) -> String {
        "weathertag/\(version) (\(contact))"
    }

    /// `46.2`, `6.1435`: four decimals at most, no trailing zeros.
    static func coordinate(_ value: Double) -> String {
        var text = String(cFormat: "%.4f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    package static func decode(
        _ response: HTTPResponse, at position: RequestPosition, units: Units, lang: String,
        timeZone: Zone = .current
    ) throws(WeatherError) -> Weather {
        if response.status == 403 {
            throw WeatherError(
                kind: .badResponse,
                message: "MET Norway refused the request (HTTP 403): it wants a User-Agent with a contact "
                    + "(met_norway.contact) and at most 4 decimals")
        }
        if let error = WeatherError.status(
            response.status, from: "MET Norway",
            retryAfter: RetryAfter.parse(response.headers["retry-after"], now: Date()))
        {
            throw error
        }
        guard let body = Body.decodeJSON(response.body), let step = body.properties?.timeseries?.first,
            let time = step.time.flatMap(Date.init(iso8601:)), let details = step.data?.instant?.details,
            let celsius = details.air_temperature, celsius.isFinite,
            let symbol = (step.data?.next_1_hours ?? step.data?.next_6_hours)?.summary?.symbol_code
                .flatMap(METSymbolCode.init)
        else {
            throw WeatherError(kind: .badResponse, message: "MET Norway's answer is not the documented JSON shape")
        }
        let latitude = position.latitude
        let longitude = position.longitude
        let sun = Sun.day(latitude: latitude, longitude: longitude, at: time)
        var sunrise: Date?
        var sunset: Date?
        if case .risesAndSets(let rise, let set) = sun { (sunrise, sunset) = (rise, set) }
        let wind = details.wind_speed
        let feels = details.relative_humidity.map {
            apparentTemperature(celsius: celsius, humidity: $0, windSpeed: wind ?? 0)
        }
        let amount = step.data?.next_1_hours?.details?.precipitation_amount.flatMap { $0 > 0 ? $0 : nil }
        return Weather(
            condition: symbol.condition,
            description: symbol.description(in: lang),
            code: symbol.openWeatherID,
            icon: symbol.icon(isDay: Sun.isUp(latitude: latitude, longitude: longitude, at: time)),
            temperature: Self.temperature(celsius, units),
            feelsLike: feels.map { Self.temperature($0, units) },
            humidity: details.relative_humidity.flatMap(\.roundedInt),
            pressure: details.air_pressure_at_sea_level.flatMap(\.roundedInt),
            windSpeed: wind.map { Self.speed($0, units) },
            units: units,
            observedAt: time,
            sunrise: sunrise,
            sunset: sunset,
            utcOffset: timeZone.secondsFromGMT(for: time),
            windDegrees: details.wind_from_direction.flatMap(\.roundedInt),
            clouds: details.cloud_area_fraction.flatMap(\.roundedInt),
            rain1h: symbol.isSnow ? nil : amount,
            snow1h: symbol.isSnow ? amount : nil
        )
    }

    /// MET measures in °C and m/s (`Units`' conversions), rounded to hundredths.
    static func temperature(_ celsius: Double, _ units: Units) -> Double {
        (units.temperature(celsius: celsius) * 100).rounded() / 100
    }

    static func speed(_ metresPerSecond: Double, _ units: Units) -> Double {
        (units.speed(metresPerSecond: metresPerSecond) * 100).rounded() / 100
    }

    // The answer's own names, as MET spells them.
    struct Body: Decodable {
        struct Properties: Decodable { var timeseries: [Step]? }
        struct Step: Decodable {
            var time: String?
            var data: StepData?
        }
        struct StepData: Decodable {
            var instant: Instant?
            var next_1_hours: Period?
            var next_6_hours: Period?
        }
        struct Instant: Decodable { var details: Details? }
        struct Details: Decodable {
            var air_temperature: Double?
            var relative_humidity: Double?
            var wind_speed: Double?
            var wind_from_direction: Double?
            var cloud_area_fraction: Double?
            var air_pressure_at_sea_level: Double?
        }
        struct Period: Decodable {
            struct Summary: Decodable { var symbol_code: String? }
            struct Amount: Decodable { var precipitation_amount: Double? }
            var summary: Summary?
            var details: Amount?
        }

        var properties: Properties?
    }
}
