import WeathertagCore
import WeathertagGPSD

extension LocationProviderRegistry {
    /// Every provider type weathertag ships. A new source is one file with its provider and factory, plus a line here.
    public static let builtIns = LocationProviderRegistry([
        .gpsd,
        .ip,
        .command,
        .fixed,
        .track,
        .owntracks,
        .homeassistant,
    ])
}
