import Foundation

/// A place's name, as OpenWeather's reverse geocoder gives it.
public struct PlaceName: Sendable, Equatable, Codable {
    public var name: String
    /// The name by language code (`ko`, `fr`, …), when the geocoder has it.
    public var localNames: [String: String]
    /// The state or region, when there is one.
    public var region: String?
    /// ISO 3166 country code.
    public var country: String?

    public init(name: String, localNames: [String: String] = [:], region: String? = nil, country: String? = nil) {
        self.name = name
        self.localNames = localNames
        self.region = region
        self.country = country
    }

    /// The name in `lang` (`openweather.lang`) when the geocoder has it, else its own.
    public func name(in lang: String) -> String {
        let code = lang.split(separator: "_").first.map { $0.lowercased() } ?? lang
        return self.localNames[code].flatMap { $0.isEmpty ? nil : $0 } ?? self.name
    }

    enum CodingKeys: String, CodingKey {
        case name, region, country
        case localNames = "local_names"
    }
}

/// Reverse-geocoded names by cell of about 1 km (2 decimals), kept 30 days; a cell that failed is not asked again
/// for ten minutes. Pure: time is passed in. Persisted as `places.json` in the cache folder.
public struct PlaceNameCache: Sendable, Equatable, Codable {
    public static let lifetime: TimeInterval = 30 * 86_400
    public static let failureLifetime: TimeInterval = 600
    public static let capacity = 4_096

    public struct Entry: Sendable, Equatable, Codable {
        /// Nil: the geocoder failed or knew no name for the cell.
        public var place: PlaceName?
        public var at: Date
    }

    public private(set) var cells: [String: Entry] = [:]

    public init() {}

    /// The cell of a (request) position: `46.20,6.14`.
    public static func cell(_ position: Position) -> String {
        String(format: "%.2f,%.2f", position.latitude, position.longitude)
    }

    public enum Lookup: Equatable {
        /// Known: the name, or nil when the geocoder had none (or failed a short while ago).
        case known(PlaceName?)
        /// Not known, or too old: ask.
        case unknown
    }

    public func lookup(_ cell: String, now: Date) -> Lookup {
        guard let entry = self.cells[cell] else { return .unknown }
        let age = now.timeIntervalSince(entry.at)
        let lifetime = entry.place == nil ? Self.failureLifetime : Self.lifetime
        return age >= 0 && age < lifetime ? .known(entry.place) : .unknown
    }

    public mutating func store(_ place: PlaceName?, for cell: String, at now: Date) {
        self.cells[cell] = Entry(place: place, at: now)
        if self.cells.count > Self.capacity, let oldest = self.cells.min(by: { $0.value.at < $1.value.at })?.key {
            self.cells[oldest] = nil
        }
    }
}

extension OpenWeatherAPI {
    /// `{base}/geo/1.0/reverse?lat=&lon=&limit=1&appid=`. Contains the key: never log it.
    public static func reverseGeocodingURL(baseURL: String, at position: RequestPosition, apiKey: String) -> String {
        Self.url(
            baseURL, "/geo/1.0/reverse", at: position,
            ["limit=1", "appid=\(Self.percentEncoded(apiKey))"])
    }

    /// The first place of the geocoder's answer; nil when it knows none (an empty list, in the sea).
    public static func decodeReverseGeocoding(_ response: HTTPResponse) throws(WeatherError) -> PlaceName? {
        guard response.status == 200 else {
            throw WeatherError(
                kind: .serverError(status: response.status),
                message: "OpenWeather's geocoder answered HTTP \(response.status)")
        }
        struct Answer: Decodable {
            var name: String
            var local_names: [String: String]?
            var state: String?
            var country: String?
        }
        guard let answers = try? JSONDecoder().decode([Answer].self, from: Data(response.body)) else {
            throw WeatherError(
                kind: .badResponse, message: "OpenWeather's geocoder answer is not the documented JSON shape")
        }
        guard let first = answers.first, !first.name.isEmpty else { return nil }
        return PlaceName(
            name: first.name, localNames: first.local_names ?? [:],
            region: first.state.flatMap { $0.isEmpty ? nil : $0 },
            country: first.country.flatMap { $0.isEmpty ? nil : $0 })
    }
}
