import CYAML

/// A YAML document read into nodes, with libyaml (Debian's libyaml-0-2) doing the parsing.
///
/// Written here rather than with Yams: Yams imports Foundation, which links FoundationInternationalization and ICU
/// (34 MB of data, most of the binary and of its resident memory: docs/PERFORMANCE.md). libyaml is the parser Yams
/// itself wraps; what is left to write is the composer below: nodes from events, aliases, and the check that a
/// mapping's keys are unique.
public indirect enum YAMLNode: Sendable, Equatable {
    case scalar(YAMLNode.Scalar)
    case mapping(YAMLNode.Mapping)
    case sequence([YAMLNode])

    public var scalar: YAMLNode.Scalar? {
        guard case .scalar(let scalar) = self else { return nil }
        return scalar
    }

    public var mapping: YAMLNode.Mapping? {
        guard case .mapping(let mapping) = self else { return nil }
        return mapping
    }

    public var sequence: [YAMLNode]? {
        guard case .sequence(let sequence) = self else { return nil }
        return sequence
    }

    /// The text of a scalar; nil for a mapping or a sequence.
    public var string: String? { self.scalar?.string }

    /// Reads `yaml`'s first document; nil when it holds none (an empty front matter).
    public static func compose(_ yaml: String) throws(YAMLError) -> YAMLNode? {
        var composer = Composer()
        return try composer.compose(yaml)
    }
}

extension YAMLNode {
    public struct Scalar: Sendable, Equatable {
        public var string: String
        /// Written without quotes or a block indicator (`1`, not `"1"` or `|`): only such a scalar's type is read
        /// from its text.
        public var plain: Bool
        /// The tag written on it (`!!str 1`), as libyaml gives it: `tag:yaml.org,2002:str`.
        public var tag: String?

        public init(string: String, plain: Bool = true, tag: String? = nil) {
            self.string = string
            self.plain = plain
            self.tag = tag
        }

        /// The scalar's type as YAML 1.1's default schema reads it (Yams' default resolver, PyYAML's): the tag written
        /// on it; for a plain scalar, what its text looks like (`1` an int, `yes` a bool, `~` null); otherwise a string.
        public var resolvedTag: String {
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
    public struct Mapping: Sendable, Equatable, Sequence {
        public var pairs: [(key: YAMLNode, value: YAMLNode)]

        public init(_ pairs: [(key: YAMLNode, value: YAMLNode)]) { self.pairs = pairs }

        /// The value of the first key whose text is `key`.
        public subscript(key: String) -> YAMLNode? {
            self.pairs.first { $0.key.string == key }?.value
        }

        public var count: Int { self.pairs.count }

        public func makeIterator() -> IndexingIterator<[(key: YAMLNode, value: YAMLNode)]> {
            self.pairs.makeIterator()
        }

        public static func == (lhs: Mapping, rhs: Mapping) -> Bool {
            lhs.pairs.count == rhs.pairs.count
                && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        }
    }

}

/// Why a text is not YAML, and where: `line` and `column` count from 1.
public struct YAMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var problem: String

    public var description: String { "line \(self.line), column \(self.column): \(self.problem)" }
}

/// Builds nodes from libyaml's events.
private struct Composer {
    private var anchors: [String: YAMLNode] = [:]

    mutating func compose(_ yaml: String) throws(YAMLError) -> YAMLNode? {
        var text = yaml
        let result: Result<YAMLNode?, YAMLError> = text.withUTF8 { bytes in
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else {
                return .failure(YAMLError(line: 1, column: 1, problem: "out of memory"))
            }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(&parser, bytes.baseAddress, bytes.count)
            do throws(YAMLError) {
                return .success(try self.document(&parser))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The stream's first document: its root node, or nil when the stream is empty.
    private mutating func document(_ parser: inout yaml_parser_t) throws(YAMLError) -> YAMLNode? {
        while true {
            var event = try Self.next(&parser)
            defer { yaml_event_delete(&event) }
            switch event.type {
            case YAML_STREAM_END_EVENT: return nil
            case YAML_DOCUMENT_START_EVENT:
                var root = try Self.next(&parser)
                defer { yaml_event_delete(&root) }
                return try self.node(from: &root, &parser)
            default: continue
            }
        }
    }

    private mutating func node(
        from event: inout yaml_event_t, _ parser: inout yaml_parser_t
    ) throws(YAMLError)
        -> YAMLNode
    {
        switch event.type {
        case YAML_ALIAS_EVENT:
            let name = Self.string(event.data.alias.anchor)
            guard let name, let node = self.anchors[name] else {
                throw Self.error(at: event.start_mark, "found undefined alias \(name ?? "")")
            }
            return node
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let value = String(
                decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
            let node = YAMLNode.scalar(
                YAMLNode.Scalar(
                    string: value, plain: scalar.style == YAML_PLAIN_SCALAR_STYLE, tag: Self.string(scalar.tag)))
            self.remember(node, as: Self.string(scalar.anchor))
            return node
        case YAML_SEQUENCE_START_EVENT:
            let anchor = Self.string(event.data.sequence_start.anchor)
            var items: [YAMLNode] = []
            while true {
                var item = try Self.next(&parser)
                defer { yaml_event_delete(&item) }
                if item.type == YAML_SEQUENCE_END_EVENT { break }
                items.append(try self.node(from: &item, &parser))
            }
            let node = YAMLNode.sequence(items)
            self.remember(node, as: anchor)
            return node
        case YAML_MAPPING_START_EVENT:
            let anchor = Self.string(event.data.mapping_start.anchor)
            var pairs: [(key: YAMLNode, value: YAMLNode)] = []
            var seen: [String: [Int]] = [:]
            while true {
                var keyEvent = try Self.next(&parser)
                defer { yaml_event_delete(&keyEvent) }
                if keyEvent.type == YAML_MAPPING_END_EVENT { break }
                let mark = keyEvent.start_mark
                let key = try self.node(from: &keyEvent, &parser)
                var valueEvent = try Self.next(&parser)
                defer { yaml_event_delete(&valueEvent) }
                let value = try self.node(from: &valueEvent, &parser)
                // Keys are unique as the default schema sees them: `1` (an int) and `"1"` (a string) are two keys,
                // `a` and `"a"` one. Types are read only for keys whose texts meet.
                let text = Self.identity(of: key)
                for earlier in seen[text, default: []] where Self.sameKey(pairs[earlier].key, key) {
                    throw Self.error(at: mark, "found duplicate key \(key.string.map { "'\($0)'" } ?? text)")
                }
                seen[text, default: []].append(pairs.count)
                pairs.append((key, value))
            }
            let node = YAMLNode.mapping(YAMLNode.Mapping(pairs))
            self.remember(node, as: anchor)
            return node
        default:
            throw Self.error(at: event.start_mark, "unexpected event")
        }
    }

    private mutating func remember(_ node: YAMLNode, as anchor: String?) {
        if let anchor { self.anchors[anchor] = node }
    }

    private static func identity(of node: YAMLNode) -> String {
        switch node {
        case .scalar(let scalar): return scalar.string
        case .sequence, .mapping: return "\(node)"
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
            throw Self.error(at: parser.problem_mark, problem)
        }
        return event
    }

    private static func error(at mark: yaml_mark_t, _ problem: String) -> YAMLError {
        YAMLError(line: Int(mark.line) + 1, column: Int(mark.column) + 1, problem: problem)
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}
