import WeathertagCore

extension LocationProviderRegistry {
    /// Every provider type weathertag ships. A new source is one file in this folder with its provider, its
    /// `Settings` and its `LocationProviderPlugin`, plus a line here. Without `location.providers`, IP geolocation.
    package static var builtIns: LocationProviderRegistry {
        LocationProviderRegistry(
            [
                .gpsd,
                .ip,
                .command,
                .fixed,
                .track,
                .owntracks,
                .homeassistant,
            ], fallback: .init(type: "ip", reason: "no location.providers, so IP geolocation"))
    }
}
