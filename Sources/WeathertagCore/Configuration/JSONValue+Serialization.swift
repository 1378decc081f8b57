import FoundationEssentials

extension JSONValue {
    /// Compact JSON text, keys in insertion order.
    package var serialized: String {
        var out = ""
        self.write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 {
                out += String(Int64(value))
            } else {
                out += "\(value)"
            }
        case .string(let value): Self.writeString(value, to: &out)
        case .array(let elements):
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                element.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                Self.writeString(member.key, to: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ value: String, to out: inout String) {
        YAMLScalar.appendQuoted(value, to: &out)
    }

    /// `.string` for a value, `.null` for nil.
    package static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    package static func optional(_ value: Double?) -> JSONValue { value.map(JSONValue.number) ?? .null }
    package static func optional(_ value: Int?) -> JSONValue { value.map { .number(Double($0)) } ?? .null }

    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    package var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }
}
