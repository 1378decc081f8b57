import FoundationEssentials

/// OpenWeather's current-weather endpoint: building the request and reading every documented answer.
package enum OpenWeatherAPI {
    /// `{base}/data/2.5/weather?lat=&lon=&appid=&units=&lang=`. Contains the key: never log it.
    package static func currentWeatherURL(
        baseURL: String,
        at position: RequestPosition,
        apiKey: String,
        units: Units,
        lang: String
    ) -> String {
        Self.url(
            baseURL, "/data/2.5/weather", at: position,
            ["appid=\(Self.percentEncoded(apiKey))", "units=\(units.rawValue)", "lang=\(Self.percentEncoded(lang))"])
    }

    /// `{base}/data/3.0/onecall/timemachine?lat=&lon=&dt=&units=&lang=&appid=`: the weather at one moment (One Call
    /// 3.0, a separate subscription). Contains the key: never log it.
    package static func timemachineURL(
        baseURL: String,
        at position: RequestPosition,
        time: Date,
        apiKey: String,
        units: Units,
        lang: String
    ) -> String {
        Self.url(
            baseURL, "/data/3.0/onecall/timemachine", at: position,
            [
                "dt=\(Int(time.timeIntervalSince1970.rounded(.down)))", "units=\(units.rawValue)",
                "lang=\(Self.percentEncoded(lang))", "appid=\(Self.percentEncoded(apiKey))",
            ])
    }

    /// `{base}{path}?lat=&lon=&…`, the base without a trailing slash: every OpenWeather endpoint's URL. The
    /// coordinates are a `RequestPosition`'s: never more than `privacy` lets leave the machine.
    static func url(
        _ baseURL: String, _ path: String, at position: RequestPosition, _ rest: [String]
    ) -> String {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        let query =
            ["lat=\(Self.coordinate(position.latitude))", "lon=\(Self.coordinate(position.longitude))"] + rest
        return base + path + "?" + query.joined(separator: "&")
    }

    /// The weather of the timemachine's `data[0]`, or the documented error. A 401 there means the key has no One Call
    /// 3.0 subscription (the current-weather key may be fine).
    package static func decodeTimemachine(_ response: HTTPResponse, units: Units) throws(WeatherError) -> Weather {
        if response.status == 401 {
            throw WeatherError(
                kind: .unauthorized,
                message: "OpenWeather refused the history call (HTTP 401\(Self.detail(response))): this key has no "
                    + "One Call 3.0 subscription")
        }
        if let error = Self.statusError(response) { throw error }
        do {
            let body = try JSONDecoder().decode(TimemachineBody.self, from: Data(response.body))
            guard let point = body.data.first, let first = point.weather.first, point.temp.isFinite,
                let observed = Date(unixSeconds: point.dt)
            else {
                throw WeatherError(
                    kind: .badResponse, message: "OpenWeather's history answer has no weather for that time")
            }
            return Weather(
                condition: first.main,
                description: first.description,
                code: first.id,
                icon: first.icon,
                temperature: point.temp,
                feelsLike: point.feels_like,
                humidity: point.humidity.flatMap(\.roundedInt),
                pressure: point.pressure.flatMap(\.roundedInt),
                windSpeed: point.wind_speed,
                units: units,
                observedAt: observed,
                place: nil,
                sunrise: point.sunrise.flatMap(Date.init(unixSeconds:)),
                sunset: point.sunset.flatMap(Date.init(unixSeconds:)),
                utcOffset: body.timezone_offset,
                windDegrees: point.wind_deg.flatMap(\.roundedInt),
                windGust: point.wind_gust,
                clouds: point.clouds.flatMap(\.roundedInt),
                visibility: point.visibility.flatMap(\.roundedInt),
                rain1h: point.rain?.oneHour,
                snow1h: point.snow?.oneHour
            )
        } catch let error as WeatherError {
            throw error
        } catch {
            throw WeatherError(
                kind: .badResponse, message: "OpenWeather's history answer is not the documented JSON shape")
        }
    }

    /// `{icon_base}/{icon}@2x.png`.
    package static func iconURL(iconBaseURL: String, icon: String) -> String {
        let base = iconBaseURL.hasSuffix("/") ? String(iconBaseURL.dropLast()) : iconBaseURL
        return "\(base)/\(icon)@2x.png"
    }

    /// Icon codes are two digits and `d` or `n`; anything else is not fetched or used in a file name.
    package static func isValidIconCode(_ icon: String) -> Bool {
        let bytes = Array(icon.utf8)
        return bytes.count == 3 && bytes[0...1].allSatisfy { (0x30...0x39).contains($0) }
            && (bytes[2] == UInt8(ascii: "d") || bytes[2] == UInt8(ascii: "n"))
    }

    /// Maps an answer to weather or to the documented error. Branches on the HTTP status, because `cod` in the
    /// body is sometimes a number and sometimes a string.
    package static func decodeCurrentWeather(_ response: HTTPResponse, units: Units) throws(WeatherError) -> Weather {
        if let error = Self.statusError(response) { throw error }
        do {
            let body = try JSONDecoder().decode(CurrentWeatherBody.self, from: Data(response.body))
            guard let first = body.weather.first else {
                throw WeatherError(kind: .badResponse, message: "OpenWeather's answer has no weather condition")
            }
            guard body.main.temp.isFinite else {
                throw WeatherError(kind: .badResponse, message: "OpenWeather's answer has no temperature")
            }
            // `dt` is always sent; one that is no time is a bad answer, not now.
            let observed = try body.dt.map { (dt) throws(WeatherError) -> Date in
                guard let date = Date(unixSeconds: dt) else {
                    throw WeatherError(kind: .badResponse, message: "OpenWeather's answer has no time it could be")
                }
                return date
            }
            return Weather(
                condition: first.main,
                description: first.description,
                code: first.id,
                icon: first.icon,
                temperature: body.main.temp,
                feelsLike: body.main.feels_like,
                humidity: body.main.humidity.flatMap(\.roundedInt),
                pressure: body.main.pressure.flatMap(\.roundedInt),
                windSpeed: body.wind?.speed,
                units: units,
                observedAt: observed ?? Date(),
                place: body.name.flatMap { $0.isEmpty ? nil : $0 },
                sunrise: body.sys?.sunrise.flatMap(Date.init(unixSeconds:)),
                sunset: body.sys?.sunset.flatMap(Date.init(unixSeconds:)),
                utcOffset: answerOffset(body.timezone),
                windDegrees: body.wind?.deg.flatMap(\.roundedInt),
                windGust: body.wind?.gust,
                clouds: body.clouds?.all.flatMap(\.roundedInt),
                visibility: body.visibility.flatMap(\.roundedInt),
                rain1h: body.rain?.oneHour,
                snow1h: body.snow?.oneHour
            )
        } catch let error as WeatherError {
            throw error
        } catch {
            throw WeatherError(kind: .badResponse, message: "OpenWeather's answer is not the documented JSON shape")
        }
    }

    /// The documented error an HTTP status other than 200 means.
    private static func statusError(_ response: HTTPResponse) -> WeatherError? {
        switch response.status {
        case 200:
            return nil
        case 401:
            return WeatherError(
                kind: .unauthorized,
                message: "OpenWeather rejected the API key (HTTP 401\(Self.detail(response))): check the key; "
                    + "a new key can take a couple of hours to become active"
            )
        case 404:
            return WeatherError(
                kind: .notFound, message: "OpenWeather has no weather here (HTTP 404\(Self.detail(response)))")
        case 429:
            let retryAfter = RetryAfter.parse(response.headers["retry-after"], now: Date())
            return WeatherError(
                kind: .rateLimited(retryAfter: retryAfter),
                message: "OpenWeather rate limit reached (HTTP 429)"
                    + (retryAfter.map { ", retry after \(Int($0.seconds.rounded(.up))) s" } ?? "")
            )
        case 500...599:
            return WeatherError(
                kind: .serverError(status: response.status),
                message: "OpenWeather had a server error (HTTP \(response.status))"
            )
        default:
            return WeatherError(
                kind: .badResponse,
                message: "OpenWeather answered HTTP \(response.status)\(Self.detail(response))"
            )
        }
    }

    /// `{"cod": 401, "message": "Invalid API key. …"}`: `cod` is a number or a string, so only `message` is read.
    struct ErrorBody: Decodable {
        var message: String?

        enum CodingKeys: String, CodingKey { case message }

        init(from decoder: any Decoder) throws {
            self.message = try decoder.container(keyedBy: CodingKeys.self).lenient(String.self, forKey: .message)
        }
    }

    /// `: <message>` from an error body, when it has one.
    private static func detail(_ response: HTTPResponse) -> String {
        guard let message = ErrorBody.decodeJSON(response.body)?.message, !message.isEmpty else { return "" }
        return ": \(message.prefix(200))"
    }

    private static func coordinate(_ value: Double) -> String {
        String(cFormat: "%.5f", value)
    }

    static func percentEncoded(_ string: String) -> String {
        WeathertagCore.percentEncoded(string)
    }

    private struct TimemachineBody: Decodable {
        struct Point: Decodable {
            var dt: Double
            var temp: Double
            var feels_like: Double?
            var pressure: Double?
            var humidity: Double?
            var wind_speed: Double?
            var wind_deg: Double?
            var wind_gust: Double?
            var sunrise: Double?
            var sunset: Double?
            var clouds: Double?
            var visibility: Double?
            var rain: LastHour?
            var snow: LastHour?
            var weather: [CurrentWeatherBody.Condition]
        }
        var data: [Point]
        var timezone_offset: Int?
    }

    private struct CurrentWeatherBody: Decodable {
        struct Condition: Decodable {
            var id: Int
            var main: String
            var description: String
            var icon: String
        }
        struct Main: Decodable {
            var temp: Double
            var feels_like: Double?
            var pressure: Double?
            var humidity: Double?
        }
        struct Wind: Decodable {
            var speed: Double?
            var deg: Double?
            var gust: Double?
        }
        struct System: Decodable {
            var sunrise: Double?
            var sunset: Double?
        }
        struct Clouds: Decodable {
            var all: Double?
        }
        var weather: [Condition]
        var main: Main
        var wind: Wind?
        var dt: Double?
        var name: String?
        var sys: System?
        var timezone: Int?
        var clouds: Clouds?
        var visibility: Double?
        var rain: LastHour?
        var snow: LastHour?
    }

    /// `rain` and `snow`: `{"1h": mm}` (and sometimes `3h`).
    private struct LastHour: Decodable {
        var oneHour: Double?

        enum CodingKeys: String, CodingKey {
            case oneHour = "1h"
        }
    }
}

