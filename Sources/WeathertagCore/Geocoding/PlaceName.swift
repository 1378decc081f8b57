import FoundationEssentials

/// A place's name, as OpenWeather's reverse geocoder gives it.
package struct PlaceName: Sendable, Equatable, Codable {
    package var name: String
    /// The name by language code (`ko`, `fr`, …), when the geocoder has it.
    package var localNames: [String: String]
    /// The state or region, when there is one.
    package var region: String?
    /// ISO 3166 country code.
    package var country: String?
    /// The place's zone in the tz database, when the geocoder knows it (GeoNames does): local times of a source
    /// that names no zone (MET Norway, a `command`) are read in it.
    package var zone: String?

    package init(
        name: String, localNames: [String: String] = [:], region: String? = nil, country: String? = nil,
        zone: String? = nil
    ) {
        self.name = name
        self.localNames = localNames
        self.region = region
        self.country = country
        self.zone = zone
    }

    /// How far a town's name reaches: beyond this from the nearest town listed, a position is named by its region
    /// (a hamlet 30 km from Cairns is in Queensland, not in Cairns).
    package static let townReach = 15_000.0

    /// The name a position `distance` metres from `town` (the nearest listed) is given: the town's within
    /// `townReach`, else its region's (or country's), with the town's zone either way.
    package static func near(_ town: PlaceName, distance: Double) -> PlaceName {
        guard distance > Self.townReach else { return town }
        return PlaceName(
            name: town.region ?? town.country ?? town.name, region: town.region, country: town.country,
            zone: town.zone)
    }

    /// The name in `lang` (`weather.lang`) when the geocoder has it, else its own.
    package func name(in lang: String) -> String {
        let code = lang.split(separator: "_").first.map { $0.lowercased() } ?? lang
        return self.localNames[code].flatMap { $0.isEmpty ? nil : $0 } ?? self.name
    }

    enum CodingKeys: String, CodingKey {
        case name, region, country
        case localNames = "local_names"
    }
}
