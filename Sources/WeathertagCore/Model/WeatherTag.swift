import FoundationEssentials

/// Everything weathertag says about "the weather here, now": what is stamped into entries and served on the
/// socket.
package struct WeatherTag: Sendable, Equatable {
    package var weather: Weather
    package var position: Position
    /// The cached icon image, when it could be downloaded.
    package var iconFile: String?
    /// When weathertag fetched the weather from OpenWeather.
    package var fetchedAt: Date
    /// True when a refresh failed and this is older weather served rather than nothing.
    package var stale: Bool
    package var kind: Kind
    /// The place by name from OpenWeather's reverse geocoder (in `weather.lang` when it has it), its region
    /// and ISO country code; nil when geocoding is off or failed.
    package var geocodedPlace: String?
    package var region: String?
    package var country: String?
    /// The air there (`air_quality.enabled`).
    package var airQuality: AirQuality?

    /// Whether this is the weather of now, or of an earlier time (a back-dated entry's, from OpenWeather's history).
    package enum Kind: String, Sendable, Equatable {
        case current, historical
    }

    package init(
        weather: Weather, position: Position, iconFile: String?, fetchedAt: Date, stale: Bool = false,
        kind: Kind = .current
    ) {
        self.weather = weather
        self.position = position
        self.iconFile = iconFile
        self.fetchedAt = fetchedAt
        self.stale = stale
        self.kind = kind
    }

    /// The place name to show: the geocoder's, else OpenWeather's station, else the provider's, else nil.
    package var place: String? {
        if let place = self.geocodedPlace, !place.isEmpty { return place }
        if let place = self.weather.place, !place.isEmpty { return place }
        if let name = self.position.name, !name.isEmpty { return name }
        return nil
    }

    /// The place's zone, when the source or the geocoder named it, else its offset in the answer; nil when
    /// neither is known.
    package var placeZone: Zone? {
        self.weather.zone.flatMap(Zone.named) ?? self.weather.utcOffset.map { Zone.fixed(secondsFromGMT: $0) }
    }
}
