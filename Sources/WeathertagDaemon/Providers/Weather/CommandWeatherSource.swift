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
        guard let printed = ProgramWeather.decodeJSON(output.stdout) else {
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
}

extension WeatherSourcePlugin {
    package static var command: WeatherSourcePlugin {
        WeatherSourcePlugin(
            type: "command", name: "your own program",
            answers: [
                AnswerReader("a program's printed weather") { bytes in
                    _ = try? ProgramWeather.decodeJSON(bytes)?.weather(
                        at: AnswerReader.position, units: .metric, lang: "en", now: Date(timeIntervalSince1970: 0),
                        program: "program")
                }
            ],
            keys: [
                .list(
                    "argv", required: true, minItems: 1, of: ["type": "string"],
                    "The program and its arguments; {latitude}, {longitude}, {units} and {lang} are replaced. It prints one JSON object (see the README)."
                ),
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
