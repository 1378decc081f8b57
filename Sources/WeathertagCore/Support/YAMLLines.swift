/// The front matter most diaries hold, composed a line at a time without libyaml: `key: value` lines, mappings
/// nested under a `key:` line by their indentation, comments and empty lines. Anything else is left to libyaml.
///
/// Why written here, when libyaml reads all of it: libyaml's parser and the composer's work on its events took about
/// 100,000 instructions for a front matter of 16 lines, 14 % of a rebuild of the index (docs/PERFORMANCE.md); these
/// lines take about 40,000, most of it the nodes themselves. The reader is deliberately narrow and never
/// reports an error: it reads only text that libyaml composes to the same nodes, and text outside its shape, or with
/// a mistake in it, goes to libyaml, which says what is wrong. The two are held to each other by
/// `YAMLLinesTests` (the YAML test suite's cases, the fuzz corpora and the shapes at each edge of the one below) and
/// by the front matter fuzzer, which reads every input both ways.
///
/// The shape:
/// - every byte one libyaml reads as printable, lines ending in LF; no tab, CR, NEL, LS, PS or byte order mark;
/// - each line empty, a comment (`#` after spaces), or a key at the indentation of an open mapping:
///   `[A-Za-z_][A-Za-z0-9_-]*`, shorter than 1,024 bytes (libyaml's bound for a key on one line), then `:`;
/// - after `key:` and a space, a value on the same line: a plain scalar that starts with no indicator (a `-` only
///   before a non-space: `-3.5`), holds no `: ` and ends with the line or at ` #`; or a quoted one without escapes
///   (no `\` between double quotes, no `''` between single ones) followed by nothing but spaces and a comment;
/// - or a flow sequence of such scalars on the line (`tags: [diary, rain]`: `YAMLLines.sequence`);
/// - or nothing after `key:` but spaces and a comment: then either a mapping follows, indented further, or the value
///   is null (plain, empty, as libyaml gives it);
/// - the first key in the first column; no key twice in a mapping; at most `YAMLLimit`'s depth and nodes.
enum YAMLLines {
    /// `text` composed, or nil when it is not of the shape above (libyaml reads it then).
    static func compose(_ text: UnsafeBufferPointer<UInt8>, lookingPastTheDocument: Bool) -> YAMLNode.Composed? {
        guard Self.printable(text) else { return nil }
        var reader = Reader()
        var start = 0
        while start < text.count {
            var end = start
            while end < text.count && text[end] != 0x0A { end += 1 }
            guard reader.read(UnsafeBufferPointer(rebasing: text[start..<end])) else { return nil }
            start = end + 1
        }
        guard let root = reader.finish() else { return nil }
        // A root mapping in the first column, and nothing after it but what the lines above allow: no `...`, no
        // second document (`YAMLNode.Composed.takesKeysAfterIt`).
        return YAMLNode.Composed(node: root, nodes: reader.nodes, takesKeysAfterIt: lookingPastTheDocument)
    }

    /// Whether every byte is one libyaml reads as printable (`yaml_parser_update_buffer`), in valid UTF-8, with
    /// LF the only line break and no tab, CR, NEL, LS, PS or byte order mark (which the shape leaves to libyaml).
    static func printable(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < text.count {
            let byte = text[index]
            if byte < 0x80 {
                guard (byte >= 0x20 && byte != 0x7F) || byte == 0x0A else { return false }
                index += 1
                continue
            }
            guard let (scalar, length) = Self.decode(text, at: index) else { return false }
            switch scalar {
            case ..<0xA0, 0x2028, 0x2029, 0xD800...0xDFFF, 0xFEFF, 0xFFFE, 0xFFFF: return false
            default: index += length
            }
        }
        return true
    }

    /// The code point of the UTF-8 sequence at `index` (its first byte not ASCII) and its length; nil when the
    /// sequence is not valid (cut short, overlong, or past U+10FFFF).
    private static func decode(_ text: UnsafeBufferPointer<UInt8>, at index: Int) -> (UInt32, Int)? {
        let first = UInt32(text[index])
        let (length, bits, least): (Int, UInt32, UInt32)
        switch first {
        case 0xC2...0xDF: (length, bits, least) = (2, first & 0x1F, 0x80)
        case 0xE0...0xEF: (length, bits, least) = (3, first & 0x0F, 0x800)
        case 0xF0...0xF4: (length, bits, least) = (4, first & 0x07, 0x1_0000)
        default: return nil
        }
        guard index + length <= text.count else { return nil }
        var scalar = bits
        for offset in 1..<length {
            let next = UInt32(text[index + offset])
            guard next & 0xC0 == 0x80 else { return nil }
            scalar = scalar << 6 | next & 0x3F
        }
        guard scalar >= least, scalar <= 0x10_FFFF else { return nil }
        return (scalar, length)
    }

