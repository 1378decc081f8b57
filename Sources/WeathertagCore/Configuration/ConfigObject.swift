/// A JSON object inside the configuration, with its dotted path, that reads typed fields and reports errors
/// naming them. It also notices keys nobody asked for, so a typo becomes a warning instead of silence.
package struct ConfigObject: Sendable {
    package let path: String
    private let members: [(key: String, value: JSONValue)]
    /// An entry given by its type alone (`history.source: "open-meteo"`): its `type` is the field at `path`.
    private let typeOnly: Bool

    package init(_ value: JSONValue, path: String) throws(ConfigurationError) {
        guard case .object(let members) = value else {
            throw ConfigurationError(field: path, message: "expected an object, got \(value.typeName)")
        }
        self.path = path
        self.members = members
        self.typeOnly = false
    }

    /// A plugin entry named by its type alone, at `path` (`history.source`): errors about its `type` name `path`.
    package init(type: String, path: String) {
        self.path = path
        self.members = [("type", .string(type))]
        self.typeOnly = true
    }

    /// The path of one of this object's fields.
    package func fieldPath(_ key: String) -> String {
        if self.typeOnly, key == "type" { return self.path }
        return self.path.isEmpty ? key : "\(self.path).\(key)"
    }

    package func contains(_ key: String) -> Bool {
        self.value(key) != nil
    }

    /// Warnings for keys that are not in `known`, with the known key meant when one is close.
    package func unknownKeys(known: Set<String>) -> [String] {
        self.members.map(\.key).filter { !known.contains($0) }.map { key in
            if let meant = Self.closest(to: key, in: known) {
                return "\(self.fieldPath(key)): unknown key, ignored; did you mean \(self.fieldPath(meant))?"
            }
            return "\(self.fieldPath(key)): unknown key, ignored (known: \(known.sorted().joined(separator: ", ")))"
        }
    }

    /// The one key of `candidates` a typo most likely meant: at most two edits away (one for short keys).
    static func closest(to key: String, in candidates: some Collection<String>) -> String? {
        let limit = key.count <= 4 ? 1 : 2
        let scored = candidates.map { ($0, Self.editDistance(key, $0)) }.filter { $0.1 <= limit && $0.0 != key }
        return scored.min { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }?.0
    }

    /// Levenshtein distance, with a swap of two neighbours counting as one edit.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous) = (previous, current)
        }
        return previous[b.count]
    }

    package func value(_ key: String) -> JSONValue? {
        guard let value = self.members.last(where: { $0.key == key })?.value, value != .null else { return nil }
        return value
    }

    package func string(_ key: String) throws(ConfigurationError) -> String? {
        guard let value = self.value(key) else { return nil }
        guard case .string(let string) = value else { throw self.typeError(key, "a string", value) }
        return string
    }

    package func nonEmptyString(_ key: String) throws(ConfigurationError) -> String? {
        guard let string = try self.string(key) else { return nil }
        guard !string.isEmpty else {
            throw ConfigurationError(field: self.fieldPath(key), message: "must not be empty")
        }
        return string
    }

    package func requiredString(_ key: String) throws(ConfigurationError) -> String {
        guard let string = try self.nonEmptyString(key) else { throw self.missing(key) }
        return string
    }

    package func bool(_ key: String) throws(ConfigurationError) -> Bool? {
        guard let value = self.value(key) else { return nil }
        guard case .bool(let bool) = value else { throw self.typeError(key, "true or false", value) }
        return bool
    }

    package func double(_ key: String) throws(ConfigurationError) -> Double? {
        guard let value = self.value(key) else { return nil }
        guard case .number(let number) = value else { throw self.typeError(key, "a number", value) }
        return number
    }

    package func requiredDouble(_ key: String) throws(ConfigurationError) -> Double {
        guard let number = try self.double(key) else { throw self.missing(key) }
        return number
    }

    package func integer(_ key: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let number = try self.double(key) else { return nil }
        guard number.rounded() == number, let integer = Int(exactly: number) else {
            throw ConfigurationError(field: self.fieldPath(key), message: "expected a whole number, got \(number)")
        }
        guard range.contains(integer) else {
            throw ConfigurationError(
                field: self.fieldPath(key),
                message: "\(integer) is out of range (\(range.lowerBound)…\(range.upperBound))"
            )
        }
        return integer
    }

    /// A positive duration in seconds (fractions allowed) no larger than `maximum`.
    package func seconds(_ key: String, maximum: Double) throws(ConfigurationError) -> Duration? {
        guard let number = try self.double(key) else { return nil }
        guard number > 0, number <= maximum else {
            throw ConfigurationError(
                field: self.fieldPath(key),
                message: "\(number) is out of range: must be more than 0 and at most \(Int(maximum)) seconds"
            )
        }
        return .milliseconds(Int64((number * 1000).rounded()))
    }

    package func object(_ key: String) throws(ConfigurationError) -> ConfigObject? {
        guard let value = self.value(key) else { return nil }
        return try ConfigObject(value, path: self.fieldPath(key))
    }

    package func array(_ key: String) throws(ConfigurationError) -> [JSONValue]? {
        guard let value = self.value(key) else { return nil }
        guard case .array(let elements) = value else { throw self.typeError(key, "an array", value) }
        return elements
    }

    package func stringArray(_ key: String) throws(ConfigurationError) -> [String]? {
        guard let elements = try self.array(key) else { return nil }
        var strings: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let string) = element else {
                throw ConfigurationError(
                    field: "\(self.fieldPath(key))[\(index)]",
                    message: "expected a string, got \(element.typeName)"
                )
            }
            strings.append(string)
        }
        return strings
    }

    /// One of a fixed set of string values.
    package func choice<T>(_ key: String, _ choices: KeyValuePairs<String, T>) throws(ConfigurationError) -> T? {
        guard let string = try self.string(key) else { return nil }
        guard let match = choices.first(where: { $0.key == string }) else {
            throw ConfigurationError(
                field: self.fieldPath(key),
                message: "unknown value \"\(string)\"; expected one of: \(choices.map(\.key).joined(separator: ", "))"
            )
        }
        return match.value
    }

    /// One of `choices`, as written.
    package func choice(_ key: String, among choices: [String]) throws(ConfigurationError) -> String? {
        guard let string = try self.string(key) else { return nil }
        guard choices.contains(string) else {
            throw ConfigurationError(
                field: self.fieldPath(key),
                message: "unknown value \"\(string)\"; expected one of: \(choices.joined(separator: ", "))")
        }
        return string
    }

    /// A required key is missing; when an unknown key next to it looks like a typo of it, that key is named.
    package func missing(_ key: String) -> ConfigurationError {
        let typo = self.members.map(\.key).first { $0 != key && Self.closest(to: $0, in: [key]) == key }
        if let typo {
            return ConfigurationError(
                field: self.fieldPath(typo), message: "unknown key; did you mean \(self.fieldPath(key))?")
        }
        return ConfigurationError(field: self.fieldPath(key), message: "is required")
    }

    private func typeError(_ key: String, _ expected: String, _ value: JSONValue) -> ConfigurationError {
        ConfigurationError(field: self.fieldPath(key), message: "expected \(expected), got \(value.typeName)")
    }
}
