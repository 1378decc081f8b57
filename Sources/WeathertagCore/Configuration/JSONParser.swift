/// A strict RFC 8259 parser over UTF-8 bytes that reports line and column on error.
///
/// Configuration files are small and read once, so clarity wins over speed here.
package struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    private static let maximumDepth = 64

    package static func parse(_ text: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: Array(text))
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < parser.bytes.count {
            throw parser.error("unexpected \(parser.describeCurrent()) after the top-level value")
        }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard let byte = self.peek() else { throw self.error("unexpected end of file, expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try self.parseObject()
        case UInt8(ascii: "["): return try self.parseArray()
        case UInt8(ascii: "\""): return .string(try self.parseString())
        case UInt8(ascii: "t"): try self.expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try self.expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try self.expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try self.parseNumber())
        default: throw self.error("unexpected \(self.describeCurrent()), expected a value")
        }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try self.enterContainer()
        self.index += 1
        var members: [(key: String, value: JSONValue)] = []
        self.skipWhitespace()
        if self.peek() == UInt8(ascii: "}") {
            self.index += 1
            self.depth -= 1
            return .object(members)
        }
        while true {
            self.skipWhitespace()
            guard self.peek() == UInt8(ascii: "\"") else {
                throw self.error("unexpected \(self.describeCurrent()), expected a quoted key")
            }
            let key = try self.parseString()
            self.skipWhitespace()
            guard self.peek() == UInt8(ascii: ":") else {
                throw self.error("unexpected \(self.describeCurrent()), expected ':' after key \"\(key)\"")
            }
            self.index += 1
            self.skipWhitespace()
            members.append((key, try self.parseValue()))
            self.skipWhitespace()
            switch self.peek() {
            case UInt8(ascii: ","): self.index += 1
            case UInt8(ascii: "}"):
                self.index += 1
                self.depth -= 1
                return .object(members)
            default: throw self.error("unexpected \(self.describeCurrent()), expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try self.enterContainer()
        self.index += 1
        var elements: [JSONValue] = []
        self.skipWhitespace()
        if self.peek() == UInt8(ascii: "]") {
            self.index += 1
            self.depth -= 1
            return .array(elements)
        }
        while true {
            self.skipWhitespace()
            elements.append(try self.parseValue())
            self.skipWhitespace()
            switch self.peek() {
            case UInt8(ascii: ","): self.index += 1
            case UInt8(ascii: "]"):
                self.index += 1
                self.depth -= 1
                return .array(elements)
            default: throw self.error("unexpected \(self.describeCurrent()), expected ',' or ']'")
            }
        }
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        self.index += 1
        var scalars = String.UnicodeScalarView()
        var run: [UInt8] = []
        func flush(_ run: inout [UInt8], into scalars: inout String.UnicodeScalarView) {
            scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
            run.removeAll(keepingCapacity: true)
        }
        while let byte = self.peek() {
            switch byte {
            case UInt8(ascii: "\""):
                self.index += 1
                flush(&run, into: &scalars)
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush(&run, into: &scalars)
                self.index += 1
                guard let escape = self.peek() else { break }
                self.index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"): scalars.append(try self.parseUnicodeEscape())
                default:
                    self.index -= 1
                    throw self.error("invalid escape '\\\(Character(Unicode.Scalar(escape)))' in string")
                }
            case 0..<0x20:
                throw self.error("control character in string (escape it, e.g. \\n)")
            default:
                run.append(byte)
                self.index += 1
            }
        }
        throw self.error("unterminated string")
    }

    private mutating func parseUnicodeEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        let high = try self.parseHex4()
        if (0xD800..<0xDC00).contains(high) {
            guard self.peek() == UInt8(ascii: "\\"), self.peek(at: 1) == UInt8(ascii: "u") else {
                throw self.error("unpaired UTF-16 surrogate in \\u escape")
            }
            self.index += 2
            let low = try self.parseHex4()
            guard (0xDC00..<0xE000).contains(low) else { throw self.error("invalid UTF-16 surrogate pair") }
            let value = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            if let scalar = Unicode.Scalar(value) { return scalar }
        } else if let scalar = Unicode.Scalar(high) {
            return scalar
        }
        throw self.error("invalid \\u escape")
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = self.peek(), let digit = Self.hexValue(byte) else {
                throw self.error("expected four hex digits after \\u")
            }
            value = value << 4 | UInt32(digit)
            self.index += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> Double {
        let start = self.index
        func isDigit(_ byte: UInt8?) -> Bool { byte.map { (0x30...0x39).contains($0) } ?? false }
        if self.peek() == UInt8(ascii: "-") { self.index += 1 }
        guard isDigit(self.peek()) else { throw self.error("invalid number") }
        if self.peek() == UInt8(ascii: "0") {
            self.index += 1
            if isDigit(self.peek()) { throw self.error("invalid number: leading zeros are not allowed") }
        } else {
            while isDigit(self.peek()) { self.index += 1 }
        }
        if self.peek() == UInt8(ascii: ".") {
            self.index += 1
            guard isDigit(self.peek()) else { throw self.error("invalid number: expected a digit after '.'") }
            while isDigit(self.peek()) { self.index += 1 }
        }
        if self.peek() == UInt8(ascii: "e") || self.peek() == UInt8(ascii: "E") {
            self.index += 1
            if self.peek() == UInt8(ascii: "+") || self.peek() == UInt8(ascii: "-") { self.index += 1 }
            guard isDigit(self.peek()) else { throw self.error("invalid number: expected an exponent") }
            while isDigit(self.peek()) { self.index += 1 }
        }
        let text = String(decoding: self.bytes[start..<self.index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            self.index = start
            throw self.error("number out of range")
        }
        return value
    }

    private mutating func expectWord(_ word: StaticString) throws(JSONSyntaxError) {
        let expected = word.withUTF8Buffer { Array($0) }
        guard self.index + expected.count <= self.bytes.count,
            Array(self.bytes[self.index..<self.index + expected.count]) == expected
        else {
            throw self.error("unexpected \(self.describeCurrent()), expected a value")
        }
        self.index += expected.count
    }

    private mutating func enterContainer() throws(JSONSyntaxError) {
        self.depth += 1
        if self.depth > Self.maximumDepth { throw self.error("nesting deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func skipWhitespace() {
        while let byte = self.peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            self.index += 1
        }
    }

    private func peek(at offset: Int = 0) -> UInt8? {
        let position = self.index + offset
        return position < self.bytes.count ? self.bytes[position] : nil
    }

    private func describeCurrent() -> String {
        guard let byte = self.peek() else { return "end of file" }
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16))"
    }

    private func error(_ message: String) -> JSONSyntaxError {
        var line = 1
        var lineStart = 0
        for position in 0..<min(self.index, self.bytes.count) where self.bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        // Columns count characters, not bytes, so a message points at the right place in an editor.
        let prefix = self.bytes[lineStart..<min(self.index, self.bytes.count)]
        let column = String(decoding: prefix, as: UTF8.self).count + 1
        return JSONSyntaxError(line: line, column: column, message: message)
    }
}
