/// Encodes `Encodable` values into a `JSONValue`, object keys in the order `encode(to:)` writes them; `serialized`
/// then gives the text.
///
/// Why not Foundation's `JSONEncoder`: on Linux it writes object keys in hash order (seen with Swift 6.3.1: a
/// different order from run to run), and the socket's documents keep one order, byte for byte, for the people who
/// read `status --json` and the scripts that diff it. Decoding needs no order: the CLI reads them with
/// `JSONDecoder`. An optional that is nil is written as null, not left out: a document always lists every field.
package struct JSONValueEncoder {
    package init() {}

    package func encode(_ value: some Encodable) throws -> JSONValue {
        let node = Node()
        try value.encode(to: NodeEncoder(node: node, codingPath: []))
        return node.value
    }
}

/// A value being built: containers write into it as they are filled.
private final class Node {
    enum Content {
        case value(JSONValue)
        case object([(key: String, node: Node)])
        case array([Node])
    }

    var content = Content.value(.null)

    var value: JSONValue {
        switch self.content {
        case .value(let value): return value
        case .object(let members): return .object(members.map { ($0.key, $0.node.value) })
        case .array(let elements): return .array(elements.map(\.value))
        }
    }

    /// The member for a key, made on first use (a key written twice keeps its first place).
    func member(_ key: String) -> Node {
        if case .object(let members) = self.content, let found = members.first(where: { $0.key == key }) {
            return found.node
        }
        let node = Node()
        if case .object(var members) = self.content {
            // Taken out first: appended while the content still held it, the array was copied at every member.
            self.content = .value(.null)
            members.append((key, node))
            self.content = .object(members)
        } else {
            self.content = .object([(key, node)])
        }
        return node
    }

    func append() -> Node {
        let node = Node()
        if case .array(var elements) = self.content {
            self.content = .value(.null)
            elements.append(node)
            self.content = .array(elements)
        } else {
            self.content = .array([node])
        }
        return node
    }
}

private struct NodeEncoder: Encoder {
    let node: Node
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = self.node.content {} else { self.node.content = .object([]) }
        return KeyedEncodingContainer(KeyedContainer(node: self.node, codingPath: self.codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = self.node.content {} else { self.node.content = .array([]) }
        return UnkeyedContainer(node: self.node, codingPath: self.codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(node: self.node, codingPath: self.codingPath)
    }
}

/// Numbers, strings, booleans and null: every other type is encoded through these.
private struct SingleValueContainer: SingleValueEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey]

    mutating func encodeNil() { self.node.content = .value(.null) }
    mutating func encode(_ value: Bool) { self.node.content = .value(.bool(value)) }
    mutating func encode(_ value: String) { self.node.content = .value(.string(value)) }
    mutating func encode(_ value: Double) { self.node.content = .value(.number(value)) }
    mutating func encode(_ value: Float) { self.node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int) { self.node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int8) { self.node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int16) { self.node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int32) { self.node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int64) { self.node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt) { self.node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt8) { self.node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt16) { self.node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt32) { self.node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt64) { self.node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: some Encodable) throws {
        try value.encode(to: NodeEncoder(node: self.node, codingPath: self.codingPath))
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    var codingPath: [any CodingKey]

    private func encoder(_ key: Key) -> NodeEncoder {
        NodeEncoder(node: self.node.member(key.stringValue), codingPath: self.codingPath + [key])
    }

    mutating func encodeNil(forKey key: Key) { self.node.member(key.stringValue).content = .value(.null) }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws { try value.encode(to: self.encoder(key)) }

    // Synthesized `encode(to:)` writes optionals with `encodeIfPresent`, which by default leaves a nil out: here it
    // is written as null, so that a document always lists every field.
    mutating func encodeIfPresent(_ value: (some Encodable)?, forKey key: Key) throws {
        guard let value else { return self.encodeNil(forKey: key) }
        try self.encode(value, forKey: key)
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try self.present(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try self.present(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try self.present(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try self.present(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try self.present(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try self.present(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try self.present(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try self.present(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try self.present(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try self.present(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try self.present(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try self.present(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try self.present(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try self.present(value, key) }

    private mutating func present(_ value: (some Encodable)?, _ key: Key) throws {
        guard let value else { return self.encodeNil(forKey: key) }
        try self.encode(value, forKey: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        self.encoder(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        self.encoder(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: self.node.member("super"), codingPath: self.codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder { self.encoder(key) }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey]
    var count: Int {
        if case .array(let elements) = self.node.content { return elements.count }
        return 0
    }

    private func encoder() -> NodeEncoder { NodeEncoder(node: self.node.append(), codingPath: self.codingPath) }

    mutating func encodeNil() { self.node.append().content = .value(.null) }
    mutating func encode(_ value: some Encodable) throws { try value.encode(to: self.encoder()) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    )
        -> KeyedEncodingContainer<NestedKey>
    {
        self.encoder().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self.encoder().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { self.encoder() }
}
