import CYAML

/// A YAML document read into nodes, with libyaml (Debian's libyaml-0-2) doing the parsing.
///
/// Written here rather than with Yams: Yams imports Foundation, which links FoundationInternationalization and ICU
/// (34 MB of data, most of the binary and of its resident memory: docs/PERFORMANCE.md). libyaml is the parser Yams
/// itself wraps; what is left to write is the composer below: nodes from events, aliases, and the check that a
/// mapping's keys are unique. The common shape of front matter (`key: value` lines) is read a line at a time by
/// `YAMLLines` first, for speed; it takes only what libyaml reads the same, and hands everything else on.
package indirect enum YAMLNode: Sendable, Equatable {
    case scalar(YAMLNode.Scalar)
    case mapping(YAMLNode.Mapping)
    case sequence([YAMLNode])

    package var scalar: YAMLNode.Scalar? {
        guard case .scalar(let scalar) = self else { return nil }
        return scalar
    }

    package var mapping: YAMLNode.Mapping? {
        guard case .mapping(let mapping) = self else { return nil }
        return mapping
    }

    package var sequence: [YAMLNode]? {
        guard case .sequence(let sequence) = self else { return nil }
        return sequence
    }

    /// The text of a scalar; nil for a mapping or a sequence.
    package var string: String? { self.scalar?.string }

    /// Reads `yaml`'s first document; nil when it holds none (an empty front matter).
    package static func compose(_ yaml: String) throws(YAMLError) -> YAMLNode? {
        var composer = Composer()
        return try composer.compose(yaml).node
    }

    /// `compose`, with what a writer appending top-level keys after the text's last line needs to know
    /// (`FrontMatterStamper`): how many nodes the document holds, and whether it takes such keys.
    package static func composeForAppending(_ yaml: String) throws(YAMLError) -> Composed {
        var composer = Composer(lookingPastTheDocument: true)
        return try composer.compose(yaml)
    }

    /// `composeForAppending` by libyaml alone, for the tests and the fuzz check that hold `YAMLLines` to it.
    package static func composeWithLibYAML(_ yaml: String, lookingPastTheDocument: Bool) throws(YAMLError) -> Composed {
        var composer = Composer(lookingPastTheDocument: lookingPastTheDocument, byLines: false)
        return try composer.compose(yaml)
    }

    /// `composeForAppending` by `YAMLLines` alone: nil when the text is not of its shape.
    package static func composeByLines(_ yaml: String, lookingPastTheDocument: Bool) -> Composed? {
        guard yaml.utf8.count <= YAMLLimit.maximumBytes else { return nil }
        var text = yaml
        return text.withUTF8 { YAMLLines.compose($0, lookingPastTheDocument: lookingPastTheDocument) }
    }

    /// A document composed by `composeForAppending`.
    package struct Composed: Sendable, Equatable {
        /// Its root node; nil when the text holds none.
        package var node: YAMLNode?
        /// Its nodes, aliases counted as what they repeat (as `YAMLLimit.nodes` counts them).
        package var nodes: Int
        /// Its root is a block mapping whose keys stand in the first column (no anchor or tag on it), and nothing
        /// follows the document in the text (no `...`, no second document). Then text that starts on a new line
        /// with a key in the first column, composed on its own as a block mapping, is read after it as more pairs of
        /// that mapping, whatever the text's last value was: a block scalar, plain or indentless sequence ends at a
        /// line in the first column, and the text composed whole, so nothing else is left open.
        package var takesKeysAfterIt: Bool
    }
}

