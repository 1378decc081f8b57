import FoundationEssentials
import WeathertagCore

/// Open-Meteo's current weather and air (`open-meteo`): no key. Its WMO codes become OpenWeather's condition, description
/// and icon codes (`WMOWeatherCode`), so every part of weathertag reads its answer as it reads OpenWeather's.
public struct OpenMeteoSource: WeatherSource {
    public let type = "open-meteo"
    public let settings: Settings
    private let http: any HTTPClient
    private let countCall: @Sendable () -> Void

    public init(settings: Settings, http: any HTTPClient, countCall: @escaping @Sendable () -> Void) {
        self.settings = settings
        self.http = http
        self.countCall = countCall
    }

    /// Open-Meteo allows 600 calls a minute per address; current weather takes no more than a tenth of that.
    public var maximumCallsPerMinute: Int { 60 }

    public func currentWeather(at position: RequestPosition) async throws(WeatherError) -> Weather {
        let url = OpenMeteoAPI.currentURL(
            baseURL: self.settings.service.baseURL, at: position, units: self.settings.units)
        return try OpenMeteoAPI.decodeCurrent(
            try await self.get(url), units: self.settings.units, lang: self.settings.lang)
    }

    /// The air now, on the European index (`air_quality_url`).
    public func airQuality(at position: RequestPosition) async throws(WeatherError) -> AirQuality? {
        let url = OpenMeteoAPI.airQualityURL(baseURL: self.settings.service.airQualityURL, at: position)
        return try OpenMeteoAPI.decodeAirQuality(try await self.get(url))
    }

    private func get(_ url: String) async throws(WeatherError) -> HTTPResponse {
        self.countCall()
        do {
            return try await self.http.get(HTTPRequest(url: url, timeout: self.settings.service.timeout))
        } catch {
            throw WeatherError(kind: .unreachable, message: "Open-Meteo unreachable: \(error)", cause: error)
        }
    }
}

extension OpenMeteoSource {
    /// `{"type": "open-meteo", "timeout_seconds": 10}`; the addresses are in `open_meteo`, the units and the
    /// language in `openweather` (shared by every source).
    public struct Settings: Sendable {
        public var service: OpenMeteoConfiguration
        public var units: Units
        public var lang: String
    }
}

extension WeatherSourcePlugin {
    public static var openMeteo: WeatherSourcePlugin {
        WeatherSourcePlugin(
            type: "open-meteo", keys: ["timeout_seconds"]
        ) { (config, context) throws(ConfigurationError) in
            var service = context.openMeteo
            if let timeout = try config.seconds("timeout_seconds", maximum: 120) { service.timeout = timeout }
            return OpenMeteoSource.Settings(
                service: service, units: context.openWeather.units, lang: context.openWeather.lang)
        } make: { settings, context in
            OpenMeteoSource(settings: settings, http: context.http, countCall: context.countCall)
        }
    }
}
