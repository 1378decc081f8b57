/// config.schema.json, for editors, made of the declared keys (`ConfigKey`): weathertag's own sections
/// (`Configuration.commonSections`), every registered plugin's sections, and each plugin's entry in
/// `weather.providers` and `location.providers` (one `if type == X then {its keys}` each). `make generated` writes it
/// and a test checks that the committed file is current: a new plugin is in it with no other edit.
package enum ConfigSchema {
    package static func document(_ plugins: PluginRegistries) -> JSONValue {
        var properties: [(key: String, value: JSONValue)] = [
            ("$schema", ["type": "string", "description": "This schema, for editors."])
        ]
        for section in plugins.sections {
            properties.append(
                (section.name, Self.object(section.declaredKeys, description: section.description, plugins)))
        }
        for section in Configuration.commonSections {
            properties.append(
                (section.name, Self.object(section.declaredKeys, description: section.description, plugins)))
        }
        let required = Configuration.commonSections.filter(\.isRequired).map { JSONValue.string($0.name) }
        let fallback = plugins.weather.fallback.map { " Without weather.providers: \($0.reason)." } ?? ""
        return [
            "$schema": "http://json-schema.org/draft-07/schema#",
            "$id": "https://github.com/weathertag/weathertag/config.schema.json",
            "title": "weathertag configuration",
            "description": .string("weathertag.json(5). Only inbox.path is required.\(fallback)"),
            "type": "object",
            "required": .array(required),
            "additionalProperties": false,
            "properties": .object(properties),
            "definitions": [
                "source": Self.family(plugins.weather, plugins),
                "provider": Self.family(plugins.location, plugins),
            ],
        ]
    }

    /// The committed file's text: `document` with two spaces of indentation, and a line's end at its end.
    package static func text(_ plugins: PluginRegistries) -> String {
        Self.document(plugins).prettyPrinted() + "\n"
    }

    /// An object of `keys` and nothing else, `leading` (an entry's `type`) first.
    static func object(
        _ keys: [ConfigKey], description: String?, _ plugins: PluginRegistries,
        leading: [(key: String, value: JSONValue)] = []
    ) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("type", "object")]
        let required = keys.filter(\.isRequired).map { JSONValue.string($0.name) }
        if !required.isEmpty { members.append(("required", .array(required))) }
        members.append(("additionalProperties", false))
        if let description { members.append(("description", .string(description))) }
        members.append(("properties", .object(leading + keys.map { ($0.name, $0.schema(plugins)) })))
        return .object(members)
    }

    /// An entry of a family's list: its `type` one of the registered ones, and each type's keys.
    static func family<S, C, P>(_ registry: PluginRegistry<S, C, P>, _ plugins: PluginRegistries) -> JSONValue {
        let branches = registry.plugins.map { plugin -> JSONValue in
            [
                "if": ["properties": ["type": ["const": .string(plugin.type)]]],
                "then": Self.object(plugin.declaredKeys, description: nil, plugins, leading: [("type", [:])]),
            ]
        }
        return [
            "type": "object",
            "required": ["type"],
            "properties": ["type": ["enum": .array(registry.types.map(JSONValue.string))]],
            "allOf": .array(branches),
        ]
    }
}

extension JSONValue {
    /// JSON text for people: each member of an object on a line of its own, `indent` spaces in; an array of plain
    /// values on one line.
    package func prettyPrinted(indent: Int = 0) -> String {
        let inner = String(repeating: " ", count: indent + 2)
        switch self {
        case .object(let members) where !members.isEmpty:
            let lines = members.map { member in
                JSONValue.string(member.key).serialized + ": " + member.value.prettyPrinted(indent: indent + 2)
            }
            return "{\n" + inner + lines.joined(separator: ",\n" + inner) + "\n" + String(repeating: " ", count: indent)
                + "}"
        case .array(let elements) where elements.contains(where: \.isContainer):
            let lines = elements.map { $0.prettyPrinted(indent: indent + 2) }
            return "[\n" + inner + lines.joined(separator: ",\n" + inner) + "\n" + String(repeating: " ", count: indent)
                + "]"
        case .array(let elements):
            return "[" + elements.map(\.serialized).joined(separator: ", ") + "]"
        default:
            return self.serialized
        }
    }

    private var isContainer: Bool {
        switch self {
        case .object(let members): !members.isEmpty
        case .array: true
        default: false
        }
    }
}
