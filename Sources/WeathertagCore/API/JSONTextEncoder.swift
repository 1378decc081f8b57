/// Writes an `Encodable` value as compact JSON text while it is encoded: the same text, byte for byte, as
/// `JSONValueEncoder().encode(value).serialized`, without the two trees that path builds on the way (a node for
/// every value, then a `JSONValue` for every node).
///
/// Why it exists beside `JSONValueEncoder` (there is no JSON library in the package mirror, and Foundation's
/// `JSONEncoder` writes keys in hash order on Linux): `GET /v1/status`, which status bars and scripts poll, cost
/// 280 µs of the daemon's CPU, and its document's encoding was 83 % of the answer's own part, most of it the trees'
/// allocations and reference counting. Written as it is encoded, that document takes 47 µs instead of 120 (perf, 500
/// answers of the 4.7 KB status after a burst), and an answer 193 µs.
///
/// It writes each member as it comes, which is how every synthesized `encode(to:)` and every document of the API
/// uses its containers. An `encode(to:)` may do more with `Encodable`'s containers: write a key twice (the tree keeps
/// its first place and its last value), write to a container after a nested one it opened later, write a value twice
/// into one place, or throw. Text written in order cannot take those back, so on any of them the value is encoded
/// again by `JSONValueEncoder`, and the answer (or the error) is that one's.
package struct JSONTextEncoder {
    package init() {}

    package func encode(_ value: some Encodable) throws -> String {
        let writer = JSONTextWriter()
        do {
            try value.encode(to: TextEncoder(writer: writer, slot: JSONTextWriter.rootSlot))
        } catch {
            return try JSONValueEncoder().encode(value).serialized
        }
        guard writer.state.finish() else { return try JSONValueEncoder().encode(value).serialized }
        return String(decoding: writer.state.out, as: UTF8.self)
    }
}

/// The text being written, shared by the encoders and containers of one value.
private final class JSONTextWriter {
    /// All that changes, in one value: each step is one access to it (a class's stored properties are checked for
    /// exclusive access at every use, which was a sixth of the encoding when each append was one).
    var state = State()

    /// A place a value goes: the root, a member after its key, an element after its comma.
    struct Slot {
        let serial: Int
    }

    static let rootSlot = Slot(serial: 0)
    /// A place that is none: what a container the text cannot follow hands out.
    static let noSlot = Slot(serial: -1)

    struct Frame {
        let id: Int
        let isObject: Bool
        var count = 0
        /// Where this object's keys start in `keys`.
        let firstKey: Int
    }

    struct State {
        var out: [UInt8] = []
        /// The containers open in the text, innermost last.
        var frames: [Frame] = []
        /// The hashes of the open objects' keys, each object's after its parent's: a key written twice is sent to
        /// the tree (so is a key whose hash another one shares, which costs only the second encoding).
        var keys: [Int] = []
        /// The place written up to its value, which has not come yet (`null` if none comes).
        var pending: Slot? = JSONTextWriter.rootSlot
        /// The container the last place opened, for an `encode(to:)` that asks its encoder for it again.
        var opened: (slot: Int, frame: Int)?
        /// Set when the value used its containers in a way text written in order cannot follow.
        var invalid = false
        var serials = 0
        var frameIDs = 0

        init() {
            self.out.reserveCapacity(1024)
        }

        /// Closes what is open (a place still waiting gets `null`): whether the text is the value's.
        mutating func finish() -> Bool {
            guard !self.invalid else { return false }
            while !self.frames.isEmpty { self.closeInnermost() }
            if self.pending != nil { self.out.append(contentsOf: "null".utf8) }
            return true
        }

        /// Makes the container `frame` at `level` the innermost one, closing those opened inside it; false (and the
        /// text invalid) when it was closed already.
        mutating func settle(_ level: Int, _ frame: Int) -> Bool {
            guard !self.invalid, level >= 0, level < self.frames.count, self.frames[level].id == frame else {
                self.invalid = true
                return false
            }
            while self.frames.count > level + 1 { self.closeInnermost() }
            if self.pending != nil {
                self.out.append(contentsOf: "null".utf8)
                self.pending = nil
            }
            return true
        }

