/// One key of a configuration object, declared once, beside the code that decodes it: its name and its JSON Schema
/// (its type, bounds, default and meaning). The accepted keys of a section or a plugin's entry are these names, and
/// config.schema.json is made of these declarations (`ConfigSchema`): nothing in it is kept by hand.
package struct ConfigKey: Sendable {
    package let name: String
    /// Whether the object must hold it (`inbox.path`, a fixed place's `latitude`).
    package let isRequired: Bool
    private let makeSchema: @Sendable (PluginRegistries) -> JSONValue

    /// A key whose schema depends on the plugins registered (`history.source` names the sources that know the past).
    package init(
        _ name: String, required: Bool = false, schema: @escaping @Sendable (PluginRegistries) -> JSONValue
    ) {
        (self.name, self.isRequired, self.makeSchema) = (name, required, schema)
    }

    /// A key of any schema, written as JSON (an array of objects, a list of patterns).
    package init(_ name: String, required: Bool = false, schema: JSONValue) {
        self.init(name, required: required) { _ in schema }
    }

    package func schema(_ plugins: PluginRegistries) -> JSONValue {
        self.makeSchema(plugins)
    }
}

extension ConfigKey {
    /// What every key may say besides its type: its default, whether it is deprecated, and what it means.
    private static func key(
        _ name: String, required: Bool, _ members: [(String, JSONValue?)], default value: JSONValue?,
        deprecated: Bool, description: String?
    ) -> ConfigKey {
        var all = members
        all.append(("default", value))
        all.append(("deprecated", deprecated ? JSONValue.bool(true) : nil))
        all.append(("description", description.map(JSONValue.string)))
        let present: [(key: String, value: JSONValue)] = all.compactMap { key, value in value.map { (key, $0) } }
        return ConfigKey(name, required: required, schema: .object(present))
    }

    package static func string(
        _ name: String, required: Bool = false, minLength: Int? = nil, maxLength: Int? = nil, pattern: String? = nil,
        default value: String? = nil, deprecated: Bool = false, _ description: String? = nil
    ) -> ConfigKey {
        var members: [(String, JSONValue?)] = [("type", .string("string"))]
        members.append(("minLength", minLength.map(JSONValue.integer)))
        members.append(("maxLength", maxLength.map(JSONValue.integer)))
        members.append(("pattern", pattern.map(JSONValue.string)))
        return Self.key(
            name, required: required, members, default: value.map(JSONValue.string), deprecated: deprecated,
            description: description)
    }

    /// An address: `http://` or `https://` and no space (`ConfigObject.url`).
    package static func url(
        _ name: String, required: Bool = false, default value: String? = nil, _ description: String? = nil
    ) -> ConfigKey {
        Self.string(name, required: required, pattern: "^https?://[^\\s]+$", default: value, description)
    }

    /// A number: `above` is an exclusive minimum.
    package static func number(
        _ name: String, required: Bool = false, minimum: Double? = nil, above: Double? = nil, maximum: Double? = nil,
        default value: Double? = nil, _ description: String? = nil
    ) -> ConfigKey {
        var members: [(String, JSONValue?)] = [("type", .string("number"))]
        members.append(("minimum", minimum.map(JSONValue.number)))
        members.append(("exclusiveMinimum", above.map(JSONValue.number)))
        members.append(("maximum", maximum.map(JSONValue.number)))
        return Self.key(
            name, required: required, members, default: value.map(JSONValue.number), deprecated: false,
            description: description)
    }

    /// A duration in seconds, more than 0 and at most `maximum` (`ConfigObject.seconds`).
    package static func seconds(
        _ name: String, maximum: Double, default value: Double? = nil, _ description: String? = nil
    ) -> ConfigKey {
        Self.number(name, above: 0, maximum: maximum, default: value, description)
    }

    package static func integer(
        _ name: String, minimum: Int? = nil, maximum: Int? = nil, default value: Int? = nil,
        _ description: String? = nil
    ) -> ConfigKey {
        var members: [(String, JSONValue?)] = [("type", .string("integer"))]
        members.append(("minimum", minimum.map(JSONValue.integer)))
        members.append(("maximum", maximum.map(JSONValue.integer)))
        return Self.key(
            name, required: false, members, default: value.map(JSONValue.integer), deprecated: false,
            description: description)
    }

    package static func boolean(_ name: String, default value: Bool? = nil, _ description: String? = nil) -> ConfigKey {
        Self.key(
            name, required: false, [("type", JSONValue.string("boolean"))], default: value.map(JSONValue.bool),
            deprecated: false, description: description)
    }

    /// A list of `items` (each item's schema).
    package static func list(
        _ name: String, required: Bool = false, minItems: Int? = nil, unique: Bool = false, of items: JSONValue,
        _ description: String? = nil
    ) -> ConfigKey {
        var members: [(String, JSONValue?)] = [("type", .string("array"))]
        members.append(("minItems", minItems.map(JSONValue.integer)))
        members.append(("uniqueItems", unique ? JSONValue.bool(true) : nil))
        members.append(("items", items))
        return Self.key(name, required: required, members, default: nil, deprecated: false, description: description)
    }

    /// One of `values`.
    package static func choice(
        _ name: String, _ values: [String], default value: String? = nil, deprecated: Bool = false,
        _ description: String? = nil
    ) -> ConfigKey {
        Self.key(
            name, required: false, [("enum", JSONValue.array(values.map(JSONValue.string)))],
            default: value.map(JSONValue.string), deprecated: deprecated, description: description)
    }
}

extension ConfigKey {
    /// One of the values `values` gives for the plugins registered (`history.source`: the sources that know the past).
    package static func choice(
        _ name: String, from values: @escaping @Sendable (PluginRegistries) -> [String], default value: String? = nil,
        _ description: String? = nil
    ) -> ConfigKey {
        ConfigKey(name) { plugins in Self.choice(name, values(plugins), default: value, description).schema(plugins) }
    }
}

extension JSONValue {
    /// A whole number.
    static func integer(_ value: Int) -> JSONValue {
        .number(Double(value))
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    package init(stringLiteral value: String) { self = .string(value) }
    package init(integerLiteral value: Int) { self = .number(Double(value)) }
    package init(floatLiteral value: Double) { self = .number(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object, its members in the order written.
    package init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(elements.map { ($0, $1) }) }
}
