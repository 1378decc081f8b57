import FoundationEssentials

/// What a weather block says of itself, read from its lines as they stand in the file (the block form, or Obsidian's
/// properties): the instant its weather was of, the day that was on the place's own clock, whether it is current
/// weather or the weather of an entry's own hour, and a fingerprint.
///
/// Read line by line, without composing YAML: an entry found stamped is read so at every listing that finds it
/// changed, and a batch remembers the fingerprint of every block it writes.
package struct StampFacts: Sendable, Equatable {
    /// What kind of weather a block holds (`kind`, `weather_kind`).
    package enum Kind: String, Sendable, Equatable {
        case current
        case historical
    }

    /// The instant of its weather (`observed_at`; `local_time` at its offset; `weather_local_time` at
    /// `weather_utc_offset`); nil when the block does not say (`stamp.fields` without them).
    package var observed: Date?
    /// `2026-11-22`: the day of its weather on the place's own clock, when the block says.
    package var localDay: String?
    package var kind: Kind?
    /// The same for the same block and for the same properties written again in another order or quoting (as
    /// Obsidian writes the whole front matter again when a property is edited): each line's indentation, key and
    /// value without quotes, hashed, the lines' hashes summed. What the memory looks a block up by.
    package var fingerprint: Int64

    package init(block lines: [String]) {
        var values: [String: String] = [:]
        self.fingerprint = Self.read(lines) { indent, key, value in
            // Keys of the first level of the block (two spaces in) and properties (none) only: `location:`'s
            // `source` is not the block's.
            guard indent <= 2 else { return }
            let name = String(decoding: key, as: UTF8.self)
            if values[name] == nil { values[name] = String(decoding: value, as: UTF8.self) }
        }
        self.kind = (values["kind"] ?? values["weather_kind"]).flatMap(Kind.init(rawValue:))
        if let observed = values["observed_at"].flatMap(Date.init(iso8601WithOffset:)) {
            self.observed = observed
        } else if let local = values["local_time"], let instant = Date(iso8601WithOffset: local) {
            self.observed = instant
        } else if let local = values["weather_local_time"], let offset = values["weather_utc_offset"],
            let instant = Date(iso8601WithOffset: local + offset)
        {
            self.observed = instant
        }
        let local = values["local_time"] ?? values["weather_local_time"]
        self.localDay = local.flatMap { $0.utf8.count >= 10 ? String($0.prefix(10)) : nil }
    }

    /// The fingerprint of `lines` alone (`init(block:)`'s, without reading the times): what a batch remembers with
    /// every block it writes, so it reads bytes and makes no string.
    package static func fingerprint(_ lines: [String]) -> Int64 {
        Self.read(lines) { _, _, _ in }
    }

    /// Each line's indentation, key and unquoted value (spaces and tabs around them trimmed) to `pair`; the
    /// fingerprint of them all: each line's own hash (its indentation, key and value), mixed, then summed, so that
    /// the lines' order is no matter (and a line twice counts twice).
    private static func read(_ lines: [String], _ pair: (Int, Bytes, Bytes) -> Void) -> Int64 {
        var sum: UInt64 = 0
        for var line in lines {
            // A native string's bytes are read where they are: no copy for the batches' fingerprints.
            line.makeContiguousUTF8()
            sum &+= line.utf8.withContiguousStorageIfAvailable { Self.line($0, pair) } ?? 0
        }
        return Int64(bitPattern: sum)
    }

    typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>

    /// One line's mixed hash, its key and value told to `pair`.
    private static func line(_ buffer: UnsafeBufferPointer<UInt8>, _ pair: (Int, Bytes, Bytes) -> Void) -> UInt64 {
        let bytes = buffer[...]
        let indent = bytes.prefix { $0 == 0x20 }.count
        let text = Self.trimmed(bytes)
        var hash: UInt64 = Self.offsetBasis
        Self.mix(&hash, UInt8(truncatingIfNeeded: indent))
        if let colon = text.firstIndex(of: UInt8(ascii: ":")) {
            let key = Self.trimmed(text[..<colon])
            let value = Self.unquoted(Self.trimmed(text[(colon + 1)...]))
            pair(indent, key, value)
            for byte in key { Self.mix(&hash, byte) }
            Self.mix(&hash, UInt8(ascii: ":"))
            for byte in value { Self.mix(&hash, byte) }
        } else {
            for byte in text { Self.mix(&hash, byte) }
        }
        return Self.finalized(hash)
    }

    private static func trimmed(_ bytes: Bytes) -> Bytes {
        let blank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D }
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) })
        else { return bytes[bytes.startIndex..<bytes.startIndex] }
        return bytes[first...last]
    }

    /// A value without the quotes around it.
    private static func unquoted(_ value: Bytes) -> Bytes {
        guard value.count >= 2, let first = value.first, first == UInt8(ascii: "\"") || first == UInt8(ascii: "'"),
            value.last == first
        else { return value }
        return value.dropFirst().dropLast()
    }

    // 64-bit FNV-1a for each line, then a finalizer (MurmurHash3's fmix64) so that the lines' sum spreads: a hash
    // that stays the same from one run and one machine to the next (Swift's `Hasher` is seeded per process), for a
    // column of the state database.
    private static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325

    private static func mix(_ hash: inout UInt64, _ byte: UInt8) {
        hash ^= UInt64(byte)
        hash &*= 0x0000_0100_0000_01B3
    }

    private static func finalized(_ hash: UInt64) -> UInt64 {
        var value = hash
        value ^= value >> 33
        value &*= 0xff51_afd7_ed55_8ccd
        value ^= value >> 33
        value &*= 0xc4ce_b9fe_1a85_ec53
        value ^= value >> 33
        return value
    }
}
