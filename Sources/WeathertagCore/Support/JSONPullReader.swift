/// A pull reader over a JSON document's bytes: the caller asks for the next value of the shape it expects (an
/// object's keys, an array's elements, a number, a string) and skips what it does not need, so nothing is built that
/// is not kept.
///
/// Why our own: a year of Open-Meteo's hours is a megabyte of JSON; `JSONDecoder` first builds the whole document's
/// tree and then arrays of optional `Double`s, several times the size of the 420 KB of floats kept
/// (`HourlySeries`), which was most of the daemon's memory during an import. Written for answers, not for
/// configuration (`JSONParser` reports lines and columns): strict enough to refuse what is not JSON, bounded in
/// nesting (`maximumDepth`) without recursion, and never trapping on any input (`JSONPullReaderTests`, the
/// `fuzz-json` target).
struct JSONPullReader {
    struct Malformed: Error {
        /// Why a caller's body stopped the read, when it was not the JSON itself (an import's entry that is wrong).
        var reason: String?

        init(reason: String? = nil) {
            self.reason = reason
        }
    }

    static let maximumDepth = 64

    private let bytes: [UInt8]
    private(set) var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The next byte that is not white space, not consumed.
    mutating func peek() -> UInt8? {
        while self.index < self.bytes.count {
            switch self.bytes[self.index] {
            case 0x20, 0x0A, 0x0D, 0x09: self.index += 1
            default: return self.bytes[self.index]
            }
        }
        return nil
    }

    private mutating func expect(_ byte: UInt8) throws(Malformed) {
        guard self.peek() == byte else { throw Malformed() }
        self.index += 1
    }

    /// Reads `{`, then calls `body` with each key, the reader on its value; `body` must read or skip the value.
    mutating func object(_ body: (inout JSONPullReader, String) throws(Malformed) -> Void) throws(Malformed) {
        try self.expect(UInt8(ascii: "{"))
        if self.peek() == UInt8(ascii: "}") {
            self.index += 1
            return
        }
        while true {
            let key = try self.string()
            try self.expect(UInt8(ascii: ":"))
            try body(&self, key)
            guard let next = self.peek() else { throw Malformed() }
            self.index += 1
            if next == UInt8(ascii: "}") { return }
            guard next == UInt8(ascii: ",") else { throw Malformed() }
        }
    }

    /// Reads `[`, then calls `body` with the reader on each element; `body` must read or skip it.
    mutating func array(_ body: (inout JSONPullReader) throws(Malformed) -> Void) throws(Malformed) {
        try self.expect(UInt8(ascii: "["))
        if self.peek() == UInt8(ascii: "]") {
            self.index += 1
            return
        }
        while true {
            try body(&self)
            guard let next = self.peek() else { throw Malformed() }
            self.index += 1
            if next == UInt8(ascii: "]") { return }
            guard next == UInt8(ascii: ",") else { throw Malformed() }
        }
    }

    /// `null`, consumed: true; anything else is left unread.
    mutating func null() throws(Malformed) -> Bool {
        guard self.peek() == UInt8(ascii: "n") else { return false }
        try self.word("null")
        return true
    }

    /// A number, or nil (unread) when the next value is not one.
    mutating func number() throws(Malformed) -> Double? {
        guard let first = self.peek(), first == UInt8(ascii: "-") || (0x30...0x39).contains(first) else { return nil }
        let start = self.index
        while self.index < self.bytes.count, Self.isNumberByte(self.bytes[self.index]) { self.index += 1 }
        // At most 32 bytes: a longer one is no number a service sends.
        guard self.index - start <= 32,
            let value = Double(String(decoding: self.bytes[start..<self.index], as: UTF8.self)), value.isFinite
        else { throw Malformed() }
        return value
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
    }

    /// A string, unescaped, or a `Malformed` when the next value is not one.
    mutating func string() throws(Malformed) -> String {
        try self.expect(UInt8(ascii: "\""))
        var scalars = String.UnicodeScalarView()
        var run = self.index
        func flush(_ end: Int, _ bytes: [UInt8], _ scalars: inout String.UnicodeScalarView) {
            if run < end {
                scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars)
            }
        }
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            if byte == UInt8(ascii: "\"") {
                flush(self.index, self.bytes, &scalars)
                self.index += 1
                return String(scalars)
            }
            guard byte >= 0x20 else { throw Malformed() }
            if byte == UInt8(ascii: "\\") {
                flush(self.index, self.bytes, &scalars)
                self.index += 1
                guard self.index < self.bytes.count else { throw Malformed() }
                let escaped = self.bytes[self.index]
                self.index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(Unicode.Scalar(escaped))
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    guard self.index + 4 <= self.bytes.count,
                        let code = UInt32(
                            String(decoding: self.bytes[self.index..<(self.index + 4)], as: UTF8.self), radix: 16)
                    else { throw Malformed() }
                    self.index += 4
                    // A lone or paired surrogate becomes U+FFFD: nothing weathertag reads is outside the BMP.
                    scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                default: throw Malformed()
                }
                run = self.index
                continue
            }
            self.index += 1
        }
        throw Malformed()
    }

    /// Skips the next value, whatever it is, keeping the open containers on a stack (never deeper than
    /// `maximumDepth`) rather than recursing.
    mutating func skip() throws(Malformed) {
        // true: an object.
        var open: [Bool] = []
        while true {
            guard let byte = self.peek() else { throw Malformed() }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                self.index += 1
                let isObject = byte == UInt8(ascii: "{")
                open.append(isObject)
                guard open.count <= Self.maximumDepth else { throw Malformed() }
                if self.peek() == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    self.index += 1
                    open.removeLast()
                } else {
                    if isObject {
                        _ = try self.string()
                        try self.expect(UInt8(ascii: ":"))
                    }
                    continue
                }
            case UInt8(ascii: "\""):
                _ = try self.string()
            case UInt8(ascii: "t"):
                try self.word("true")
            case UInt8(ascii: "f"):
                try self.word("false")
            case UInt8(ascii: "n"):
                try self.word("null")
            default:
                guard try self.number() != nil else { throw Malformed() }
            }
            // After a value: close what ends here, or go on to the next member or element.
            while let isObject = open.last {
                guard let next = self.peek() else { throw Malformed() }
                if next == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    self.index += 1
                    open.removeLast()
                    continue
                }
                guard next == UInt8(ascii: ",") else { throw Malformed() }
                self.index += 1
                if isObject {
                    _ = try self.string()
                    try self.expect(UInt8(ascii: ":"))
                }
                break
            }
            if open.isEmpty { return }
        }
    }

    private mutating func word(_ word: StaticString) throws(Malformed) {
        let count = word.utf8CodeUnitCount
        guard self.index + count <= self.bytes.count else { throw Malformed() }
        for offset in 0..<count where self.bytes[self.index + offset] != word.utf8Start[offset] { throw Malformed() }
        self.index += count
    }

    /// `true` or `false`, or nil (unread) when the next value is neither.
    mutating func bool() throws(Malformed) -> Bool? {
        switch self.peek() {
        case UInt8(ascii: "t"):
            try self.word("true")
            return true
        case UInt8(ascii: "f"):
            try self.word("false")
            return false
        default: return nil
        }
    }

    /// Whether only white space is left.
    mutating func atEnd() -> Bool { self.peek() == nil }

    /// The 1-based line of the byte at `offset`, for messages about a document a person has.
    func line(at offset: Int) -> Int {
        var line = 1
        for byte in self.bytes[..<min(offset, self.bytes.count)] where byte == 0x0A { line += 1 }
        return line
    }
}
