import FoundationEssentials

/// What a `command` location plugin's program prints (docs/location.md), read purely: the provider, in the daemon,
/// runs the program, and this reads what it printed: `{"latitude": 59.91, "longitude": 10.75, "accuracy_m": 25,
/// "name": "Oslo"}`. Numbers must be JSON numbers, and a field of another type is left out.
package struct ProgramPosition: Decodable {
    var latitude: Double?
    var longitude: Double?
    var accuracy: Double?
    var name: String?

    enum CodingKeys: String, CodingKey {
        case latitude, longitude, name
        case accuracy = "accuracy_m"
    }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        self.latitude = fields.lenient(Double.self, forKey: .latitude)
        self.longitude = fields.lenient(Double.self, forKey: .longitude)
        self.accuracy = fields.lenient(Double.self, forKey: .accuracy)
        self.name = fields.lenient(String.self, forKey: .name)
    }

    /// The position `program` printed in `bytes`, for provider `source`, taken at `takenAt`; an error naming what
    /// was wrong with what it printed.
    package static func position(
        _ bytes: [UInt8], source: String, program: String, takenAt: Date
    ) throws(LocationError) -> Position {
        guard let printed = Self.decodeJSON(bytes) else {
            throw LocationError(source: source, message: "\(program) did not print a JSON object")
        }
        guard let latitude = printed.latitude, let longitude = printed.longitude else {
            throw LocationError(source: source, message: "\(program) printed no numeric latitude/longitude")
        }
        let position = Position(
            latitude: latitude, longitude: longitude, accuracyMeters: printed.accuracy, source: source,
            name: printed.name, takenAt: takenAt)
        guard position.isValid else {
            throw LocationError(source: source, message: "\(program) printed coordinates off the globe")
        }
        return position
    }
}
