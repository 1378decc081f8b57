import Foundation
import Testing
import WeathertagCore
import WeathertagDaemon
import WeathertagTestSupport

/// The parts of committed files that list plugins are made from the registry, not kept by hand: each test says what
/// the file must hold and fails when it does not; with `WEATHERTAG_RECORD=1` (`make generated`) it writes it instead.
@Suite("Files made from the registry")
struct GeneratedFilesTests {
    static let recording = ProcessInfo.processInfo.environment["WEATHERTAG_RECORD"] == "1"

    /// The plugins' names in the registry's order, with the `command` plugin (anyone's own program) last.
    static func names<S, C, P>(_ registry: PluginRegistry<S, C, P>, first: String? = nil) -> [String] {
        let leading = first.flatMap { registry.plugin(for: $0) }.map { [$0] } ?? []
        let middle = registry.plugins.filter { $0.type != "command" && $0.type != first }
        return (leading + middle + registry.plugins.filter { $0.type == "command" }).map(\.name)
    }

    /// "a, b, c or d".
    static func sentence(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    }

    /// What goes between each `<!-- NAME -->` and the `<!-- end -->` after it in README.md.
    static func readmeLists(_ plugins: PluginRegistries = .builtIns) -> [String: String] {
        let fallback = plugins.weather.fallback?.type
        let sources = Self.names(plugins.weather, first: fallback)
        let keyless = fallback.map { plugins.weather.plugin(for: $0)?.needsKey == false } ?? false
        return [
            "location providers": Self.sentence(Self.names(plugins.location)),
            "location providers, listed": Self.names(plugins.location).joined(separator: ", "),
            "weather sources": keyless
                ? "\(sources[0]) with no account, or " + Self.sentence(Array(sources.dropFirst()))
                : Self.sentence(sources),
            "weather sources, listed": sources.joined(separator: ", "),
        ]
    }

    /// `text` with each marked part replaced by `parts`' (whitespace inside a part, a line's end included, counts
    /// as one space when compared, so that a part may be wrapped); nil when a marker is missing.
    static func filled(_ text: String, _ parts: [String: String]) -> String? {
        var result = text
        for (name, part) in parts.sorted(by: { $0.key < $1.key }) {
            let open = "<!-- \(name) -->"
            guard let start = result.range(of: open),
                let end = result.range(of: "<!-- end -->", range: start.upperBound..<result.endIndex)
            else { return nil }
            let held = result[start.upperBound..<end.lowerBound]
            let words = { (text: Substring) in text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            if words(held) != words(Substring(part)) {
                result.replaceSubrange(start.upperBound..<end.lowerBound, with: part)
            }
        }
        return result
    }

    @Test func theREADMEListsEveryPluginByItsName() throws {
        let path = Fixtures.repositoryRoot + "/README.md"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let filled = try #require(Self.filled(text, Self.readmeLists()), "README.md lacks a marker")
        if Self.recording, filled != text { try filled.write(toFile: path, atomically: true, encoding: .utf8) }
        #expect(Self.recording || filled == text, "README.md's lists of plugins are not the registry's: make generated")
    }

    /// config.schema.json is made of the declared keys of every section and plugin (`ConfigSchema`).
    @Test func theSchemaIsMadeOfTheDeclaredKeys() throws {
        let path = Fixtures.repositoryRoot + "/config.schema.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let made = ConfigSchema.text(.builtIns)
        if Self.recording, made != text { try made.write(toFile: path, atomically: true, encoding: .utf8) }
        #expect(Self.recording || made == text, "config.schema.json is not made of the declared keys: make generated")
    }

    /// A plugin registered and named nowhere else is in every list, under its own name.
    @Test func aNewPluginIsInTheListsWithNoOtherEdit() throws {
        var weather = WeatherSourceRegistry.builtIns
        weather.register(PluginRegistryTests.station)
        let lists = Self.readmeLists(PluginRegistries(location: .builtIns, weather: weather))
        #expect(
            lists["weather sources"]
                == "Open-Meteo with no account, or OpenWeather, MET Norway, The Garden Station or your own program")
        #expect(lists["weather sources, listed"]?.hasSuffix("The Garden Station, your own program") == true)
        let text = "Sources: <!-- weather sources, listed -->Open-Meteo<!-- end -->."
        #expect(
            Self.filled(text, ["weather sources, listed": "A, B"])
                == "Sources: <!-- weather sources, listed -->A, B<!-- end -->.")
        #expect(Self.filled("none here", ["weather sources": "A"]) == nil)
    }
}
