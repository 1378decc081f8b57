import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Where the machine is, according to one location provider.
package struct Position: Sendable, Equatable, Codable {
    package var latitude: Double
    package var longitude: Double
    /// Horizontal accuracy in metres, when the provider knows it (gpsd's epx/epy).
    package var accuracyMeters: Double?
    /// The provider that produced it: `gpsd`, `ip`, `command` or `fixed`.
    package var source: String
    /// A place name the provider knows (a fixed place's name, an IP service's city).
    package var name: String?
    /// When the position was taken.
    package var takenAt: Date
    /// The coordinates are not to be written or served (`privacy`: a zone, or `stamp_coordinates: none`); they
    /// read 0 then. Not part of the cache's JSON.
    package var withheld = false

    package init(
        latitude: Double,
        longitude: Double,
        accuracyMeters: Double? = nil,
        source: String,
        name: String? = nil,
        takenAt: Date
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracyMeters = accuracyMeters
        self.source = source
        self.name = name
        self.takenAt = takenAt
    }

    /// Whether the coordinates are finite and on the globe.
    package var isValid: Bool {
        self.latitude.isFinite && self.longitude.isFinite && abs(self.latitude) <= 90 && abs(self.longitude) <= 180
    }

    /// Great-circle distance in metres (haversine; plenty for the ~1 km cache radius).
    package func distance(to other: Position) -> Double {
        Self.distance(self.latitude, self.longitude, other.latitude, other.longitude)
    }

    package static func distance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let earthRadius = 6_371_008.8
        let phi1 = lat1 * .pi / 180
        let phi2 = lat2 * .pi / 180
        let deltaPhi = (lat2 - lat1) * .pi / 180
        let deltaLambda = (lon2 - lon1) * .pi / 180
        let a =
            sin(deltaPhi / 2) * sin(deltaPhi / 2) + cos(phi1) * cos(phi2) * sin(deltaLambda / 2) * sin(deltaLambda / 2)
        return 2 * earthRadius * atan2(a.squareRoot(), (1 - a).squareRoot())
    }

    enum CodingKeys: String, CodingKey {
        case latitude, longitude, source, name
        case accuracyMeters = "accuracy_m"
        case takenAt = "taken_at"
    }
}
