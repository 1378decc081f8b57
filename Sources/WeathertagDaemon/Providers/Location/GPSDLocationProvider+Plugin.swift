import WeathertagCore
import WeathertagGPSD

// gpsd's client (`GPSDLocationProvider`) lives in the WeathertagGPSD target, the one that touches libgps; its
// settings and registry entry live here with the other location plugins.

extension GPSDLocationProvider {
    /// `{"type": "gpsd", "host": "127.0.0.1", "port": 2947, "timeout_seconds": 5, "max_fix_age_seconds": 60}`
    package struct Settings: Sendable, Equatable {
        package var host: String
        package var port: Int
        package var timeout: Duration
        package var maximumFixAge: Duration
    }
}

extension LocationProviderPlugin {
    package static var gpsd: LocationProviderPlugin {
        LocationProviderPlugin(
            type: "gpsd", name: "gpsd",
            keys: [
                .string("host", minLength: 1, default: "127.0.0.1"),
                .integer("port", minimum: 1, maximum: 65535, default: 2947),
                .seconds("timeout_seconds", maximum: 300, default: 5),
                .seconds("max_fix_age_seconds", maximum: 86400, default: 60),
            ]
        ) { (config, _) throws(ConfigurationError) in
            GPSDLocationProvider.Settings(
                host: try config.nonEmptyString("host") ?? "127.0.0.1",
                port: try config.integer("port", in: 1...65_535) ?? 2947,
                timeout: try config.seconds("timeout_seconds", maximum: 300) ?? .seconds(5),
                maximumFixAge: try config.seconds("max_fix_age_seconds", maximum: 86_400) ?? .seconds(60))
        } make: { settings, context in
            GPSDLocationProvider(
                host: settings.host, port: settings.port, timeout: settings.timeout,
                maximumFixAge: settings.maximumFixAge, logger: context.logger, now: context.now)
        }
    }
}
