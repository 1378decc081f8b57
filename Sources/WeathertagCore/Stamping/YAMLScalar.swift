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

    /// `quoted(value)`, appended to `out`: the runs of text between escapes go in whole, found by bytes (the status
    /// the socket answers status bars with, and each entry of a page or a map, is mostly such text; appended a scalar
    /// at a time, quoting was a third of a 50,000-entry page's instructions). An escape starts only at a control, `"`,
    /// `\`, DEL, or the lead byte of a C1 control (C2 80–9F), a line or paragraph separator (E2 80 A8–A9) or the
    /// byte-order mark (EF BB BF): UTF-8 never uses these bytes inside another character.
    package static func appendQuoted(_ value: String, to out: inout String) {
        out += "\""
        let done = value.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            Self.splitAtEscapes(
                bytes,
                run: { out += $0.count == bytes.count ? value : String(decoding: $0, as: UTF8.self) },
                escape: { out += $0 })
            return true
        }
        if done == nil {
            for scalar in value.unicodeScalars { Self.appendEscaped(scalar, to: &out) }
        }
        out += "\""
    }

    /// `appendQuoted`, onto bytes (`JSONValue.serialized` writes a document into bytes, not a string appended to a
    /// token at a time).
    package static func appendQuoted(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let done = value.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            Self.splitAtEscapes(bytes, run: { out.append(contentsOf: $0) }, escape: { out.append(contentsOf: $0.utf8) })
            return true
        }
        if done == nil {
            var escaped = ""
            for scalar in value.unicodeScalars { Self.appendEscaped(scalar, to: &escaped) }
            out.append(contentsOf: escaped.utf8)
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `bytes` in order as the runs between escapes (to `run`) and the escapes that stand for the bytes between them
    /// (to `escape`).
    private static func splitAtEscapes(
        _ bytes: UnsafeBufferPointer<UInt8>, run: (UnsafeBufferPointer<UInt8>) -> Void, escape: (String) -> Void
    ) {
        var start = 0
        var index = 0
        while index < bytes.count {
            // Most bytes are printable ASCII other than a quote or a backslash, which no escape starts with.
            let byte = bytes[index]
            if byte >= 0x20, byte < 0x7F, byte != 0x22, byte != 0x5C {
                index += 1
                continue
            }
            guard let (escaped, width) = Self.escape(bytes, at: index) else {
                index += 1
                continue
            }
            if start < index { run(UnsafeBufferPointer(rebasing: bytes[start..<index])) }
            escape(escaped)
            index += width
            start = index
        }
        if start < bytes.count { run(UnsafeBufferPointer(rebasing: bytes[start...])) }
    }

    /// `quoted(value)` a scalar at a time: the way for text without contiguous bytes, and what the runs of
    /// `appendQuoted` must give.
    package static func quotedByScalar(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars { Self.appendEscaped(scalar, to: &out) }
        return out + "\""
    }

    /// The escape that starts at `bytes[index]` and how many bytes it stands for; nil where the byte goes as it is.
    private static func escape(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (String, Int)? {
        let byte = bytes[index]
        func next(_ offset: Int) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }
        switch byte {
        case 0x22: return ("\\\"", 1)
        case 0x5C: return ("\\\\", 1)
        case 0x0A: return ("\\n", 1)
        case 0x0D: return ("\\r", 1)
        case 0x09: return ("\\t", 1)
        case 0..<0x20, 0x7F: return (Self.unicodeEscape(UInt32(byte)), 1)
        case 0xC2:
            guard let second = next(1), (0x80..<0xA0).contains(second) else { return nil }
            return (Self.unicodeEscape(UInt32(second)), 2)
        case 0xE2:
            guard next(1) == 0x80, let third = next(2), third == 0xA8 || third == 0xA9 else { return nil }
            return (Self.unicodeEscape(0x2000 | UInt32(third & 0x3F)), 3)
        case 0xEF:
            guard next(1) == 0xBB, next(2) == 0xBF else { return nil }
            return (Self.unicodeEscape(0xFEFF), 3)
        default: return nil
        }
    }

    private static func appendEscaped(_ scalar: Unicode.Scalar, to out: inout String) {
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
            out += Self.unicodeEscape(scalar.value)
        default: out.unicodeScalars.append(scalar)
        }
    }

    /// `\u` and four upper-case hex digits (`String(cFormat: "\\u%04X")`, without `vsnprintf`).
    private static func unicodeEscape(_ value: UInt32) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var escape = "\\u"
        for shift in stride(from: 12, through: 0, by: -4) {
            escape.unicodeScalars.append(Unicode.Scalar(digits[Int((value >> UInt32(shift)) & 0xF)]))
        }
        return escape
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
