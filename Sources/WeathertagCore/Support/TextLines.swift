import Glibc

/// Line and byte searches over a text's UTF-8, for the paths that read every entry (the diary index, its excerpts and
/// photos): the `Character` view decides grapheme clusters one at a time and cost the index most of its time per
/// entry (docs/PERFORMANCE.md, "Where a stamp's time goes"). Each gives what its `Character` twin gives.
extension Substring {
    /// The lines of the text, as `split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)` gives them:
    /// split at LF, VT, FF, CR, CR LF (one break), NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR. Each of these is a
    /// grapheme cluster of its own (Unicode's rules GB4 and GB5 break around controls), so a split by bytes ends
    /// each line where the `Character` view does.
    package func lines() -> [Substring] {
        // Byte offsets over the contiguous UTF-8 (a string read from a file always is), then one index each: an
        // index walk of the UTF-8 view cost twenty instructions a byte.
        let breaks = self.utf8.withContiguousStorageIfAvailable(Self.lineBreaks) ?? Self.lineBreaks(Array(self.utf8))
        var lines: [Substring] = []
        lines.reserveCapacity(breaks.count + 1)
        let utf8 = self.utf8
        var start = utf8.startIndex
        for (offset, width) in breaks {
            let end = utf8.index(utf8.startIndex, offsetBy: offset)
            lines.append(self[start..<end])
            start = utf8.index(end, offsetBy: width)
        }
        lines.append(self[start..<utf8.endIndex])
        return lines
    }

    /// Where each line break starts in `bytes`, and its width in bytes.
    private static func lineBreaks(_ bytes: some RandomAccessCollection<UInt8>) -> [(offset: Int, width: Int)] {
        bytes.withContiguousStorageIfAvailable { bytes in
            var breaks: [(offset: Int, width: Int)] = []
            var index = 0
            while index < bytes.count {
                // Most bytes start no break: ASCII after CR (skipped eight at a time), and UTF-8 other than NEL's and
                // the separators' first byte (a line's split was 17 instructions a byte).
                index = ASCIIScan.firstIndex(in: bytes, from: index, belowOrNotASCII: 0x0E)
                guard index < bytes.count else { break }
                let byte = bytes[index]
                if byte > 0x0D, byte != 0xC2, byte != 0xE2 {
                    index += 1
                    continue
                }
                var width = 0
                switch byte {
                case 0x0A, 0x0B, 0x0C:
                    width = 1
                case 0x0D:
                    width = index + 1 < bytes.count && bytes[index + 1] == 0x0A ? 2 : 1
                case 0xC2:
                    width = index + 1 < bytes.count && bytes[index + 1] == 0x85 ? 2 : 0
                case 0xE2:
                    let separator =
                        index + 2 < bytes.count && bytes[index + 1] == 0x80
                        && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9)
                    width = separator ? 3 : 0
                default:
                    break
                }
                if width > 0 {
                    breaks.append((index, width))
                    index += width
                } else {
                    index += 1
                }
            }
            return breaks
        } ?? Self.lineBreaks(Array(bytes))
    }

    /// Where `needle` (ASCII) first occurs, as `firstRange(of:)` finds it; nil when it does not.
    package func firstRange(ofASCII needle: StaticString) -> Range<Index>? {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard !pattern.isEmpty else { return nil }
        // Over the contiguous bytes (an index walk of the UTF-8 view was twenty instructions a byte).
        let found = self.utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            guard let base = bytes.baseAddress, bytes.count >= pattern.count else { return nil }
            var offset = 0
            while offset + pattern.count <= bytes.count {
                // The pattern's first byte found by `memchr` (a byte at a time, nine instructions a byte: every
                // indexed entry's text is searched for its pictures).
                guard let first = memchr(base + offset, Int32(pattern[0]), bytes.count - offset) else { return nil }
                offset = UnsafeRawPointer(first) - UnsafeRawPointer(base)
                guard offset + pattern.count <= bytes.count else { return nil }
                if (1..<pattern.count).allSatisfy({ bytes[offset + $0] == pattern[$0] }) { return offset }
                offset += 1
            }
            return nil
        }
        let offset: Int?
        if let found {
            offset = found
        } else {
            let bytes = Array(self.utf8)
            offset = bytes.indices.first { start in
                start + pattern.count <= bytes.count && pattern.indices.allSatisfy { bytes[start + $0] == pattern[$0] }
            }
        }
        guard let offset else { return nil }
        let start = self.utf8.index(self.utf8.startIndex, offsetBy: offset)
        return start..<self.utf8.index(start, offsetBy: pattern.count)
    }

    /// Whether the text holds none of the ASCII `bytes` (UTF-8 never uses an ASCII byte inside another character).
    /// Over the contiguous bytes where the text has them: through the view's iterator, a line's scan was 20
    /// instructions a byte, and an excerpt scans each line it shows.
    package func holdsNone(of bytes: ASCIISet) -> Bool {
        let none = self.utf8.withContiguousStorageIfAvailable { text in
            for byte in text where bytes.contains(byte) { return false }
            return true
        }
        return none ?? !self.utf8.contains(where: bytes.contains)
    }
}