    /// The mappings open at a line, outermost first, and the key read last when nothing followed it.
    private struct Reader {
        struct Level {
            /// The column of its keys.
            var indent: Int
            /// The key in the mapping around it whose value it is; nil for the root.
            var key: YAMLNode?
            var pairs: [(key: YAMLNode, value: YAMLNode)] = []
            /// Its keys' texts, once it holds `Reader.indexedPairs` of them (before, each is compared).
            var keys: Set<String>?

            mutating func add(_ key: YAMLNode, _ value: YAMLNode) {
                self.pairs.append((key, value))
                if self.keys != nil {
                    self.keys?.insert(key.string ?? "")
                } else if self.pairs.count == Reader.indexedPairs {
                    self.keys = Set(self.pairs.map { $0.key.string ?? "" })
                }
            }

            func holds(_ key: String) -> Bool {
                if let keys = self.keys { return keys.contains(key) }
                return self.pairs.contains { $0.key.string == key }
            }
        }

        static let indexedPairs = 16
        private static let null = YAMLNode.scalar(YAMLNode.Scalar(string: ""))

        private var levels: [Level] = []
        /// A key with nothing after it on its line, in the innermost mapping: its value is the mapping the next
        /// key opens, indented further, or null.
        private var waiting: YAMLNode?
        /// Nodes read, as `YAMLLimit.nodes` counts them: each mapping and each scalar.
        private(set) var nodes = 0

        /// Reads one line (without its LF); false when it is not of the shape.
        mutating func read(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
            var column = 0
            while column < line.count && line[column] == 0x20 { column += 1 }
            // A line of spaces alone is left to libyaml; an empty one and a comment are nothing.
            guard column < line.count else { return line.isEmpty }
            if line[column] == UInt8(ascii: "#") { return true }
            guard let colon = YAMLLines.key(line, from: column), self.open(at: column) else { return false }
            let text = String(decoding: UnsafeBufferPointer(rebasing: line[column..<colon]), as: UTF8.self)
            guard !self.levels[self.levels.count - 1].holds(text) else { return false }
            let key = YAMLNode.scalar(YAMLNode.Scalar(string: text))
            // After the colon: the end of the line, or spaces and then a value or a comment.
            var start = colon + 1
            guard start == line.count || line[start] == 0x20 else { return false }
            while start < line.count && line[start] == 0x20 { start += 1 }
            if start == line.count || line[start] == UInt8(ascii: "#") {
                self.waiting = key
                return self.count(1)
            }
            if line[start] == UInt8(ascii: "[") {
                // A flow sequence is one level more, as the composer counts it.
                guard self.levels.count < YAMLLimit.maximumDepth, let items = YAMLLines.sequence(line, from: start)
                else { return false }
                self.levels[self.levels.count - 1].add(key, .sequence(items))
                return self.count(2 + items.count)
            }
            guard let value = YAMLLines.scalar(line, from: start) else { return false }
            self.levels[self.levels.count - 1].add(key, value)
            return self.count(2)
        }

        /// Makes the mapping a key at `column` belongs to the innermost: a new one under the waiting key when it is
        /// indented further, else the open one whose keys stand in that column (those inside it are done).
        private mutating func open(at column: Int) -> Bool {
            guard let innermost = self.levels.last else {
                guard column == 0 else { return false }
                self.levels.append(Level(indent: 0))
                return self.count(1)
            }
            if let key = self.waiting {
                self.waiting = nil
                if column > innermost.indent {
                    guard self.levels.count < YAMLLimit.maximumDepth else { return false }
                    self.levels.append(Level(indent: column, key: key))
                    return self.count(1)
                }
                self.levels[self.levels.count - 1].add(key, Self.null)
                guard self.count(1) else { return false }
            }
            while column < self.levels[self.levels.count - 1].indent { self.close() }
            return column == self.levels[self.levels.count - 1].indent
        }

        /// The innermost mapping, done: the value of its key in the one around it.
        private mutating func close() {
            let level = self.levels.removeLast()
            self.levels[self.levels.count - 1].add(level.key ?? Self.null, .mapping(YAMLNode.Mapping(level.pairs)))
        }

        private mutating func count(_ nodes: Int) -> Bool {
            self.nodes += nodes
            return self.nodes <= YAMLLimit.maximumNodes
        }

        /// The root mapping, every mapping closed; nil when no line held a key (libyaml says what the text is).
        mutating func finish() -> YAMLNode? {
            guard !self.levels.isEmpty else { return nil }
            if let key = self.waiting {
                self.levels[self.levels.count - 1].add(key, Self.null)
                self.waiting = nil
                guard self.count(1) else { return nil }
            }
            while self.levels.count > 1 { self.close() }
            return .mapping(YAMLNode.Mapping(self.levels[0].pairs))
        }
    }

