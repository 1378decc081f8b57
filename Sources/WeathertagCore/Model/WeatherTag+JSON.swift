import Foundation

extension WeatherTag {
    /// The socket's `/v1/tag` document: the stamp's fields plus `stale`, `fetched_at` and `age_seconds`.
    public func json(now: Date) -> JSONValue {
        let weather = self.weather
        return .object([
            ("condition", .string(weather.condition)),
            ("description", .string(weather.description)),
            ("code", .number(Double(weather.code))),
            ("icon", .string(weather.icon)),
            ("icon_file", .optional(self.iconFile)),
            ("temperature", .number(weather.temperature)),
            ("feels_like", .optional(weather.feelsLike)),
            ("humidity", .optional(weather.humidity)),
            ("pressure", .optional(weather.pressure)),
            ("wind_speed", .optional(weather.windSpeed)),
            ("units", .string(weather.units.rawValue)),
            ("observed_at", .string(weather.observedAt.iso8601)),
            ("place", .optional(self.place)),
            ("location", self.position.json),
            ("stale", .bool(self.stale)),
            ("fetched_at", .string(self.fetchedAt.iso8601)),
            ("age_seconds", .number(max(0, now.timeIntervalSince(self.fetchedAt)).rounded())),
        ])
    }

    /// Reads a `/v1/tag` document back (for `weathertag tag --format`).
    public init(json: JSONValue) throws(TagDocumentError) {
        func string(_ key: String, in value: JSONValue = json) throws(TagDocumentError) -> String {
            guard let string = value[key]?.stringValue else { throw TagDocumentError(field: key) }
            return string
        }
        func number(_ key: String, in value: JSONValue = json) throws(TagDocumentError) -> Double {
            guard let number = value[key]?.numberValue else { throw TagDocumentError(field: key) }
            return number
        }
        guard let location = json["location"] else { throw TagDocumentError(field: "location") }
        guard let units = Units(rawValue: try string("units")) else { throw TagDocumentError(field: "units") }
        let weather = Weather(
            condition: try string("condition"),
            description: try string("description"),
            code: Int(try number("code")),
            icon: try string("icon"),
            temperature: try number("temperature"),
            feelsLike: json["feels_like"]?.numberValue,
            humidity: json["humidity"]?.numberValue.map { Int($0) },
            pressure: json["pressure"]?.numberValue.map { Int($0) },
            windSpeed: json["wind_speed"]?.numberValue,
            units: units,
            observedAt: Date(iso8601: try string("observed_at")) ?? Date(timeIntervalSince1970: 0),
            place: json["place"]?.stringValue
        )
        let position = Position(
            latitude: try number("latitude", in: location),
            longitude: try number("longitude", in: location),
            accuracyMeters: location["accuracy_m"]?.numberValue,
            source: try string("source", in: location),
            name: location["name"]?.stringValue,
            takenAt: location["taken_at"]?.stringValue.flatMap(Date.init(iso8601:)) ?? Date(timeIntervalSince1970: 0)
        )
        self.init(
            weather: weather,
            position: position,
            iconFile: json["icon_file"]?.stringValue,
            fetchedAt: Date(iso8601: try string("fetched_at")) ?? Date(timeIntervalSince1970: 0),
            stale: json["stale"] == .bool(true)
        )
    }
}

extension Position {
    /// The `location` object of the socket's answers.
    public var json: JSONValue {
        .object([
            ("latitude", .number(self.latitude)),
            ("longitude", .number(self.longitude)),
            ("accuracy_m", .optional(self.accuracyMeters.map { $0.rounded() })),
            ("source", .string(self.source)),
            ("name", .optional(self.name)),
            ("taken_at", .string(self.takenAt.iso8601)),
        ])
    }
}

/// A tag document lacks a field or has it with the wrong type.
public struct TagDocumentError: Error, Sendable, Equatable, CustomStringConvertible {
    public var field: String
    public var description: String { "the daemon's answer has no valid \"\(self.field)\"" }
}
