/// Percent-encoding for URLs: every byte but ASCII letters, digits and the characters in `keeping` as `%XX`.
/// (`addingPercentEncoding` wants a `CharacterSet`, which is Foundation's, not FoundationEssentials': see `Zone`.)
package func percentEncoded(_ text: String, keeping: String = "-._~") -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            bytes.append(byte)
        case _ where keeping.utf8.contains(byte): bytes.append(byte)
        default: bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// `%XX` sequences turned back into bytes; nil when one is malformed or the bytes are not UTF-8 (as
/// `removingPercentEncoding`, which is Foundation's).
package func percentDecoded(_ text: some StringProtocol) -> String? {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    var iterator = text.utf8.makeIterator()
    func hex(_ byte: UInt8?) -> UInt8? {
        switch byte {
        case let byte? where (0x30...0x39).contains(byte): return byte - 0x30
        case let byte? where (0x41...0x46).contains(byte): return byte - 0x41 + 10
        case let byte? where (0x61...0x66).contains(byte): return byte - 0x61 + 10
        default: return nil
        }
    }
    while let byte = iterator.next() {
        guard byte == UInt8(ascii: "%") else {
            bytes.append(byte)
            continue
        }
        guard let high = hex(iterator.next()), let low = hex(iterator.next()) else { return nil }
        bytes.append(high << 4 | low)
    }
    return String(validating: bytes, as: UTF8.self)
}
