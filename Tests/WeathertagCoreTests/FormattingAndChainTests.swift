import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

@Suite("Tag formatting")
struct TagFormatterTests {
    @Test func defaultLine() throws {
        #expect(try TagFormatter().format(Fixtures.tag) == "☁️ 12.3°C broken clouds · Seoul")
        var noPlace = Fixtures.tag
        noPlace.weather.place = nil
        #expect(try TagFormatter().format(noPlace) == "☁️ 12.3°C broken clouds")
    }

    @Test func templates() throws {
        let formatter = try TagFormatter(template: "{icon_code}|{temp}|{condition}|{humidity}%|{source}|{stale}")
        #expect(formatter.format(Fixtures.tag) == "04d|12.3|Clouds|71%|gpsd|")
        var stale = Fixtures.tag
        stale.stale = true
        stale.weather.units = .imperial
        #expect(try TagFormatter(template: "{temperature}{ ~ stale}").format(stale) == "12.3°F ~ stale")
    }

    @Test func unknownPlaceholderIsAnError() {
        #expect(throws: TemplateError(placeholder: "wind")) { try TagFormatter(template: "{icon} {wind}") }
    }

    @Test func iconEmoji() {
        #expect(TagFormatter.emoji(forIcon: "01d") == "☀️")
        #expect(TagFormatter.emoji(forIcon: "01n") == "🌙")
        #expect(TagFormatter.emoji(forIcon: "02d") == "⛅")
        #expect(TagFormatter.emoji(forIcon: "11d") == "⛈️")
        #expect(TagFormatter.emoji(forIcon: "13n") == "❄️")
        #expect(TagFormatter.emoji(forIcon: "50d") == "🌫️")
    }

    @Test func jsonRoundTrip() throws {
        let document = TagDocument(Fixtures.tag, now: Fixtures.observedAt.addingTimeInterval(30))
        let json = try JSONValueEncoder().encode(document)
        #expect(json["age_seconds"] == .number(30))
        #expect(json["stale"] == .bool(false))
        let decoded = try JSONDecoder().decode(TagDocument.self, from: Data(json.serialized.utf8))
        let tag = try WeatherTag(decoded)
        #expect(tag.weather == Fixtures.weather)
        #expect(tag.iconFile == Fixtures.tag.iconFile)
        #expect(tag.position.latitude == Fixtures.position.latitude)
        #expect(tag.position.source == "gpsd")
    }
}

/// A provider that answers as told: a real implementation of the protocol for chain tests.
struct ScriptedProvider: LocationProvider {
    var type: String
    var timeout: Duration = .seconds(5)
    var result: Result<Position, LocationError>
    var delay: Duration = .zero

    func locate() async throws -> Position {
        if self.delay > .zero { try await Task.sleep(for: self.delay) }
        return try self.result.get()
    }
}

@Suite("Location chain")
struct LocationChainTests {
    func position(_ source: String) -> Position {
        Position(latitude: 1, longitude: 2, source: source, takenAt: Fixtures.observedAt)
    }

    @Test func firstValidPositionWins() async throws {
        let chain = LocationChain(providers: [
            ScriptedProvider(type: "gpsd", result: .failure(LocationError(source: "gpsd", message: "no fix"))),
            ScriptedProvider(type: "ip", result: .success(self.position("ip"))),
            ScriptedProvider(type: "fixed", result: .success(self.position("fixed"))),
        ])
        #expect(try await chain.locate().source == "ip")
        let status = chain.status
        #expect(status[0].failures == 1 && status[0].lastError == "no fix")
        #expect(status[1].lastSuccessAt != nil)
        #expect(status[2].attempts == 0)
    }

    @Test func aSlowProviderTimesOut() async throws {
        let chain = LocationChain(providers: [
            ScriptedProvider(
                type: "gpsd", timeout: .milliseconds(50), result: .success(self.position("gpsd")), delay: .seconds(30)),
            ScriptedProvider(type: "fixed", result: .success(self.position("fixed"))),
        ])
        #expect(try await chain.locate().source == "fixed")
        #expect(chain.status[0].lastError?.contains("no position within") == true)
    }

    @Test func coordinatesOffTheGlobeAreRejected() async throws {
        var bad = self.position("command")
        bad.latitude = .nan
        let chain = LocationChain(providers: [
            ScriptedProvider(type: "command", result: .success(bad)),
            ScriptedProvider(type: "fixed", result: .success(self.position("fixed"))),
        ])
        #expect(try await chain.locate().source == "fixed")
    }

    @Test func everyFailureIsReported() async {
        let chain = LocationChain(providers: [
            ScriptedProvider(type: "gpsd", result: .failure(LocationError(source: "gpsd", message: "down"))),
            ScriptedProvider(type: "ip", result: .failure(LocationError(source: "ip", message: "rate limited"))),
        ])
        do {
            _ = try await chain.locate()
            Issue.record("expected an error")
        } catch {
            #expect(error.failures.count == 2)
            #expect(error.description == "no position: gpsd: down; ip: rate limited")
        }
    }
}

@Suite("JSON parser")
struct JSONParserTests {
    @Test func parsesEverything() throws {
        let value = try JSONParser.parse(Array(#"{"a": [1, -2.5e1, true, false, null, "x\u00e9\n"], "b": {}}"#.utf8))
        #expect(value["a"] == .array([.number(1), .number(-25), .bool(true), .bool(false), .null, .string("xé\n")]))
        #expect(value["b"] == .object([]))
        #expect(try JSONParser.parse(Array(value.serialized.utf8)) == value)
    }

    @Test func awkwardStringsSurviveSerialization() throws {
        for text in ["quote \" and \\", "tab\tnew\nline\r", "\u{01}\u{7F}\u{85}", "\u{FEFF}bom \u{2028}", "서울 ☁️"] {
            let value = JSONValue.object([("text", .string(text))])
            #expect(try JSONParser.parse(Array(value.serialized.utf8)) == value, "\(value.serialized)")
        }
    }

    @Test(
        "errors say where",
        arguments: [
            ("{\"a\": 1,}", 1, 9),
            ("{\n  \"a\": tru\n}", 2, 8),
            ("[1, 2", 1, 6),
            ("{\"a\" 1}", 1, 6),
            ("\"unterminated", 1, 14),
            ("01", 1, 2),
            ("{} x", 1, 4),
            ("{\"é\": x}", 1, 7),
        ]
    )
    func errorsSayWhere(text: String, line: Int, column: Int) {
        do {
            _ = try JSONParser.parse(Array(text.utf8))
            Issue.record("no error for \(text)")
        } catch {
            #expect(error.line == line && error.column == column, "\(text): \(error)")
        }
    }
}
