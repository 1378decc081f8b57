import FoundationEssentials

extension JSONValue {
    /// Compact JSON text, keys in insertion order.
    package var serialized: String {
        // Into bytes, made a string once: appended to a string a token at a time, each append took the string's
        // general path (about 340 instructions), and a status answer, which bars poll, was 725,000 instructions.
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        self.write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value): Self.appendNumber(value, to: &out)
        case .string(let value): YAMLScalar.appendQuoted(value, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                YAMLScalar.appendQuoted(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A number as `serialized` writes it: a whole one below 10¹⁵ without a fraction, any other as Swift prints a
    /// `Double`.
    package static func appendNumber(_ value: Double, to out: inout [UInt8]) {
        if value == value.rounded(), abs(value) < 1e15 {
            out.append(contentsOf: String(Int64(value)).utf8)
        } else {
            out.append(contentsOf: "\(value)".utf8)
        }
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
