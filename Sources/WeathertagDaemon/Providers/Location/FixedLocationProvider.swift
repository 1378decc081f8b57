import FoundationEssentials
import WeathertagCore

/// A place given in the configuration: the last resort of a chain, or the only source of a desktop that never moves.
package struct FixedLocationProvider: LocationProvider {
    package let type = "fixed"
    package let timeout: Duration = .seconds(1)
    package var latitude: Double
    package var longitude: Double
    package var name: String?
    package var accuracyMeters: Double?
    private let now: @Sendable () -> Date

    package init(
        latitude: Double,
        longitude: Double,
        name: String?,
        accuracyMeters: Double? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.name = name
        self.accuracyMeters = accuracyMeters
        self.now = now
    }

    /// A fixed place is where the machine always was.
    package func locate(at time: Date) async throws -> Position? {
        var position = try await self.locate()
        position.takenAt = time
        return position
    }

    package func locate() async throws -> Position {
        Position(
            latitude: self.latitude,
            longitude: self.longitude,
            accuracyMeters: self.accuracyMeters,
            source: self.type,
            name: self.name,
            takenAt: self.now()
        )
    }
}

extension FixedLocationProvider {
    /// `{"type": "fixed", "latitude": 37.5665, "longitude": 126.978, "name": "Seoul", "accuracy_m": 100}`
    package struct Settings: Sendable, Equatable {
        package var latitude: Double
        package var longitude: Double
        package var name: String?
        package var accuracyMeters: Double?
    }
}

extension LocationProviderPlugin {
    package static var fixed: LocationProviderPlugin {
        LocationProviderPlugin(
            type: "fixed", name: "a fixed place",
            keys: [
                .number("latitude", required: true, minimum: -90, maximum: 90),
                .number("longitude", required: true, minimum: -180, maximum: 180),
                .string("name"),
                .number("accuracy_m", minimum: 0),
            ]
        ) { (config, _) throws(ConfigurationError) in
            FixedLocationProvider.Settings(
                latitude: try config.latitude("latitude"),
                longitude: try config.longitude("longitude"),
                name: try config.string("name"),
                accuracyMeters: try config.accuracy("accuracy_m"))
        } make: { settings, context in
            FixedLocationProvider(
                latitude: settings.latitude, longitude: settings.longitude, name: settings.name,
                accuracyMeters: settings.accuracyMeters, now: context.now)
        }
    }
}
