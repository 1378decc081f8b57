import ArgumentParser
import FoundationEssentials
import Logging
import WeathertagCore
import WeathertagDaemon

struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate the configuration and try each location provider and each weather source once.",
        discussion: """
            Prints one line per check. Exit status 0 only when the daemon could run: the configuration is valid, \
            at least one location provider gives a position, and at least one weather source answers. 78 for a \
            configuration error, 1 when a check failed.
            """
    )

    @Option(name: .shortAndLong, help: "The configuration file (JSON).")
    var config: String

    func run() async throws {
        let runtime = Runtime(logLevel: .error)
        let configuration: Configuration
        do {
            configuration = try runtime.loadConfiguration(self.config)
        } catch {
            print("FAIL configuration: \(error)")
            throw ExitCode(ExitStatus.configuration)
        }
        print("ok   configuration: \(self.config)")
        for warning in configuration.warnings { print("warn configuration: \(warning)") }
        let factory = runtime.factory(configuration)
        await Self.checkInbox(configuration, factory)
        var firstPosition: Position?
        for (index, provider) in factory.providers.enumerated() {
            let label = "location.providers[\(index)] " + runtime.plugins.location.label(of: provider.type)
            let chain = factory.locationChain([provider])
            do {
                let position = try await factory.withProvidersRunning(only: [provider]) { try await chain.locate() }
                firstPosition = firstPosition ?? position
                let accuracy = position.accuracyMeters.flatMap(\.roundedInt).map { " ±\($0) m" } ?? ""
                let name = position.name.map { " (\($0))" } ?? ""
                // The exact position, on the user's own terminal only.
                print(
                    "ok   \(label): \(String(cFormat: "%.5f, %.5f", position.latitude, position.longitude))\(accuracy)\(name)"
                )
            } catch {
                print("FAIL \(label): \(error)")
            }
        }

        // Each weather source is asked once, as the daemon asks it: with no more than `privacy` lets leave the
        // machine.
        let probe =
            firstPosition ?? Position(latitude: 51.4779, longitude: -0.0015, source: "probe", takenAt: Date())
        let request = configuration.privacy.requestPosition(probe)
        switch configuration.weather.origin {
        case .fallback(let reason), .implied(let reason):
            print("ok   weather: no weather.providers and \(reason)")
        case .configured:
            break
        }
        print(Self.wordsLine(configuration.weather.lang))
        var answered = false
        for (index, source) in factory.weatherSources().enumerated() {
            // A configuration without `weather.providers` keeps the line it always had.
            let named = runtime.plugins.weather.label(of: source.type)
            let label = configuration.weather.origin == .configured ? "weather.providers[\(index)] \(named)" : named
            do {
                let weather = try await source.currentWeather(at: request)
                answered = true
                let key = source.keyOrigin.map { "key accepted (\($0)); " }
                print(
                    "ok   \(label): \(key ?? "")\(weather.description), \(weather.temperature)"
                        + "\(weather.units.temperatureSymbol) (asked for \(request), privacy.request_decimals "
                        + "\(request.decimals))")
            } catch {
                print("FAIL \(label): \(error.message)")
            }
        }
        if case .service(let spec) = configuration.geocoding {
            print("ok   geocoding: \(spec.description) names places (the position leaves as above)")
        } else if case .geoNames(let directory) = configuration.geocoding {
            print("ok   geocoding: GeoNames files in \(directory) name places on this machine")
        }
        guard firstPosition != nil, answered else {
            if firstPosition == nil { print("FAIL location: no provider gave a position") }
            throw ExitCode.failure
        }
        print("The daemon can run: weathertag serve --config \(self.config)")
    }

    /// The inbox's lines: its folder, the vault it is (in) and what that lays out, and what an older weathertag
    /// wrote where no entry is, each named with the way to take it out.
    private static func checkInbox(_ configuration: Configuration, _ factory: ServiceFactory) async {
        print("ok   inbox: \(configuration.inbox.path)")
        let tree = configuration.inbox.tree
        if let vault = tree.vault {
            print("ok   inbox: " + vault.summary(entriesAreAll: tree.entries == .all))
            for problem in vault.problems { print("warn inbox: \(problem)") }
        }
        for stamp in await factory.misplacedStamps() {
            let when = stamp.at.map { " on \(EntryTime(date: $0, dayOnly: true, source: .given, timeZone: .current))" }
            let path = Self.quoted(configuration.inbox.path + "/" + stamp.path)
            print(
                "warn \(stamp.path) holds a weather block weathertag wrote\(when ?? ""), and is \(stamp.what): "
                    + "weathertag stamp --remove \(path) takes it out")
        }
    }

    /// The language the weather is described in by the sources that send a code and no words (`WeatherWords`).
    static func wordsLine(_ lang: String) -> String {
        guard !lang.lowercased().hasPrefix("en") else { return "ok   weather.lang: \(lang)" }
        guard let words = WeatherWords.language(for: lang), let (source, own) = WeatherWords.source(for: lang) else {
            return "warn weather.lang: \(lang) has no weather words here: the sources that send a code and no words "
                + "describe the weather in English, whole (a source that answers in words answers in \(lang) itself)"
        }
        let corrected = own > 0 ? ", \(own) of them corrected or added by weathertag" : ""
        return "ok   weather.lang: \(lang): the sources that send a code describe the weather in \(words)'s words, "
            + "from \(source.rawValue)\(corrected)"
    }

    /// A path as a shell takes it: quoted when it holds anything but letters, digits and `/._-`.
    static func quoted(_ path: String) -> String {
        let plain = path.unicodeScalars.allSatisfy {
            ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "/._-".unicodeScalars.contains($0)) && $0.isASCII
        }
        return plain ? path : "'" + path.replacing("'", with: "'\\''") + "'"
    }
}
