import FoundationEssentials

/// A place's name, as OpenWeather's reverse geocoder gives it.
public struct PlaceName: Sendable, Equatable, Codable {
    public var name: String
    /// The name by language code (`ko`, `fr`, …), when the geocoder has it.
    public var localNames: [String: String]
    /// The state or region, when there is one.
    public var region: String?
    /// ISO 3166 country code.
    public var country: String?
    /// The place's zone in the tz database, when the geocoder knows it (GeoNames does): local times of a source
    /// that names no zone (MET Norway, a `command`) are read in it.
    public var zone: String?

    public init(
        name: String, localNames: [String: String] = [:], region: String? = nil, country: String? = nil,
        zone: String? = nil
    ) {
        self.name = name
        self.localNames = localNames
        self.region = region
        self.country = country
        self.zone = zone
    }

    /// The name in `lang` (`weather.lang`) when the geocoder has it, else its own.
    public func name(in lang: String) -> String {
        let code = lang.split(separator: "_").first.map { $0.lowercased() } ?? lang
        return self.localNames[code].flatMap { $0.isEmpty ? nil : $0 } ?? self.name
    }

    enum CodingKeys: String, CodingKey {
        case name, region, country
        case localNames = "local_names"
    }
}
