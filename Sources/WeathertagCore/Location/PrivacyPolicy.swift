import FoundationEssentials

/// How much of a position leaves the machine or is written down (`privacy`).
///
/// - Requests (OpenWeather, and the cache's keys) never carry more than `requestDecimals` decimals (2: about
///   1.1 km): nearby positions share one cache entry and one call. Inside a zone they carry the zone's centre.
/// - What is shown (the stamped block, `/v1/tag`, `/v1/location`, `status` and logs) has the coordinates as
///   `stampCoordinates` says: exact, rounded to `decimals` (3: about 110 m, the default), or none. Inside a zone it
///   is only the zone's name and the source: no coordinates, no OpenWeather station name.
package struct PrivacyPolicy: Sendable, Equatable {
    package enum Coordinates: String, Sendable, CaseIterable {
        case exact, rounded, none
    }

    /// A place whose coordinates are never written or served (`privacy.zones`): home, work.
    package struct Area: Sendable, Equatable {
        package var name: String
        package var latitude: Double
        package var longitude: Double
        package var radiusMeters: Double

        package init(name: String, latitude: Double, longitude: Double, radiusMeters: Double) {
            self.name = name
            self.latitude = latitude
            self.longitude = longitude
            self.radiusMeters = radiusMeters
        }

        package func contains(_ position: Position) -> Bool {
            Position.distance(self.latitude, self.longitude, position.latitude, position.longitude)
                <= self.radiusMeters
        }
    }

    package var stampCoordinates: Coordinates
    package var decimals: Int
    package var requestDecimals: Int
    package var zones: [Area]

    package init(
        stampCoordinates: Coordinates = .rounded, decimals: Int = 3, requestDecimals: Int = 2, zones: [Area] = []
    ) {
        self.stampCoordinates = stampCoordinates
        self.decimals = decimals
        self.requestDecimals = requestDecimals
        self.zones = zones
    }

    /// Everything as it was before these settings: exact coordinates everywhere (tests of other things).
    package static let exact = PrivacyPolicy(stampCoordinates: .exact, requestDecimals: 6)

    package func zone(containing position: Position) -> Area? {
        self.zones.first { $0.contains(position) }
    }

    /// What weather services and the cache see: the zone's centre, else the position rounded to `requestDecimals`.
    /// The only way to make a `RequestPosition`, which every service URL takes.
    package func requestPosition(_ position: Position) -> RequestPosition {
        var request = position
        if let zone = self.zone(containing: position) {
            request.latitude = zone.latitude
            request.longitude = zone.longitude
        }
        request.latitude = Self.round(request.latitude, self.requestDecimals)
        request.longitude = Self.round(request.longitude, self.requestDecimals)
        request.accuracyMeters = nil
        return RequestPosition(request, decimals: self.requestDecimals)
    }

    /// What is written down and served: rounded, exact, or without coordinates (`withheld`); in a zone, its name.
    package func shown(_ position: Position) -> Position {
        var shown = position
        if let zone = self.zone(containing: position) {
            shown.withheld = true
            shown.name = zone.name
        } else {
            switch self.stampCoordinates {
            case .exact: break
            case .rounded:
                shown.latitude = Self.round(position.latitude, self.decimals)
                shown.longitude = Self.round(position.longitude, self.decimals)
            case .none: shown.withheld = true
            }
        }
        if shown.withheld {
            shown.latitude = 0
            shown.longitude = 0
            shown.accuracyMeters = nil
        }
        return shown
    }

    /// The tag as it may be shown: its position as `shown` says; inside a zone its place is the zone's name, not
    /// OpenWeather's station.
    package func shown(_ tag: WeatherTag) -> WeatherTag {
        var shown = tag
        shown.position = self.shown(tag.position)
        if let zone = self.zone(containing: tag.position) {
            // No street-level name, region or country inside a zone: only its own name.
            shown.weather.place = zone.name
            shown.geocodedPlace = zone.name
            shown.region = nil
            shown.country = nil
        }
        return shown
    }

    static func round(_ value: Double, _ decimals: Int) -> Double {
        var scale = 1.0
        for _ in 0..<max(0, decimals) { scale *= 10 }
        return (value * scale).rounded() / scale
    }
}
