import FoundationEssentials
import WeathertagCore

/// Your own program as a weather source (`command`), run as the `command` location plugin runs its program
/// (`ProviderProgram`: argv only, no shell, stdin from /dev/null, no secrets in its environment, its own process
/// group, killed when late or too talkative). `{latitude}` and `{longitude}` in `argv` become the position as
/// `privacy` lets it leave (`46.2`, `6.14`), `{units}` and `{lang}` the configured ones. It prints one JSON object:
/// `{"temperature": 7.5, "wmo_code": 61, "humidity": 81, …}` (docs/weather-sources.md has every field).
package struct CommandWeatherSource: WeatherSource {
    package static let maximumOutput = 64 << 10

    package let type = "command"
    package let settings: Settings
    private let now: @Sendable () -> Date

    package init(settings: Settings, now: @escaping @Sendable () -> Date) {
        self.settings = settings
        self.now = now
    }

    package var maximumCallsPerMinute: Int { 60 }

    package func currentWeather(at position: RequestPosition) async throws(WeatherError) -> Weather {
        let values = [
            "{latitude}": "\(position.latitude)", "{longitude}": "\(position.longitude)",
            "{units}": self.settings.units.rawValue, "{lang}": self.settings.lang,
        ]
        let argv = self.settings.argv.map { argument in
            values.reduce(argument) { $0.replacing($1.key, with: $1.value) }
        }
        let program = self.settings.argv[0]
        let output: ProviderProgram.Output
        do {
            output = try await withThrowingTaskGroup(of: ProviderProgram.Output?.self) { group in
                group.addTask { try await ProviderProgram.run(argv, limit: Self.maximumOutput) }
                group.addTask {
                    try await Task.sleep(for: self.settings.timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let output = first else {
                    throw WeatherError(
                        kind: .unreachable,
                        message: "\(program) did not answer within \(self.settings.timeout.seconds) s; killed")
                }
                return output
            }
        } catch let error as WeatherError {
            throw error
        } catch {
            throw WeatherError(kind: .unreachable, message: "cannot run \(program): \(error)", cause: error)
        }
        guard !output.overflowed else {
            throw WeatherError(kind: .badResponse, message: "\(program) printed more than 64 KiB")
        }
        guard output.status == 0 else {
            let said = String(decoding: output.stderr, as: UTF8.self).split(separator: "\n").first.map { ": \($0)" }
            throw WeatherError(
                kind: .serverError(status: Int(output.status)),
                message: "\(program) exited with status \(output.status)\(said ?? "")")
        }
        guard let printed = Printed.decodeJSON(output.stdout) else {
            throw WeatherError(kind: .badResponse, message: "\(program) did not print a JSON object")
        }
        return try printed.weather(
            at: position, units: self.settings.units, lang: self.settings.lang, now: self.now(), program: program)
    }
}

extension CommandWeatherSource {
    /// `{"type": "command", "argv": ["/usr/local/bin/my-station", "{latitude}", "{longitude}"],
    /// "timeout_seconds": 10}`
    package struct Settings: Sendable {
        package var argv: [String]
        package var timeout: Duration
        package var units: Units
        package var lang: String
    }

    /// What the program prints. `temperature` (in `{units}`) and one of `wmo_code` (Open-Meteo's codes),
    /// `symbol_code` (MET Norway's) or `code` + `icon` + `condition` + `description` (OpenWeather's) are required;
    /// the rest is optional. A number of another type is left out.
    struct Printed: Decodable {
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

        init(from decoder: any Decoder) throws {
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

        func weather(
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
}

extension WeatherSourcePlugin {
    package static var command: WeatherSourcePlugin {
        WeatherSourcePlugin(
            type: "command", name: "your own program",
            answers: [
                AnswerReader("a program's printed weather") { bytes in
                    _ = try? CommandWeatherSource.Printed.decodeJSON(bytes)?.weather(
                        at: AnswerReader.position, units: .metric, lang: "en", now: Date(timeIntervalSince1970: 0),
                        program: "program")
                }
            ],
            keys: [
                ConfigKey(
                    "argv", required: true,
                    schema: [
                        "type": "array", "minItems": 1, "items": ["type": "string"],
                        "description":
                            "The program and its arguments; {latitude}, {longitude}, {units} and {lang} are replaced. It prints one JSON object (see the README).",
                    ]),
                .seconds("timeout_seconds", maximum: 300, default: 10),
            ]
        ) { (config, context) throws(ConfigurationError) in
            CommandWeatherSource.Settings(
                argv: try ProviderProgram.argv(config, base: context.paths.base),
                timeout: try config.seconds("timeout_seconds", maximum: 300) ?? .seconds(10),
                units: context.units, lang: context.lang)
        } make: { settings, context in
            CommandWeatherSource(settings: settings, now: context.now)
        }
    }
}