extension YAMLNode {
    package struct Scalar: Sendable, Equatable {
        package var string: String
        /// Written without quotes or a block indicator (`1`, not `"1"` or `|`): only such a scalar's type is read
        /// from its text.
        package var plain: Bool
        /// The tag written on it (`!!str 1`), as libyaml gives it: `tag:yaml.org,2002:str`.
        package var tag: String?

        package init(string: String, plain: Bool = true, tag: String? = nil) {
            self.string = string
            self.plain = plain
            self.tag = tag
        }

        /// The scalar's type as YAML 1.1's default schema reads it (Yams' default resolver, PyYAML's): the tag written
        /// on it; for a plain scalar, what its text looks like (`1` an int, `yes` a bool, `~` null); otherwise a string.
        package var resolvedTag: String {
            if let tag, tag != "!" { return tag }
            guard self.plain else { return Self.stringTag }
            for (name, pattern) in Self.rules where pattern?.wholeMatches(self.string) ?? false {
                return "tag:yaml.org,2002:" + name
            }
            return Self.stringTag
        }

        static let stringTag = "tag:yaml.org,2002:str"

        /// YAML 1.1's implicit types, in the order the default resolver tries them.
        private static let rules: [(String, Pattern?)] = [
            ("bool", Pattern(#"yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"#)),
            (
                "int",
                Pattern(
                    #"[-+]?0b[0-1_]+|[-+]?0o?[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+"#
                )
            ),
            (
                "float",
                Pattern(
                    #"[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"#
                )
            ),
            ("merge", Pattern("<<")),
            ("null", Pattern("~|null|Null|NULL|")),
            (
                "timestamp",
                Pattern(
                    #"[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?"#
                )
            ),
            ("value", Pattern("=")),
        ]
    }

}

extension YAMLNode {
    /// A mapping's pairs in the order written.
    package struct Mapping: Sendable, Equatable, Sequence {
        package var pairs: [(key: YAMLNode, value: YAMLNode)]

        package init(_ pairs: [(key: YAMLNode, value: YAMLNode)]) { self.pairs = pairs }

        /// The value of the first key whose text is `key`.
        package subscript(key: String) -> YAMLNode? {
            self.pairs.first { $0.key.string == key }?.value
        }

        package var count: Int { self.pairs.count }

        package func makeIterator() -> IndexingIterator<[(key: YAMLNode, value: YAMLNode)]> {
            self.pairs.makeIterator()
        }

        package static func == (lhs: Mapping, rhs: Mapping) -> Bool {
            lhs.pairs.count == rhs.pairs.count
                && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        }
    }

}

/// Why a text is not YAML, and where: `line` and `column` count from 1.
package struct YAMLError: Error, Sendable, Equatable, CustomStringConvertible {
    package var line: Int
    package var column: Int
    package var problem: String
    /// The bound the text went past (it may be valid YAML, too large to read); nil for YAML that is not valid.
    package var limit: YAMLLimit?

    package init(line: Int, column: Int, problem: String, limit: YAMLLimit? = nil) {
        (self.line, self.column, self.problem, self.limit) = (line, column, problem, limit)
    }

    package var description: String { "line \(self.line), column \(self.column): \(self.problem)" }
}

/// How much YAML the composer reads: front matter comes from anyone's files, and nesting (`[[[[…`) or aliases
/// (`&a [*b, *b, …]`, the "billion laughs") could otherwise take the stack or the memory. A diary's front matter
/// nests two or three levels and holds a few dozen nodes; these bounds are far above that.
package enum YAMLLimit: Sendable, Equatable, CustomStringConvertible {
    /// Sequences and mappings inside one another.
    case depth
    /// Nodes, each alias counted as the nodes it stands for.
    case nodes
    /// The text itself.
    case bytes

    package static let maximumDepth = 64
    package static let maximumNodes = 10_000
    package static let maximumBytes = 256 << 10

    package var description: String { self.said.english }

    /// What it says of a front matter, in words a view says in its reader's language.
    package var said: Said {
        switch self {
        case .depth: return Said("nests deeper than {levels} levels", ["levels": .text(String(Self.maximumDepth))])
        case .nodes:
            return Said(
                "holds more than {nodes} nodes (aliases counted as what they repeat)",
                ["nodes": .text(String(Self.maximumNodes))])
        case .bytes: return Said("is larger than {size} KiB", ["size": .text(String(Self.maximumBytes >> 10))])
        }
    }
}

/// Builds nodes from libyaml's events, without recursion: an open sequence or mapping is a frame on a stack of at
/// most `YAMLLimit.maximumDepth`, so no input decides how deep the call stack goes. (libyaml's own parser keeps its
/// state on the heap.)
private struct Composer {
    /// What each anchor stands for, and how many nodes it counts as.
    private var anchors: [String: (node: YAMLNode, weight: Int)] = [:]
    /// Nodes composed so far, aliases counted as what they repeat.
    private var nodes = 0
    /// Whether `compose` reads on past the first document's root to learn whether anything follows it
    /// (`YAMLNode.Composed.takesKeysAfterIt`).
    private let lookingPastTheDocument: Bool
    /// The root is a mapping of block style, in the first column, with no anchor or tag.
    private var rootIsBareBlockMapping = false

    /// Whether the common shape of front matter is read a line at a time (`YAMLLines`), libyaml reading the rest.
    private let byLines: Bool

    init(lookingPastTheDocument: Bool = false, byLines: Bool = true) {
        self.lookingPastTheDocument = lookingPastTheDocument
        self.byLines = byLines
    }

    /// An open collection: its anchor, what it holds so far and how many nodes that is.
    private struct Frame {
        enum Content {
            case sequence([YAMLNode])
            /// The pairs, the key waiting for its value (and where it stood), and the pairs' indexes by key text
            /// once there are `Composer.indexedPairs` of them (nil before: a front matter's mappings hold a few
            /// keys, and a dictionary with an array for each key cost more than looking at those few).
            case mapping([(key: YAMLNode, value: YAMLNode)], key: (YAMLNode, yaml_mark_t)?, seen: [String: [Int]]?)
        }
        var anchor: String?
        var content: Content
        var weight = 1
    }

    mutating func compose(_ yaml: String) throws(YAMLError) -> YAMLNode.Composed {
        guard yaml.utf8.count <= YAMLLimit.maximumBytes else {
            throw YAMLError(line: 1, column: 1, problem: "the text \(YAMLLimit.bytes)", limit: .bytes)
        }
        var text = yaml
        let result: Result<YAMLNode.Composed, YAMLError> = text.withUTF8 { bytes in
            if self.byLines,
                let composed = YAMLLines.compose(bytes, lookingPastTheDocument: self.lookingPastTheDocument)
            {
                return .success(composed)
            }
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else {
                return .failure(YAMLError(line: 1, column: 1, problem: "out of memory"))
            }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(&parser, bytes.baseAddress, bytes.count)
            do throws(YAMLError) {
                let node = try self.document(&parser)
                let takesKeys =
                    node != nil && self.lookingPastTheDocument && self.rootIsBareBlockMapping
                    && Self.endsWithTheDocument(&parser)
                return .success(YAMLNode.Composed(node: node, nodes: self.nodes, takesKeysAfterIt: takesKeys))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Whether the stream ends right after the document whose root was just read: its end is implicit (no `...`)
    /// and no other document follows. What follows is not composed; an error in it is a no.
    private static func endsWithTheDocument(_ parser: inout yaml_parser_t) -> Bool {
        guard var end = try? Self.next(&parser) else { return false }
        defer { yaml_event_delete(&end) }
        guard end.type == YAML_DOCUMENT_END_EVENT, end.data.document_end.implicit != 0 else { return false }
        guard var stream = try? Self.next(&parser) else { return false }
        defer { yaml_event_delete(&stream) }
        return stream.type == YAML_STREAM_END_EVENT
    }

    /// The stream's first document: its root node, or nil when the stream is empty.
    private mutating func document(_ parser: inout yaml_parser_t) throws(YAMLError) -> YAMLNode? {
        var stack: [Frame] = []
        var inDocument = false
        while true {
            var event = try Self.next(&parser)
            defer { yaml_event_delete(&event) }
            let mark = event.start_mark
            // The node this event completes, and how many nodes it counts as.
            let completed: (node: YAMLNode, weight: Int)
            switch event.type {
            case YAML_STREAM_END_EVENT where !inDocument: return nil
            case YAML_DOCUMENT_START_EVENT where !inDocument:
                inDocument = true
                continue
            case _ where !inDocument: continue
            case YAML_ALIAS_EVENT:
                let name = Self.string(event.data.alias.anchor)
                guard let name, let anchored = self.anchors[name] else {
                    throw Self.error(at: mark, "found undefined alias \(name ?? "")")
                }
                completed = anchored
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let value = String(
                    decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                let node = YAMLNode.scalar(
                    YAMLNode.Scalar(
                        string: value, plain: scalar.style == YAML_PLAIN_SCALAR_STYLE, tag: Self.string(scalar.tag)))
                self.remember(node, weight: 1, as: Self.string(scalar.anchor))
                completed = (node, 1)
            case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                guard stack.count < YAMLLimit.maximumDepth else {
                    throw Self.error(at: mark, "the front matter \(YAMLLimit.depth)", limit: .depth)
                }
                let sequence = event.type == YAML_SEQUENCE_START_EVENT
                if stack.isEmpty, !sequence {
                    let start = event.data.mapping_start
                    self.rootIsBareBlockMapping =
                        start.style == YAML_BLOCK_MAPPING_STYLE && start.anchor == nil && start.tag == nil
                        && mark.column == 0
                }
                stack.append(
                    Frame(
                        anchor: Self.string(
                            sequence ? event.data.sequence_start.anchor : event.data.mapping_start.anchor),
                        content: sequence ? .sequence([]) : .mapping([], key: nil, seen: nil)))
                try self.count(1, at: mark)
                continue
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let frame = stack.popLast() else { throw Self.error(at: mark, "unexpected event") }
                let node: YAMLNode
                switch frame.content {
                case .sequence(let items): node = .sequence(items)
                case .mapping(let pairs, _, _): node = .mapping(YAMLNode.Mapping(pairs))
                }
                self.remember(node, weight: frame.weight, as: frame.anchor)
                // Counted when it opened, with its content as it came.
                guard !stack.isEmpty else { return node }
                stack[stack.count - 1].weight += frame.weight
                try Self.add(node, to: &stack[stack.count - 1], at: mark)
                continue
            default:
                throw Self.error(at: mark, "unexpected event")
            }
            try self.count(completed.weight, at: mark)
            guard !stack.isEmpty else { return completed.node }
            stack[stack.count - 1].weight += completed.weight
            try Self.add(completed.node, to: &stack[stack.count - 1], at: mark)
        }
    }

    /// Adds a node composed inside `frame`: an item, a key, or a key's value.
    private static func add(_ node: YAMLNode, to frame: inout Frame, at mark: yaml_mark_t) throws(YAMLError) {
        switch frame.content {
        case .sequence(var items):
            frame.content = .sequence([])
            items.append(node)
            frame.content = .sequence(items)
        case .mapping(let pairs, nil, let seen):
            frame.content = .mapping(pairs, key: (node, mark), seen: seen)
        case .mapping(var pairs, let key?, var seen):
            // (Emptied while changed, so that the pairs are not copied.)
            frame.content = .mapping([], key: nil, seen: nil)
            // Keys are unique as the default schema sees them: `1` (an int) and `"1"` (a string) are two keys,
            // `a` and `"a"` one. Types are read only for keys whose texts meet.
            // Few pairs: each compared (a scalar's text first; a collection can only repeat a collection).
            let earlier: [Int] =
                seen.map { $0[Self.identity(of: key.0)] ?? [] }
                ?? pairs.indices.filter { Self.sameText(pairs[$0].key, key.0) }
            for earlier in earlier where Self.sameKey(pairs[earlier].key, key.0) {
                let text = Self.identity(of: key.0)
                throw Self.error(at: key.1, "found duplicate key \(key.0.string.map { "'\($0)'" } ?? text)")
            }
            if seen == nil, pairs.count + 1 >= Self.indexedPairs {
                seen = Dictionary(grouping: pairs.indices) { Self.identity(of: pairs[$0].key) }
            }
            if seen != nil { seen?[Self.identity(of: key.0), default: []].append(pairs.count) }
            pairs.append((key.0, node))
            frame.content = .mapping(pairs, key: nil, seen: seen)
        }
    }

    /// How many pairs a mapping holds before its keys are looked up by text rather than each compared.
    static let indexedPairs = 16

    private mutating func count(_ weight: Int, at mark: yaml_mark_t) throws(YAMLError) {
        self.nodes += weight
        guard self.nodes <= YAMLLimit.maximumNodes else {
            throw Self.error(at: mark, "the front matter \(YAMLLimit.nodes)", limit: .nodes)
        }
    }

    private mutating func remember(_ node: YAMLNode, weight: Int, as anchor: String?) {
        if let anchor { self.anchors[anchor] = (node, weight) }
    }

    private static func identity(of node: YAMLNode) -> String {
        switch node {
        case .scalar(let scalar): return scalar.string
        case .sequence, .mapping: return "\(node)"
        }
    }

    /// Whether two keys could be one: scalars with the same text, or two collections (`sameKey` compares those
    /// whole); as their `identity` texts meeting would say, without writing a collection out as text.
    private static func sameText(_ first: YAMLNode, _ second: YAMLNode) -> Bool {
        switch (first, second) {
        case (.scalar(let a), .scalar(let b)): return a.string == b.string
        case (.scalar, _), (_, .scalar): return false
        default: return true
        }
    }

    private static func sameKey(_ first: YAMLNode, _ second: YAMLNode) -> Bool {
        guard case .scalar(let a) = first, case .scalar(let b) = second else { return first == second }
        if a.plain == b.plain && a.tag == b.tag { return true }
        return a.resolvedTag == b.resolvedTag
    }

    private static func next(_ parser: inout yaml_parser_t) throws(YAMLError) -> yaml_event_t {
        var event = yaml_event_t()
        guard yaml_parser_parse(&parser, &event) == 1 else {
            let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
            // Newer libyaml (Yams' copy, linked into the tests) has a nesting bound of its own: the same bound.
            if problem.hasPrefix("Maximum nesting level reached") {
                throw Self.error(at: parser.problem_mark, "the front matter \(YAMLLimit.depth)", limit: .depth)
            }
            throw Self.error(at: parser.problem_mark, problem)
        }
        return event
    }

    private static func error(at mark: yaml_mark_t, _ problem: String, limit: YAMLLimit? = nil) -> YAMLError {
        YAMLError(line: Int(mark.line) + 1, column: Int(mark.column) + 1, problem: problem, limit: limit)
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}