    /// The index of the colon after a key that starts at `start`; nil when the line does not start with one.
    static func key(_ line: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        func isLetter(_ byte: UInt8) -> Bool {
            (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
        }
        guard isLetter(line[start]) || line[start] == UInt8(ascii: "_") else { return nil }
        var index = start + 1
        while index < line.count, index - start < 1024 {
            let byte = line[index]
            if byte == UInt8(ascii: ":") { return index }
            guard
                isLetter(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            else { return nil }
            index += 1
        }
        return nil
    }

    /// The scalar that starts at `start` and ends the line (spaces and a comment may follow); nil when it is not
    /// one of the shape.
    static func scalar(_ line: UnsafeBufferPointer<UInt8>, from start: Int) -> YAMLNode? {
        let first = line[start]
        switch first {
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            var end = start + 1
            while end < line.count && line[end] != first {
                if first == UInt8(ascii: "\"") && line[end] == UInt8(ascii: "\\") { return nil }
                end += 1
            }
            // Closed on this line, and only spaces and a comment after it (a second `'` would be an escape).
            guard end < line.count, Self.nothingBut(line, from: end + 1) else { return nil }
            let text = String(decoding: UnsafeBufferPointer(rebasing: line[(start + 1)..<end]), as: UTF8.self)
            return .scalar(YAMLNode.Scalar(string: text, plain: false))
        case UInt8(ascii: "-"):
            guard start + 1 < line.count, line[start + 1] != 0x20 else { return nil }
        default:
            // The indicators a plain scalar may not start with (`-` above; `#` is a comment, taken by the caller).
            guard !"?:,[]{}&*!|>%@`".utf8.contains(first) else { return nil }
        }
        var end = start
        var index = start
        while index < line.count {
            let byte = line[index]
            index += 1
            if byte == 0x20 {
                if index < line.count && line[index] == UInt8(ascii: "#") { break }
                continue
            }
            // `: ` (or a colon at the end) would make it a key, or a mistake.
            if byte == UInt8(ascii: ":") && (index == line.count || line[index] == 0x20) { return nil }
            end = index
        }
        return .scalar(
            YAMLNode.Scalar(string: String(decoding: UnsafeBufferPointer(rebasing: line[start..<end]), as: UTF8.self)))
    }

    /// The items of a flow sequence of scalars on one line (`tags: [diary, "rain", new york]`), which ends the line
    /// (spaces and a comment may follow); nil when it is not one of the shape. Its plain items are words: letters,
    /// digits, `_-./+~`, bytes past ASCII and spaces between them (no flow indicator, colon, `#` or quote in them);
    /// quoted ones are as in a mapping's value. No empty item, no comma after the last.
    static func sequence(_ line: UnsafeBufferPointer<UInt8>, from start: Int) -> [YAMLNode]? {
        func isWordByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "/"), UInt8(ascii: "+"), UInt8(ascii: "~"), 0x80...:
                return true
            default: return false
            }
        }
        var items: [YAMLNode] = []
        var index = start + 1
        while index < line.count && line[index] == 0x20 { index += 1 }
        if index < line.count && line[index] == UInt8(ascii: "]") {
            return Self.nothingBut(line, from: index + 1) ? items : nil
        }
        while index < line.count {
            let first = line[index]
            let end: Int
            if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
                var close = index + 1
                while close < line.count && line[close] != first {
                    if first == UInt8(ascii: "\"") && line[close] == UInt8(ascii: "\\") { return nil }
                    close += 1
                }
                guard close < line.count else { return nil }
                let text = String(decoding: UnsafeBufferPointer(rebasing: line[(index + 1)..<close]), as: UTF8.self)
                items.append(.scalar(YAMLNode.Scalar(string: text, plain: false)))
                end = close + 1
            } else {
                // A `-` starts a word only before a non-space (`-3`); otherwise it would be a block entry.
                guard isWordByte(first),
                    first != UInt8(ascii: "-") || (index + 1 < line.count && line[index + 1] != 0x20)
                else { return nil }
                var last = index
                var next = index
                while next < line.count && (isWordByte(line[next]) || line[next] == 0x20) {
                    if line[next] != 0x20 { last = next + 1 }
                    next += 1
                }
                let text = String(decoding: UnsafeBufferPointer(rebasing: line[index..<last]), as: UTF8.self)
                items.append(.scalar(YAMLNode.Scalar(string: text)))
                end = next
            }
            index = end
            while index < line.count && line[index] == 0x20 { index += 1 }
            guard index < line.count else { return nil }
            if line[index] == UInt8(ascii: "]") { return Self.nothingBut(line, from: index + 1) ? items : nil }
            guard line[index] == UInt8(ascii: ",") else { return nil }
            index += 1
            while index < line.count && line[index] == 0x20 { index += 1 }
        }
        return nil
    }

    /// Whether the line holds only spaces from `start`, then perhaps a comment after one of them.
    private static func nothingBut(_ line: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        var index = start
        while index < line.count && line[index] == 0x20 { index += 1 }
        return index == line.count || (index > start && line[index] == UInt8(ascii: "#"))
    }
}