/// One hour of OpenWeather's timemachine (One Call 3.0): the answer for one moment, kept as it came and read with
/// the units it is read in, so that the hour is never asked again.
package struct TimemachineHour: HistoryHours, Equatable {
    package let hour: Int
    /// The answer, as it came.
    package let body: [UInt8]

    static let magic: [UInt8] = Array("WTM1".utf8)

    package init(hour: Int, body: [UInt8]) {
        self.hour = hour
        self.body = body
    }

    package var span: ClosedRange<Int> { self.hour...self.hour }

    /// `WTM1`, the hour (Int64, little-endian), then the answer's bytes.
    package var encoded: [UInt8] {
        var bytes = Self.magic
        withUnsafeBytes(of: Int64(self.hour).littleEndian) { bytes += $0 }
        return bytes + self.body
    }

    package init?(encoded bytes: [UInt8]) {
        guard bytes.starts(with: Self.magic), bytes.count >= Self.magic.count + 8 else { return nil }
        let hour = bytes[Self.magic.count..<(Self.magic.count + 8)].withUnsafeBytes {
            Int64(littleEndian: $0.loadUnaligned(as: Int64.self))
        }
        self.hour = Int(hour)
        self.body = Array(bytes[(Self.magic.count + 8)...])
    }

    package func weather(hour: Int, units: Units, lang: String) -> Weather? {
        guard hour == self.hour else { return nil }
        return try? OpenWeatherAPI.decodeTimemachine(HTTPResponse(status: 200, body: self.body), units: units)
    }
}

/// A timemachine request: the moment an entry was written (its hour is what is kept).
package struct TimemachineFetch: HistoryFetch, Equatable {
    package var moment: Date
    package var hour: Int
    /// One call.
    package var weight: Double { 1 }

    package init(moment: Date, hour: Int) {
        self.moment = moment
        self.hour = hour
    }

    package var description: String { "timemachine \(Int(self.moment.timeIntervalSince1970))" }
}
