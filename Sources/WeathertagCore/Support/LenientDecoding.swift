import FoundationEssentials

// Answers other programs write (web services, a location command) are read with `Decodable`, leniently: a field of
// another type than expected is nil, so one odd field costs that field and not the whole answer, and an element of
// a list that does not fit is skipped (`Lenient`). `JSONDecoder` alone fails the whole answer on either.

extension KeyedDecodingContainer {
    /// The field as `T`; nil when it is missing, null or of another type.
    package func lenient<T: Decodable>(_ type: T.Type, forKey key: Key) -> T? {
        (try? self.decodeIfPresent(type, forKey: key)) ?? nil
    }

    /// A number, or (as some free tiers send them) a number in a string.
    package func lenientNumber(forKey key: Key) -> Double? {
        self.lenient(Double.self, forKey: key) ?? self.lenient(String.self, forKey: key).flatMap { Double($0) }
    }
}

/// One element of a list as `Value`, or nil when it does not decode as one.
package struct Lenient<Value: Decodable>: Decodable {
    package let value: Value?

    package init(from decoder: any Decoder) throws {
        self.value = try? Value(from: decoder)
    }
}

extension Decodable {
    /// `bytes` decoded as this type; nil when they are not JSON of its shape.
    package static func decodeJSON(_ bytes: [UInt8]) -> Self? {
        try? JSONDecoder().decode(Self.self, from: Data(bytes))
    }
}