/// A set of ASCII bytes as a bit mask, for a test per byte without hashing.
package struct ASCIISet: Sendable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    package init(_ characters: StaticString) {
        let bytes = UnsafeBufferPointer(start: characters.utf8Start, count: characters.utf8CodeUnitCount)
        for byte in bytes where byte < 0x80 {
            if byte < 64 { self.low |= 1 << UInt64(byte) } else { self.high |= 1 << UInt64(byte - 64) }
        }
    }

    package func contains(_ byte: UInt8) -> Bool {
        switch byte {
        case 0..<64: return self.low & (1 << UInt64(byte)) != 0
        case 64..<128: return self.high & (1 << UInt64(byte - 64)) != 0
        default: return false
        }
    }
}

extension StringProtocol {
    /// Where the ASCII `byte` last occurs, as `lastIndex(of:)` finds its `Character`, by bytes: a path's `/` is
    /// looked for in every name the watcher hears (about eight an entry) and every name a listing finds, and the
    /// `Character` view walked back a grapheme cluster at a time, 10,000 instructions for a temp file's name. The
    /// two differ only where the byte shares a `Character` with a neighbour (`/` then U+0301 is one `Character`, not
    /// `/`; so is a prepended mark and `/`): a path is split at its slash all the same, which is what the kernel does.
    package func lastIndex(ofASCII byte: UInt8) -> Index? {
        precondition(byte < 0x80, "an ASCII byte")
        let offset =
            self.utf8.withContiguousStorageIfAvailable { bytes in bytes.lastIndex(of: byte) }
            ?? Array(self.utf8).lastIndex(of: byte)
        return offset.map { self.utf8.index(self.utf8.startIndex, offsetBy: $0) }
    }

    /// Its first `count` characters, as `prefix(count)` gives them, by bytes while they are ASCII without a CR (where
    /// a character is a byte: CR LF is one character of two).
    package func prefix(characters count: Int) -> SubSequence {
        let ascii = self.utf8.withContiguousStorageIfAvailable { bytes in
            ASCIIScan.isASCIIWithoutCR(UnsafeBufferPointer(rebasing: bytes.prefix(count)))
                ? Swift.min(count, bytes.count) : nil
        }
        guard let taken = ascii ?? nil else { return self.prefix(count) }
        return self[..<self.utf8.index(self.utf8.startIndex, offsetBy: taken)]
    }

