/// Line and byte searches over a text's UTF-8, for the paths that read every entry (the diary index, its excerpts and
/// photos): the `Character` view decides grapheme clusters one at a time and cost the index most of its time per
/// entry (docs/PERFORMANCE.md, "Where a stamp's time goes"). Each gives what its `Character` twin gives.
extension Substring {
    /// The lines of the text, as `split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)` gives them:
    /// split at LF, VT, FF, CR, CR LF (one break), NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR. Each of these is a
    /// grapheme cluster of its own (Unicode's rules GB4 and GB5 break around controls), so a split by bytes ends
    /// each line where the `Character` view does.
    package func lines() -> [Substring] {
        var lines: [Substring] = []
        let utf8 = self.utf8
        var start = utf8.startIndex
        var index = start
        while index < utf8.endIndex {
            let byte = utf8[index]
            var width = 0
            switch byte {
            case 0x0A, 0x0B, 0x0C:
                width = 1
            case 0x0D:
                let next = utf8.index(after: index)
                width = next < utf8.endIndex && utf8[next] == 0x0A ? 2 : 1
            case 0xC2:
                width = Self.follows(utf8, index, [0x85]) ? 2 : 0
            case 0xE2:
                width = Self.follows(utf8, index, [0x80, 0xA8]) || Self.follows(utf8, index, [0x80, 0xA9]) ? 3 : 0
            default:
                break
            }
            guard width > 0 else {
                index = utf8.index(after: index)
                continue
            }
            lines.append(self[start..<index])
            index = utf8.index(index, offsetBy: width)
            start = index
        }
        lines.append(self[start..<utf8.endIndex])
        return lines
    }

    /// Whether `bytes` follow the byte at `index`.
    private static func follows(_ utf8: Substring.UTF8View, _ index: Substring.UTF8View.Index, _ bytes: [UInt8]) -> Bool
    {
        var next = utf8.index(after: index)
        for byte in bytes {
            guard next < utf8.endIndex, utf8[next] == byte else { return false }
            next = utf8.index(after: next)
        }
        return true
    }

    /// Where `needle` (ASCII) first occurs, as `firstRange(of:)` finds it; nil when it does not.
    package func firstRange(ofASCII needle: StaticString) -> Range<Index>? {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard let first = pattern.first else { return nil }
        let utf8 = self.utf8
        var index = utf8.startIndex
        while let found = utf8[index...].firstIndex(of: first) {
            var end = found
            var matched = 0
            while matched < pattern.count, end < utf8.endIndex, utf8[end] == pattern[matched] {
                matched += 1
                end = utf8.index(after: end)
            }
            if matched == pattern.count { return found..<end }
            index = utf8.index(after: found)
        }
        return nil
    }

    /// Whether the text holds none of the ASCII `bytes` (UTF-8 never uses an ASCII byte inside another character).
    package func holdsNone(of bytes: ASCIISet) -> Bool {
        !self.utf8.contains(where: bytes.contains)
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
    /// Its first `count` characters, as `prefix(count)` gives them, by bytes while they are ASCII without a CR (where
    /// a character is a byte: CR LF is one character of two).
    package func prefix(characters count: Int) -> SubSequence {
        var end = self.utf8.startIndex
        var taken = 0
        while taken < count, end < self.utf8.endIndex {
            let byte = self.utf8[end]
            guard byte < 0x80, byte != 0x0D else { return self.prefix(count) }
            end = self.utf8.index(after: end)
            taken += 1
        }
        return self[..<end]
    }

    /// Its number of characters, as `count` gives it, by bytes when they are ASCII without a CR.
    package var characterCount: Int {
        self.utf8.allSatisfy { $0 < 0x80 && $0 != 0x0D } ? self.utf8.count : self.count
    }

    /// Its words joined by single spaces: `split(whereSeparator: \.isWhitespace).joined(separator: " ")`, by bytes
    /// when the text is ASCII.
    package func collapsingWhitespace() -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(self.utf8.count)
        var pendingSpace = false
        for byte in self.utf8 {
            guard byte < 0x80 else {
                return self.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            }
            // ASCII's whitespace as `Character.isWhitespace` has it: tab, LF, VT, FF, CR, space.
            if byte == 0x20 || (0x09...0x0D).contains(byte) {
                pendingSpace = !bytes.isEmpty
                continue
            }
            if pendingSpace {
                bytes.append(0x20)
                pendingSpace = false
            }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
