import FoundationEssentials

/// Reverse-geocoded names by cell of about 1 km (2 decimals), kept 30 days; a cell that failed is not asked again
/// for ten minutes. Pure: time is passed in. Persisted as `places.json` in the cache folder.
package struct PlaceNameCache: Sendable, Equatable, Codable {
    package static let lifetime: TimeInterval = 30 * 86_400
    package static let failureLifetime: TimeInterval = 600
    package static let capacity = 4_096

    package struct Entry: Sendable, Equatable, Codable {
        /// Nil: the geocoder failed or knew no name for the cell.
        package var place: PlaceName?
        package var at: Date
    }

    package private(set) var cells: [String: Entry] = [:]

    package init() {}

    /// The cell of a (request) position: `46.20,6.14`.
    package static func cell(_ position: Position) -> String {
        String(cFormat: "%.2f,%.2f", position.latitude, position.longitude)
    }

    package enum Lookup: Equatable {
        /// Known: the name, or nil when the geocoder had none (or failed a short while ago).
        case known(PlaceName?)
        /// Not known, or too old: ask.
        case unknown
    }

    package func lookup(_ cell: String, now: Date) -> Lookup {
        guard let entry = self.cells[cell] else { return .unknown }
        let age = now.timeIntervalSince(entry.at)
        let lifetime = entry.place == nil ? Self.failureLifetime : Self.lifetime
        return age >= 0 && age < lifetime ? .known(entry.place) : .unknown
    }

    package mutating func store(_ place: PlaceName?, for cell: String, at now: Date) {
        self.cells[cell] = Entry(place: place, at: now)
        if self.cells.count > Self.capacity, let oldest = self.cells.min(by: { $0.value.at < $1.value.at })?.key {
            self.cells[oldest] = nil
        }
    }
}