        private mutating func closeInnermost() {
            if self.pending != nil {
                self.out.append(contentsOf: "null".utf8)
                self.pending = nil
            }
            let frame = self.frames.removeLast()
            if frame.isObject { self.keys.removeSubrange(frame.firstKey...) }
            self.out.append(frame.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }

        /// Settles the object at `level` and starts its member `key`: its comma and key; false when the text cannot
        /// follow (the object closed, or the key written already).
        private mutating func member(_ key: String, at level: Int, _ frame: Int) -> Bool {
            guard self.settle(level, frame) else { return false }
            let hash = key.hashValue
            if self.keys[self.frames[level].firstKey...].contains(hash) {
                self.invalid = true
                return false
            }
            self.keys.append(hash)
            self.comma(level)
            YAMLScalar.appendQuoted(key, to: &self.out)
            self.out.append(UInt8(ascii: ":"))
            return true
        }

        /// Settles the array at `level` and starts an element; false when the text cannot follow.
        private mutating func element(at level: Int, _ frame: Int) -> Bool {
            guard self.settle(level, frame) else { return false }
            self.comma(level)
            return true
        }

        private mutating func comma(_ level: Int) {
            if self.frames[level].count > 0 { self.out.append(UInt8(ascii: ",")) }
            self.frames[level].count += 1
        }

        /// A place for a value that comes after it.
        private mutating func slot() -> Slot {
            self.serials += 1
            let slot = Slot(serial: self.serials)
            self.pending = slot
            return slot
        }

        /// Takes `slot` for its value: false (and the text invalid) when it is not the place waiting.
        private mutating func take(_ slot: Slot) -> Bool {
            guard !self.invalid, self.pending?.serial == slot.serial else {
                self.invalid = true
                return false
            }
            self.pending = nil
            return true
        }

        /// Opens a container in `slot`, or finds the one it opened (settled): its level and id.
        mutating func open(_ slot: Slot, object: Bool) -> (level: Int, frame: Int)? {
            if let opened = self.opened, opened.slot == slot.serial, !self.invalid,
                let level = self.frames.lastIndex(where: { $0.id == opened.frame }),
                self.frames[level].isObject == object, self.settle(level, opened.frame)
            {
                return (level, opened.frame)
            }
            guard self.take(slot) else { return nil }
            self.frameIDs += 1
            self.frames.append(Frame(id: self.frameIDs, isObject: object, firstKey: self.keys.count))
            self.opened = (slot.serial, self.frameIDs)
            self.out.append(object ? UInt8(ascii: "{") : UInt8(ascii: "["))
            return (self.frames.count - 1, self.frameIDs)
        }

        mutating func null() { self.out.append(contentsOf: "null".utf8) }
        mutating func number(_ value: Double) { JSONValue.appendNumber(value, to: &self.out) }
        mutating func string(_ value: String) { YAMLScalar.appendQuoted(value, to: &self.out) }
        mutating func bool(_ value: Bool) { self.out.append(contentsOf: (value ? "true" : "false").utf8) }

        /// The place of the member `key` of the object at `level`, its key written; `noSlot` when the text cannot
        /// follow.
        mutating func withMember(_ key: String, at level: Int, _ frame: Int) -> Slot {
            self.member(key, at: level, frame) ? self.slot() : JSONTextWriter.noSlot
        }

        /// The place of the next element of the array at `level`; `noSlot` when the text cannot follow.
        mutating func withElement(at level: Int, _ frame: Int) -> Slot {
            self.element(at: level, frame) ? self.slot() : JSONTextWriter.noSlot
        }

        /// How many elements the array at `level` has (0 once it is closed).
        func count(at level: Int, _ frame: Int) -> Int {
            level >= 0 && level < self.frames.count && self.frames[level].id == frame ? self.frames[level].count : 0
        }

        /// A scalar into `slot`.
        mutating func put(_ slot: Slot, _ write: (inout State) -> Void) {
            if self.take(slot) { write(&self) }
        }

        /// A scalar as the member `key` of the object at `level`.
        mutating func put(_ key: String, at level: Int, _ frame: Int, _ write: (inout State) -> Void) {
            if self.member(key, at: level, frame) { write(&self) }
        }

        /// A scalar as the next element of the array at `level`.
        mutating func put(at level: Int, _ frame: Int, _ write: (inout State) -> Void) {
            if self.element(at: level, frame) { write(&self) }
        }
    }
}

/// The encoder of one place: the root, a member's value, an element.
private struct TextEncoder: Encoder {
    let writer: JSONTextWriter
    let slot: JSONTextWriter.Slot
    // Not kept: an error sends the value to `JSONValueEncoder`, whose errors carry it.
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let opened = self.writer.state.open(self.slot, object: true)
        return KeyedEncodingContainer(
            TextKeyedContainer(writer: self.writer, level: opened?.level ?? -1, frame: opened?.frame ?? -1))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let opened = self.writer.state.open(self.slot, object: false)
        return TextUnkeyedContainer(writer: self.writer, level: opened?.level ?? -1, frame: opened?.frame ?? -1)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        TextSingleValueContainer(writer: self.writer, slot: self.slot)
    }
}

