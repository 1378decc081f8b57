import Foundation
import Logging
import Testing
import WeathertagCore
import WeathertagDaemon
import WeathertagTestSupport

/// config.schema.json, for editors, against the decoder the daemon uses: the same keys, the example valid for
/// both, and every broken sample refused by both (the decoder naming the field). The schema is checked with
/// python3-jsonschema, a validator of its own.
@Suite("configuration schema")
struct ConfigSchemaTests {
    static let schemaPath = Fixtures.repositoryRoot + "/config.schema.json"

    static func schema() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.schemaPath))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func properties(_ object: [String: Any]?) -> Set<String> {
        Set((object?["properties"] as? [String: Any])?.keys.map { $0 } ?? [])
    }

    @Test func schemaHasExactlyTheDecodersKeys() throws {
        let schema = try Self.schema()
        #expect(Self.properties(schema) == Configuration.sectionKeys(.builtIns)[""])
        let sections = schema["properties"] as? [String: Any]
        for (section, keys) in Configuration.sectionKeys(.builtIns) where !section.isEmpty {
            #expect(Self.properties(sections?[section] as? [String: Any]) == keys, "\(section)")
        }
        // Providers: one `if type == X then {keys}` per registered type, with that factory's keys.
        let provider = (schema["definitions"] as? [String: Any])?["provider"] as? [String: Any]
        let types = ((provider?["properties"] as? [String: Any])?["type"] as? [String: Any])?["enum"] as? [String]
        #expect(Set(types ?? []) == Set(LocationProviderRegistry.builtIns.types))
        let branches = provider?["allOf"] as? [[String: Any]] ?? []
        for plugin in LocationProviderRegistry.builtIns.plugins {
            let branch = branches.first {
                let condition = ($0["if"] as? [String: Any])?["properties"] as? [String: Any]
                return (condition?["type"] as? [String: Any])?["const"] as? String == plugin.type
            }
            let keys = Self.properties(branch?["then"] as? [String: Any]).subtracting(["type"])
            #expect(keys == plugin.keys, "provider \(plugin.type)")
        }
        // Weather sources, the same way.
        let source = (schema["definitions"] as? [String: Any])?["source"] as? [String: Any]
        let sourceTypes = ((source?["properties"] as? [String: Any])?["type"] as? [String: Any])?["enum"] as? [String]
        #expect(Set(sourceTypes ?? []) == Set(WeatherSourceRegistry.builtIns.types))
        let sourceBranches = source?["allOf"] as? [[String: Any]] ?? []
        for plugin in WeatherSourceRegistry.builtIns.plugins {
            let branch = sourceBranches.first {
                let condition = ($0["if"] as? [String: Any])?["properties"] as? [String: Any]
                return (condition?["type"] as? [String: Any])?["const"] as? String == plugin.type
            }
            let keys = Self.properties(branch?["then"] as? [String: Any]).subtracting(["type"])
            #expect(keys == plugin.keys, "source \(plugin.type)")
        }
    }

    /// Each bound a key declares (the schema's `minimum`, `exclusiveMinimum`, `maximum`), in a section or in a
    /// plugin's entry, is the decoder's too: a value at it is accepted, and one past it refused, naming the field.
    /// The schema is made of the declarations; this keeps the decoders that read them to the same word.
    @Test func everyDeclaredBoundIsTheDecodersBound() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let inbox = try directory.makeDirectory("inbox")
        let schema = try Self.schema()
        // Where each key is tried: (the field the decoder must name, the document around the value `VALUE`).
        var places: [(field: String, declared: [String: Any], document: String)] = []
        for (section, value) in schema["properties"] as? [String: Any] ?? [:] {
            for (key, declared) in ((value as? [String: Any])?["properties"] as? [String: Any]) ?? [:] {
                guard let declared = declared as? [String: Any] else { continue }
                // The one rule between keys the schema cannot say: cache.ttl_seconds ≤ stamp.max_age_seconds.
                let companion = section == "cache" ? #", "stamp": {"max_age_seconds": 86400}"# : ""
                let document =
                    section == "inbox"
                    ? #"{"inbox": {"path": "\#(inbox)", "\#(key)": VALUE}}"#
                    : #"{"inbox": {"path": "\#(inbox)"}, "\#(section)": {"\#(key)": VALUE}\#(companion)}"#
                places.append(("\(section).\(key)", declared, document))
            }
        }
        // Each entry type that needs nothing else of its own (MET Norway's contact and OpenWeather's key given).
        let definitions = schema["definitions"] as? [String: Any] ?? [:]
        for (family, list) in [("source", "weather"), ("provider", "location")] {
            for branch in (definitions[family] as? [String: Any])?["allOf"] as? [[String: Any]] ?? [] {
                let then = branch["then"] as? [String: Any] ?? [:]
                let condition = (branch["if"] as? [String: Any])?["properties"] as? [String: Any]
                guard (then["required"] as? [String] ?? []).isEmpty,
                    let type = (condition?["type"] as? [String: Any])?["const"] as? String
                else { continue }
                for (key, declared) in then["properties"] as? [String: Any] ?? [:] {
                    guard let declared = declared as? [String: Any], key != "type" else { continue }
                    let document = """
                        {"inbox": {"path": "\(inbox)"}, "met_norway": {"contact": "you@example.org"},
                         "\(list)": {"providers": [{"type": "\(type)", "\(key)": VALUE}]}}
                        """
                    places.append(("providers[0].\(key)", declared, document))
                }
            }
        }
        var tried = 0
        for (field, declared, document) in places {
            let integer = declared["type"] as? String == "integer"
            var cases: [(Double, Bool)] = []
            if let maximum = declared["maximum"] as? Double {
                cases += [(maximum, true), (integer ? maximum + 1 : maximum * 1.5 + 1, false)]
            }
            if let minimum = declared["minimum"] as? Double { cases += [(minimum, true), (minimum - 1, false)] }
            if let above = declared["exclusiveMinimum"] as? Double { cases += [(above, false)] }
            for (number, accepted) in cases {
                let text = integer ? String(Int(number)) : String(number)
                let json = document.replacingOccurrences(of: "VALUE", with: text)
                do {
                    _ = try Configuration.decode(
                        try JSONParser.parse(Array(json.utf8)),
                        environment: ["HOME": directory.path, "OPENWEATHER_API_KEY": "0123456789abcdef"],
                        plugins: .builtIns, configDirectory: directory.path, files: LocalConfigurationFiles())
                    #expect(
                        accepted, "\(field) in \(json): \(text) is past its declared bound, and the decoder takes it")
                } catch let error as ConfigurationError {
                    #expect(
                        !accepted && error.field.contains(field),
                        "\(field) in \(json): \(text) is within its declared bounds, and the decoder says \(error)")
                }
                tried += 1
            }
        }
        #expect(tried > 90)
    }

    /// weathertag.json(5), generated from the reference in docs/, describes every key.
    @Test func manPageDescribesEveryKey() throws {
        let page = try String(
            contentsOfFile: Fixtures.repositoryRoot + "/docs/man/weathertag.json.5", encoding: .utf8)
        for (section, keys) in Configuration.sectionKeys(.builtIns) where !section.isEmpty {
            for key in keys {
                #expect(page.contains(".It Cm \(section).\(key)\n"), "\(section).\(key) is not in weathertag.json(5)")
            }
        }
        for type in LocationProviderRegistry.builtIns.types + WeatherSourceRegistry.builtIns.types {
            #expect(page.contains(".It Cm \(type)\n"), "provider or source \(type) is not in weathertag.json(5)")
        }
    }

    /// (document, the field the decoder must name)
    static let broken: [(String, String)] = [
        (#"[]"#, ""),
        (#"{"inbox": {}}"#, "inbox.path"),
        (#"{"inbox": {"path": "INBOX", "max_bytes": 0}}"#, "inbox.max_bytes"),
        (#"{"inbox": {"path": "INBOX", "poll_seconds": -1}}"#, "inbox.poll_seconds"),
        (#"{"inbox": {"path": "INBOX"}, "openweather": {"units": "kelvin"}}"#, "openweather.units"),
        (#"{"inbox": {"path": "INBOX"}, "openweather": {"lang": "not a language"}}"#, "openweather.lang"),
        (#"{"inbox": {"path": "INBOX"}, "openweather": {"base_url": "ftp://example.org"}}"#, "openweather.base_url"),
        (#"{"inbox": {"path": "INBOX"}, "openweather": {"max_calls_per_minute": 0}}"#, "max_calls_per_minute"),
        (#"{"inbox": {"path": "INBOX"}, "cache": {"ttl_seconds": -5}}"#, "cache.ttl_seconds"),
        (#"{"inbox": {"path": "INBOX"}, "state": {"forget_after_seconds": 0}}"#, "state.forget_after_seconds"),
        (#"{"inbox": {"path": "INBOX"}, "state": {"enabled": "yes"}}"#, "state.enabled"),
        (#"{"inbox": {"path": "INBOX"}, "history": {"max_calls_per_day": 0}}"#, "history.max_calls_per_day"),
        (#"{"inbox": {"path": "INBOX"}, "privacy": {"stamp_coordinates": "fuzzy"}}"#, "privacy.stamp_coordinates"),
        (#"{"inbox": {"path": "INBOX"}, "privacy": {"decimals": 9}}"#, "privacy.decimals"),
        (#"{"inbox": {"path": "INBOX"}, "stamp": {"fields": ["temperature", "mood"]}}"#, "stamp.fields[1]"),
        (
            #"{"inbox": {"path": "INBOX"}, "privacy": {"zones": [{"name": "Home", "latitude": 1, "longitude": 2}]}}"#,
            "privacy.zones[0].radius_m"
        ),
        (#"{"inbox": {"path": "INBOX"}, "socket": {"max_connections": 1.5}}"#, "socket.max_connections"),
        (#"{"inbox": {"path": "INBOX"}, "socket": {"idle_timeout_seconds": "30"}}"#, "socket.idle_timeout_seconds"),
        (#"{"inbox": {"path": "INBOX"}, "location": {"providers": [{"type": "teleport"}]}}"#, "providers[0].type"),
        (#"{"inbox": {"path": "INBOX"}, "location": {"providers": [{"name": "x"}]}}"#, "providers[0].type"),
        (
            #"{"inbox": {"path": "INBOX"}, "location": {"providers": [{"type": "fixed", "latitude": 91, "longitude": 0}]}}"#,
            "providers[0].latitude"
        ),
        (
            #"{"inbox": {"path": "INBOX"}, "location": {"providers": [{"type": "fixed", "latitude": 1, "longitude": 2, "accuracy_m": -3}]}}"#,
            "providers[0].accuracy_m"
        ),
        (#"{"inbox": {"path": "INBOX"}, "location": {"providers": [{"type": "command"}]}}"#, "providers[0].argv"),
        (
            #"{"inbox": {"path": "INBOX"}, "location": {"providers": [{"type": "gpsd", "port": 70000}]}}"#,
            "providers[0].port"
        ),
        (
            #"{"inbox": {"path": "INBOX"}, "location": {"providers": [{"type": "ip", "service": "whois"}]}}"#,
            "providers[0].service"
        ),
    ]

    @Test func exampleIsValidAndBrokenSamplesAreRefusedByBoth() async throws {
        let python = try #require(which("python3"), "python3 is needed")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let inbox = try directory.makeDirectory("inbox")
        let example = try String(contentsOfFile: Fixtures.repositoryRoot + "/config.example.json", encoding: .utf8)
        let documents = [example] + Self.broken.map { $0.0.replacingOccurrences(of: "INBOX", with: inbox) }

        // The schema's verdicts, one line per document.
        try directory.write("documents.json", "[" + documents.joined(separator: ",\n") + "]")
        try directory.write(
            "validate.py",
            """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft7Validator.check_schema(schema)
            validator = jsonschema.Draft7Validator(schema)
            for document in json.load(open(sys.argv[2])):
                errors = list(validator.iter_errors(document))
                print("valid" if not errors else "invalid: " + errors[0].message.replace("\\n", " "))
            """
        )
        let result = try await ChildProcess.run(
            [python, directory.file("validate.py"), Self.schemaPath, directory.file("documents.json")],
            in: directory
        )
        try #require(
            result.status == 0, "python3-jsonschema is needed (apt-get install python3-jsonschema): \(result.stderr)")
        let verdicts = result.stdout.split(separator: "\n").map(String.init)
        try #require(verdicts.count == documents.count)
        #expect(verdicts[0] == "valid", "config.example.json: \(verdicts[0])")

        // The decoder's verdicts on the same documents.
        let environment = ["OPENWEATHER_API_KEY": "0123456789abcdef", "HOME": directory.path]
        let exampleForDecoder = example.replacingOccurrences(of: "/srv/diary/inbox", with: inbox)
        #expect(throws: Never.self) {
            _ = try Configuration.decode(
                try JSONParser.parse(Array(exampleForDecoder.utf8)), environment: environment,
                plugins: .builtIns, configDirectory: directory.path, files: LocalConfigurationFiles())
        }
        for ((document, field), verdict) in zip(Self.broken, verdicts.dropFirst()) {
            #expect(verdict.hasPrefix("invalid"), "the schema accepts \(document)")
            let text = document.replacingOccurrences(of: "INBOX", with: inbox)
            do {
                _ = try Configuration.decode(
                    try JSONParser.parse(Array(text.utf8)), environment: environment, plugins: .builtIns,
                    configDirectory: directory.path, files: LocalConfigurationFiles())
                Issue.record("the decoder accepts \(document)")
            } catch let error as ConfigurationError {
                #expect(field.isEmpty || error.field.contains(field), "\(document): \(error)")
            }
        }
    }
}
