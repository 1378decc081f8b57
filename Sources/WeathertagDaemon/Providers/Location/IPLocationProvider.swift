import FoundationEssentials
import WeathertagCore

/// City-level position from an IP geolocation service. No accuracy radius is given by any of them, so positions
/// carry none; they are cached for `cacheDuration` because an address rarely moves and the services rate-limit.
package final class IPLocationProvider: LocationProvider {
    /// The response shapes understood (`IPGeolocationAPI`).
    package typealias Service = IPGeolocationAPI.Service

    package let type = "ip"
    package let timeout: Duration
    package let service: Service
    package let url: String
    private let http: any HTTPClient
    private let now: @Sendable () -> Date
    private let cache: PositionCache

    package init(
        service: Service,
        url: String?,
        timeout: Duration,
        cacheDuration: Duration,
        http: any HTTPClient,
        now: @escaping @Sendable () -> Date
    ) {
        self.service = service
        self.url = url ?? service.defaultURL
        self.timeout = timeout
        self.http = http
        self.now = now
        self.cache = PositionCache(duration: cacheDuration, now: now)
    }

    package func locate() async throws -> Position {
        try await self.cache.get { try await self.ask() }
    }

    private func ask() async throws -> Position {
        let response: HTTPResponse
        do {
            response = try await self.http.get(HTTPRequest(url: self.url, timeout: self.timeout))
        } catch {
            throw LocationError(
                source: self.type, message: "\(self.service.rawValue) unreachable: \(error)", cause: error)
        }
        return try IPGeolocationAPI.decode(response, service: self.service, takenAt: self.now())
    }

}

extension IPLocationProvider {
    /// `{"type": "ip", "service": "ip-api", "url": "http://ip-api.com/json/", "timeout_seconds": 5,
    /// "cache_seconds": 600}`
    package struct Settings: Sendable, Equatable {
        package var service: Service
        package var url: String?
        package var timeout: Duration
        package var cacheDuration: Duration
    }
}

extension LocationProviderPlugin {
    package static var ip: LocationProviderPlugin {
        LocationProviderPlugin(
            type: "ip", name: "IP geolocation",
            answers: IPLocationProvider.Service.allCases.map { service in
                AnswerReader("\(service.rawValue)'s answer") { bytes in
                    _ = try? IPGeolocationAPI.decode(
                        HTTPResponse(status: 200, body: bytes), service: service,
                        takenAt: Date(timeIntervalSince1970: 0))
                }
            },
            keys: [
                .choice("service", ["ip-api", "ipinfo"], default: "ip-api"),
                .url("url"),
                .seconds("timeout_seconds", maximum: 300, default: 5),
                .seconds("cache_seconds", maximum: 86400, default: 600),
            ]
        ) { (config, _) throws(ConfigurationError) in
            IPLocationProvider.Settings(
                service: try config.choice("service", ["ip-api": .ipAPI, "ipinfo": .ipinfo]) ?? .ipAPI,
                url: try config.url("url"),
                timeout: try config.seconds("timeout_seconds", maximum: 300) ?? .seconds(5),
                cacheDuration: try config.seconds("cache_seconds", maximum: 86_400) ?? .seconds(600))
        } make: { settings, context in
            IPLocationProvider(
                service: settings.service, url: settings.url, timeout: settings.timeout,
                cacheDuration: settings.cacheDuration, http: context.http, now: context.now)
        }
    }
}
