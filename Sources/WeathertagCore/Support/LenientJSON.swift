import Foundation

/// The fields of a JSON object that other programs wrote (an IP geolocation service, a location command, an error
/// body): each read for itself, so that one field of an unexpected type costs that field, not the whole answer.
package struct LenientJSONObject: Decodable {
    private let container: KeyedDecodingContainer<Key>

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    package init(from decoder: any Decoder) throws {
        self.container = try decoder.container(keyedBy: Key.self)
    }

    /// Decodes `bytes`; nil unless they are a JSON object.
    package static func parse(_ bytes: [UInt8]) -> LenientJSONObject? {
        try? JSONDecoder().decode(Self.self, from: Data(bytes))
    }

    package func string(_ key: String) -> String? {
        (try? self.container.decodeIfPresent(String.self, forKey: Key(stringValue: key))) ?? nil
    }

    /// A number, or (as some free tiers send them) a number in a string.
    package func number(_ key: String) -> Double? {
        if let number = (try? self.container.decodeIfPresent(Double.self, forKey: Key(stringValue: key))) ?? nil {
            return number
        }
        return self.string(key).flatMap { Double($0) }
    }

    /// Only a JSON number.
    package func strictNumber(_ key: String) -> Double? {
        (try? self.container.decodeIfPresent(Double.self, forKey: Key(stringValue: key))) ?? nil
    }
}
