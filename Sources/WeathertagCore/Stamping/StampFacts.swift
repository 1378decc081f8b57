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
    /// Obsidian writes the whole front matter again when a property is edited): each line's key and its value
    /// without quotes, sorted, then hashed (64-bit FNV-1a). What the memory looks a block up by.
    package var fingerprint: Int64

    package init(block lines: [String]) {
        var values: [String: String] = [:]
        self.fingerprint = Self.read(lines) { indent, key, value in
            // Keys of the first level of the block (two spaces in) and properties (none) only: `location:`'s
            // `source` is not the block's.
            if indent <= 2, values[key] == nil { values[key] = value }
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
    /// every block it writes.
    package static func fingerprint(_ lines: [String]) -> Int64 {
        Self.read(lines) { _, _, _ in }
    }

    /// Each line's indentation, key and unquoted value to `pair`; the fingerprint of them all.
    private static func read(_ lines: [String], _ pair: (Int, String, String) -> Void) -> Int64 {
        var canonical: [String] = []
        canonical.reserveCapacity(lines.count)
        for line in lines {
            let trimmed = line.trimmingWhitespace()
            guard let colon = trimmed.firstIndex(of: ":") else {
                canonical.append(trimmed)
                continue
            }
            let key = String(trimmed[..<colon])
            let value = Self.unquoted(trimmed[trimmed.index(after: colon)...])
            let indent = line.utf8.prefix { $0 == 0x20 }.count
            pair(indent, key, value)
            canonical.append(String(repeating: " ", count: indent) + key + ": " + value)
        }
        return Self.hash(canonical.sorted())
    }

    /// A value without the quotes around it and the spaces at its ends.
    private static func unquoted(_ text: Substring) -> String {
        let value = text.trimmingWhitespace()
        guard value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first else {
            return value
        }
        return String(value.dropFirst().dropLast())
    }

    /// 64-bit FNV-1a of the lines joined by LF: a hash that stays the same from one run and one machine to the
    /// next (Swift's `Hasher` is seeded per process), for a column of the state database.
    private static func hash(_ lines: [String]) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for (index, line) in lines.enumerated() {
            if index > 0 {
                hash ^= 0x0A
                hash &*= 0x0000_0100_0000_01B3
            }
            for byte in line.utf8 {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01B3
            }
        }
        return Int64(bitPattern: hash)
    }
}