private struct TextSingleValueContainer: SingleValueEncodingContainer {
    let writer: JSONTextWriter
    let slot: JSONTextWriter.Slot
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() { self.writer.state.put(self.slot) { $0.null() } }
    mutating func encode(_ value: Bool) { self.writer.state.put(self.slot) { $0.bool(value) } }
    mutating func encode(_ value: String) { self.writer.state.put(self.slot) { $0.string(value) } }
    mutating func encode(_ value: Double) { self.number(value) }
    mutating func encode(_ value: Float) { self.number(Double(value)) }
    mutating func encode(_ value: Int) { self.number(Double(value)) }
    mutating func encode(_ value: Int8) { self.number(Double(value)) }
    mutating func encode(_ value: Int16) { self.number(Double(value)) }
    mutating func encode(_ value: Int32) { self.number(Double(value)) }
    mutating func encode(_ value: Int64) { self.number(Double(value)) }
    mutating func encode(_ value: UInt) { self.number(Double(value)) }
    mutating func encode(_ value: UInt8) { self.number(Double(value)) }
    mutating func encode(_ value: UInt16) { self.number(Double(value)) }
    mutating func encode(_ value: UInt32) { self.number(Double(value)) }
    mutating func encode(_ value: UInt64) { self.number(Double(value)) }
    mutating func encode(_ value: some Encodable) throws {
        try value.encode(to: TextEncoder(writer: self.writer, slot: self.slot))
    }

    private func number(_ value: Double) { self.writer.state.put(self.slot) { $0.number(value) } }
}

private struct TextKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: JSONTextWriter
    let level: Int
    let frame: Int
    var codingPath: [any CodingKey] { [] }

    /// The place of the member `key`, its key written; `noSlot` when the text cannot follow.
    private func value(_ key: Key) -> JSONTextWriter.Slot {
        let level = self.level
        let frame = self.frame
        return self.writer.state.withMember(key.stringValue, at: level, frame)
    }

    private func put(_ key: Key, _ write: (inout JSONTextWriter.State) -> Void) {
        self.writer.state.put(key.stringValue, at: self.level, self.frame, write)
    }

    mutating func encodeNil(forKey key: Key) { self.put(key) { $0.null() } }
    mutating func encode(_ value: Bool, forKey key: Key) { self.put(key) { $0.bool(value) } }
    mutating func encode(_ value: String, forKey key: Key) { self.put(key) { $0.string(value) } }
    mutating func encode(_ value: Double, forKey key: Key) { self.put(key) { $0.number(value) } }
    mutating func encode(_ value: Int, forKey key: Key) { self.put(key) { $0.number(Double(value)) } }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try value.encode(to: TextEncoder(writer: self.writer, slot: self.value(key)))
    }

    // Synthesized `encode(to:)` writes optionals with `encodeIfPresent`, which by default leaves a nil out: as in
    // `JSONValueEncoder`, it is written as null.
    mutating func encodeIfPresent(_ value: (some Encodable)?, forKey key: Key) throws {
        guard let value else { return self.encodeNil(forKey: key) }
        try self.encode(value, forKey: key)
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        self.put(key) { state in value.map { state.bool($0) } ?? state.null() }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        self.put(key) { state in value.map { state.string($0) } ?? state.null() }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { self.optional(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        self.optional(value.map(Double.init), key)
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { self.optional(value.map(Double.init), key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { self.optional(value.map(Double.init), key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        self.optional(value.map(Double.init), key)
    }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        self.optional(value.map(Double.init), key)
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        self.optional(value.map(Double.init), key)
    }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { self.optional(value.map(Double.init), key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        self.optional(value.map(Double.init), key)
    }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        self.optional(value.map(Double.init), key)
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        self.optional(value.map(Double.init), key)
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        self.optional(value.map(Double.init), key)
    }

    private func optional(_ value: Double?, _ key: Key) {
        self.put(key) { state in value.map { state.number($0) } ?? state.null() }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        TextEncoder(writer: self.writer, slot: self.value(key)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        TextEncoder(writer: self.writer, slot: self.value(key)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        // `JSONValueEncoder` writes it under "super", where this object may have a member of its own: the tree's.
        self.writer.state.invalid = true
        return TextEncoder(writer: self.writer, slot: JSONTextWriter.noSlot)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        TextEncoder(writer: self.writer, slot: self.value(key))
    }
}

private struct TextUnkeyedContainer: UnkeyedEncodingContainer {
    let writer: JSONTextWriter
    let level: Int
    let frame: Int
    var codingPath: [any CodingKey] { [] }
    var count: Int { self.writer.state.count(at: self.level, self.frame) }

    /// The place of the next element; `noSlot` when the text cannot follow.
    private func value() -> JSONTextWriter.Slot { self.writer.state.withElement(at: self.level, self.frame) }

    private func put(_ write: (inout JSONTextWriter.State) -> Void) {
        self.writer.state.put(at: self.level, self.frame, write)
    }

    mutating func encodeNil() { self.put { $0.null() } }
    mutating func encode(_ value: Bool) { self.put { $0.bool(value) } }
    mutating func encode(_ value: String) { self.put { $0.string(value) } }
    mutating func encode(_ value: Double) { self.put { $0.number(value) } }
    mutating func encode(_ value: Int) { self.put { $0.number(Double(value)) } }
    mutating func encode(_ value: some Encodable) throws {
        try value.encode(to: TextEncoder(writer: self.writer, slot: self.value()))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        TextEncoder(writer: self.writer, slot: self.value()).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        TextEncoder(writer: self.writer, slot: self.value()).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { TextEncoder(writer: self.writer, slot: self.value()) }
}
