/// Words decided in one place and said in another, in the reader's language: a message of the catalog (its English,
/// `tr`'s id) and what fills its `{name}`s, each data or another such message. The daemon decides why an entry is
/// left alone and keeps it in the index (`encoded`); `why` says it in the reader's language, `GET /v1/entries` in
/// English (`english`).
///
/// `tools/make-pot.py` finds each `Said("…")` as it finds `tr("…")`. Text kept before there were messages (an index
/// an older version wrote) is `verbatim`: said as it is.
package struct Said: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// What fills a name.
    package indirect enum Argument: Sendable, Equatable, Hashable {
        /// Data, said as it is: a path, a number, a time, an error a system or a service gave.
        case text(String)
        /// Another message, said in the same language.
        case said(Said)
    }

    /// The message's English (the catalog's id), or text to say as it is.
    package let message: String
    /// Whether `message` is text to say as it is rather than a message of the catalog.
    package let verbatim: Bool
    package let arguments: [(name: String, value: Argument)]

    package init(_ message: StaticString, _ arguments: KeyValuePairs<String, Argument> = [:]) {
        self.message = message.description
        self.verbatim = false
        // (By name: the same message with the same arguments is equal however it was made or read back.)
        self.arguments = arguments.map { ($0.key, $0.value) }.sorted { $0.name < $1.name }
    }

    /// Text said as it is, in every language (data, or words kept before there were messages).
    package init(verbatim text: String) {
        self.message = text
        self.verbatim = true
        self.arguments = []
    }

    private init(message: String, verbatim: Bool, arguments: [(name: String, value: Argument)]) {
        (self.message, self.verbatim) = (message, verbatim)
        self.arguments = arguments.sorted { $0.name < $1.name }
    }

    /// In English: what machines read (`GET /v1/entries`' `detail`, logs).
    package var english: String { self.said(.english) }

    package var description: String { self.english }

    /// In `words`' language.
    package func said(_ words: Messages) -> String {
        guard !self.verbatim else { return self.message }
        let filled = self.arguments.map { name, value -> (key: String, value: String) in
            switch value {
            case .text(let text): return (name, text)
            case .said(let said): return (name, said.said(words))
            }
        }
        return words.translated(self.message, filled)
    }

    package static func == (left: Said, right: Said) -> Bool {
        left.message == right.message && left.verbatim == right.verbatim
            && left.arguments.elementsEqual(right.arguments) { $0.name == $1.name && $0.value == $1.value }
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(self.message)
        hasher.combine(self.verbatim)
        for (name, value) in self.arguments {
            hasher.combine(name)
            hasher.combine(value)
        }
    }

    // MARK: Kept in the index

    /// How deep messages may nest in what is read back (`Said` nests two deep at most).
    static let maximumDepth = 4

    /// As the index keeps it: the message, then each name and its value, each a line of its own with its escapes
    /// (`\\`, `\n`); a nested message between `{` and `}` lines. Text without the mark is verbatim.
    package var encoded: String {
        guard !self.verbatim else { return self.message }
        var lines = [Self.mark]
        self.encode(into: &lines)
        return lines.joined(separator: "\n")
    }

    /// What `encoded` gave, read back; text that is not an encoded message is verbatim. Bounded: nesting deeper
    /// than `maximumDepth`, or lines that do not pair, read as verbatim text.
    package init(decoding text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == Substring(Self.mark) else {
            self.init(verbatim: text)
            return
        }
        var index = 1
        guard let said = Self.decode(lines, &index, depth: 0), index == lines.count else {
            self.init(verbatim: text)
            return
        }
        self = said
    }

    private static let mark = "\u{1}said"

    private func encode(into lines: inout [String]) {
        lines.append(Self.escaped(self.message))
        lines.append(String(self.arguments.count))
        for (name, value) in self.arguments {
            lines.append(Self.escaped(name))
            switch value {
            case .text(let text): lines.append("=" + Self.escaped(text))
            case .said(let said):
                lines.append("{")
                said.encode(into: &lines)
            }
        }
    }

    private static func decode(_ lines: [Substring], _ index: inout Int, depth: Int) -> Said? {
        guard depth < Self.maximumDepth, index + 1 < lines.count, let count = Int(lines[index + 1]),
            (0...16).contains(count)
        else { return nil }
        let message = Self.unescaped(lines[index])
        index += 2
        var arguments: [(name: String, value: Argument)] = []
        for _ in 0..<count {
            guard index + 1 < lines.count else { return nil }
            let name = Self.unescaped(lines[index])
            let value = lines[index + 1]
            index += 2
            if value.first == "=" {
                arguments.append((name, .text(Self.unescaped(value.dropFirst()))))
            } else if value == "{", let nested = Self.decode(lines, &index, depth: depth + 1) {
                arguments.append((name, .said(nested)))
            } else {
                return nil
            }
        }
        return Said(message: message, verbatim: false, arguments: arguments)
    }

    private static func escaped(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("\n", with: "\\n")
    }

    private static func unescaped(_ text: Substring) -> String {
        var result = ""
        var escaping = false
        for character in text {
            if escaping {
                result.append(character == "n" ? "\n" : character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}

extension Said {
    /// A message as `GET /v1/entries` gives it beside its English (`detail_message`): a list of messages, the first
    /// the whole, each argument text or the place in the list of the message that fills it (always a later place).
    /// A list rather than nested objects, so that reading it back needs no recursion the document decides.
    package struct Node: Codable, Sendable, Equatable {
        package var message: String
        package var arguments: [String: Value]

        package init(message: String, arguments: [String: Value]) {
            (self.message, self.arguments) = (message, arguments)
        }

        private enum CodingKeys: String, CodingKey {
            case message, arguments
        }

        private struct Name: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.message = try container.decode(String.self, forKey: .message)
            self.arguments = try container.decode([String: Value].self, forKey: .arguments)
        }

        /// The arguments by name, in order: the same document whatever order a dictionary keeps them in.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.message, forKey: .message)
            var arguments = container.nestedContainer(keyedBy: Name.self, forKey: .arguments)
            for name in self.arguments.keys.sorted() {
                try arguments.encode(self.arguments[name], forKey: Name(stringValue: name))
            }
        }
    }

    /// What fills a name in a `Node`.
    package enum Value: Codable, Sendable, Equatable {
        case text(String)
        case node(Int)

        package init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let index = try? container.decode(Int.self) {
                self = .node(index)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let text): try container.encode(text)
            case .node(let index): try container.encode(index)
            }
        }
    }

    /// Its nodes, the whole first; nil for verbatim text (the English `detail` says it all).
    package var nodes: [Node]? {
        guard !self.verbatim else { return nil }
        var nodes: [Node] = []
        // Breadth first, without recursion: each message's place is known before its arguments are listed.
        var pending: [Said] = [self]
        var next = 0
        while next < pending.count {
            let said = pending[next]
            next += 1
            var arguments: [String: Value] = [:]
            for (name, value) in said.arguments {
                switch value {
                case .text(let text): arguments[name] = .text(text)
                case .said(let nested):
                    arguments[name] = .node(pending.count)
                    pending.append(nested)
                }
            }
            nodes.append(Node(message: said.message, arguments: arguments))
        }
        return nodes
    }

    /// The message `nodes` give; nil when they do not make one (empty, more than 16, a place that is not later).
    package init?(nodes: [Node]) {
        guard !nodes.isEmpty, nodes.count <= 16 else { return nil }
        // Built from the last to the first: every place an argument names is later, so it is built already.
        var built: [Said?] = Array(repeating: nil, count: nodes.count)
        for index in nodes.indices.reversed() {
            var arguments: [(name: String, value: Argument)] = []
            for (name, value) in nodes[index].arguments {
                switch value {
                case .text(let text): arguments.append((name, .text(text)))
                case .node(let place):
                    guard place > index, place < nodes.count, let nested = built[place] else { return nil }
                    arguments.append((name, .said(nested)))
                }
            }
            built[index] = Said(message: nodes[index].message, verbatim: false, arguments: arguments)
        }
        guard let whole = built[0] else { return nil }
        self = whole
    }
}
