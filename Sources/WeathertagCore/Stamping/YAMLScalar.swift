import FoundationEssentials

/// Renders values as YAML scalars that read back as the same type: plain where that is unambiguous,
/// double-quoted otherwise.
package enum YAMLScalar {
    package static func string(_ value: String) -> String {
        Self.isSafePlain(value) ? value : Self.quoted(value)
    }

    package static func number(_ value: Double) -> String {
        guard value.isFinite else { return ".nan" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        var text = "\(value)"
        if text.contains("e") { text = String(cFormat: "%.6f", value) }
        return text
    }

    /// Rounds to `places` decimals first, dropping trailing zeros (`12.30` → `12.3`).
    package static func number(_ value: Double, places: Int) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return Self.number((value * scale).rounded() / scale)
    }

    /// A double-quoted scalar. YAML's double-quoted style reads JSON string escapes, so this is also a JSON string.
    package static func quoted(_ value: String) -> String {
        var out = ""
        Self.appendQuoted(value, to: &out)
        return out
    }

    /// `quoted(value)`, appended to `out`. Text with none of the bytes an escape can start with (controls, `"`, `\`,
    /// DEL, and the lead bytes of C1 controls, the line and paragraph separators and the byte-order mark: C2, E2,
    /// EF) goes in whole: the status the socket answers status bars with is mostly such text, and appending it a
    /// scalar at a time was half of that answer's cost.
    package static func appendQuoted(_ value: String, to out: inout String) {
        let plain = value.utf8.allSatisfy { byte in
            byte >= 0x20 && byte != 0x22 && byte != 0x5C && byte != 0x7F && byte != 0xC2 && byte != 0xE2
                && byte != 0xEF
        }
        guard !plain else {
            out += "\""
            out += value
            out += "\""
            return
        }
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            // Controls, DEL, C1 controls, BOM and line/paragraph separators: not printable in YAML.
            case _
            where scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
                || scalar.value == 0xFEFF || scalar.value == 0x2028 || scalar.value == 0x2029:
                out += String(cFormat: "\\u%04X", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    private static let reservedWords: Set<String> = [
        "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~",
    ]

    /// Plain only for text starting with a letter or digit, made of letters, digits, spaces and a few harmless
    /// marks, and not something a YAML 1.1 or 1.2 reader would take as a boolean, null, number or date.
    private static func isSafePlain(_ value: String) -> Bool {
        guard let first = value.unicodeScalars.first, let last = value.unicodeScalars.last else { return false }
        guard first.properties.isAlphabetic || ("0"..."9").contains(first) || first == "/", last != " " else {
            return false
        }
        let allowed = value.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || " _.,()/'@+-".unicodeScalars.contains(scalar)
                || (scalar.value > 0x7F && !scalar.properties.isWhitespace
                    && scalar.properties.generalCategory != .control
                    && scalar.properties.generalCategory != .format)
        }
        guard allowed, !value.contains("  ") else { return false }
        if Self.reservedWords.contains(value.lowercased()) { return false }
        // Numbers (1, 1.5, 1e3, 1_000, 0x1f, 0o7), sexagesimal and dates start with a digit, a sign or a dot.
        if ("0"..."9").contains(first) {
            if value.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || "._eE-+x".unicodeScalars.contains($0) }) {
                return false
            }
            if value.hasPrefix("0x") || value.hasPrefix("0o") || value.hasPrefix("0b") { return false }
        }
        return true
    }
}
