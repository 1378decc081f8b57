/// Percent-encoding for URLs: every byte but ASCII letters, digits and the characters in `keeping` as `%XX`.
/// (`addingPercentEncoding` wants a `CharacterSet`, which is Foundation's, not FoundationEssentials': see `Zone`.)
public func percentEncoded(_ text: String, keeping: String = "-._~") -> String {
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