    /// Its number of characters, as `count` gives it, by bytes when they are ASCII without a CR.
    package var characterCount: Int {
        let ascii = self.utf8.withContiguousStorageIfAvailable(ASCIIScan.isASCIIWithoutCR)
        return ascii ?? self.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x0D }) ? self.utf8.count : self.count
    }

    /// Its words joined by single spaces: `split(whereSeparator: \.isWhitespace).joined(separator: " ")`, by bytes
    /// when the text is ASCII.
    package func collapsingWhitespace() -> String {
        // Over the contiguous bytes into the string's own storage, not an array appended to byte by byte: that was
        // 32 instructions a byte, and every indexed entry's excerpt goes through here.
        let collapsed = self.utf8.withContiguousStorageIfAvailable { source -> String? in
            guard ASCIIScan.firstIndex(in: source, from: 0, belowOrNotASCII: 0) == source.count else { return nil }
            return String(unsafeUninitializedCapacity: source.count) { target in
                var count = 0
                var pendingSpace = false
                for byte in source {
                    // ASCII's whitespace as `Character.isWhitespace` has it: tab, LF, VT, FF, CR, space.
                    if byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) {
                        pendingSpace = count > 0
                        continue
                    }
                    if pendingSpace {
                        target[count] = 0x20
                        count += 1
                        pendingSpace = false
                    }
                    target[count] = byte
                    count += 1
                }
                return count
            }
        }
        if let collapsed = collapsed ?? nil { return collapsed }
        return self.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Whether `collapsingWhitespace()` gives `other`, by bytes when the text is ASCII and without making the string:
    /// an excerpt asks it of each line it reads until it passes the title, and most lines differ at once.
    package func collapses(to other: String) -> Bool {
        var other = other
        let same = other.withUTF8 { expected in
            self.utf8.withContiguousStorageIfAvailable { source -> Bool? in
                var matched = 0
                var pendingSpace = false
                for byte in source {
                    guard byte < 0x80 else { return nil }
                    // ASCII's whitespace as `Character.isWhitespace` has it: tab, LF, VT, FF, CR, space.
                    if byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) {
                        pendingSpace = matched > 0
                        continue
                    }
                    if pendingSpace {
                        guard matched < expected.count, expected[matched] == 0x20 else { return false }
                        matched += 1
                        pendingSpace = false
                    }
                    guard matched < expected.count, expected[matched] == byte else { return false }
                    matched += 1
                }
                return matched == expected.count
            }
        }
        if let same = same ?? nil { return same }
        return self.collapsingWhitespace() == other
    }
}

extension Array where Element == String {
    /// Its strings one after the other with a line feed between each two, as `joined(separator: "\n")` gives them,
    /// written into one string's storage sized first: appended a string at a time (or joined), each append went
    /// through the string's general path, 340 instructions each, and the memory of stamps joins a block's 25 lines
    /// for every entry it remembers.
    package func joinedLines() -> String {
        guard !self.isEmpty else { return "" }
        let count = self.reduce(self.count - 1) { $0 + $1.utf8.count }
        return String(unsafeUninitializedCapacity: count) { target in
            var offset = 0
            for (index, line) in self.enumerated() {
                if index > 0 {
                    target[offset] = UInt8(ascii: "\n")
                    offset += 1
                }
                let copied = line.utf8.withContiguousStorageIfAvailable { source in
                    _ = UnsafeMutableBufferPointer(rebasing: target[offset...]).initialize(from: source)
                    return source.count
                }
                if let copied {
                    offset += copied
                } else {
                    for byte in line.utf8 {
                        target[offset] = byte
                        offset += 1
                    }
                }
            }
            return offset
        }
    }
}

/// Byte scans eight bytes at a time, for the checks every indexed entry's text goes through (a line's breaks, whether
/// it is ASCII without a CR): a byte at a time they were 9 to 12 instructions a byte.
enum ASCIIScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The first index from `start` whose byte is below `bound` (at most 0x80) or not ASCII; `bytes.count` when none.
    static func firstIndex(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, belowOrNotASCII bound: UInt8) -> Int {
        var index = start
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                // Not zero when a byte is not ASCII, or (the word being ASCII) when one is below `bound`.
                if word & Self.highs != 0 || (word &- Self.ones &* UInt64(bound)) & ~word & Self.highs != 0 { break }
                index += 8
            }
        }
        while index < bytes.count, bytes[index] >= bound, bytes[index] < 0x80 { index += 1 }
        return index
    }

    /// Whether every byte is ASCII and none is CR (where a `Character` is a byte).
    static func isASCIIWithoutCR(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            let carriageReturns = Self.ones &* 0x0D
            while index + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let crossed = word ^ carriageReturns  // a zero byte where a byte is CR
                if word & Self.highs != 0 || (crossed &- Self.ones) & ~crossed & Self.highs != 0 { return false }
                index += 8
            }
        }
        while index < bytes.count {
            if bytes[index] >= 0x80 || bytes[index] == 0x0D { return false }
            index += 1
        }
        return true
    }
}
