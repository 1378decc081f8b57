import FoundationEssentials
import WeathertagCore

/// City-level position from an IP geolocation service. No accuracy radius is given by any of them, so positions
/// carry none; they are cached for `cacheDuration` because an address rarely moves and the services rate-limit.
package final class IPLocationProvider: LocationProvider {
    /// The response shapes understood.
    package enum Service: String, Sendable, CaseIterable {
        /// `http://ip-api.com/json/`: `{"status":"success","lat":…,"lon":…,"city":…}`.
        case ipAPI = "ip-api"
        /// `https://ipinfo.io/json`: `{"loc":"lat,lon","city":…}`.
        case ipinfo

        package var defaultURL: String {
            switch self {
            case .ipAPI: return "http://ip-api.com/json/"
            case .ipinfo: return "https://ipinfo.io/json"
            }
        }
    }

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
        return try Self.decode(response, service: self.service, takenAt: self.now())
    }

    /// Turns a service's answer into a position, or an error naming what was wrong with it.
    package static func decode(_ response: HTTPResponse, service: Service, takenAt: Date) throws -> Position {
        let source = "ip"
        guard response.status == 200 else {
            let reason = response.status == 429 ? "rate limited (HTTP 429)" : "HTTP \(response.status)"
            throw LocationError(source: source, message: "\(service.rawValue) answered \(reason)")
        }
        guard let answer = Answer.decodeJSON(response.body) else {
            throw LocationError(source: source, message: "\(service.rawValue) answered with something other than JSON")
        }
        let latitude: Double?
        let longitude: Double?
        switch service {
        case .ipAPI:
            if let status = answer.status, status != "success" {
                var message = "\(service.rawValue) failed"
                if let detail = answer.message { message += ": \(detail)" }
                throw LocationError(source: source, message: message)
            }
            (latitude, longitude) = (answer.lat, answer.lon)
        case .ipinfo:
            let parts = answer.loc?.split(separator: ",").map { Double($0.trimmingWhitespace()) }
            (latitude, longitude) = parts?.count == 2 ? (parts?[0], parts?[1]) : (nil, nil)
        }
        guard let latitude, let longitude else {
            throw LocationError(source: source, message: "\(service.rawValue) answered without coordinates")
        }
        let name = answer.city.flatMap { $0.isEmpty ? nil : $0 }
        let position = Position(latitude: latitude, longitude: longitude, source: source, name: name, takenAt: takenAt)
        guard position.isValid else {
            throw LocationError(source: source, message: "\(service.rawValue) answered coordinates off the globe")
        }
        return position
    }
}

extension IPLocationProvider {
    /// What the services answer: ip-api's `status`, `message`, `lat` and `lon`, ipinfo's `loc` (`"lat,lon"`), and
    /// both `city`. Numbers may come in strings.
    struct Answer: Decodable {
        var status: String?
        var message: String?
        var lat: Double?
        var lon: Double?
        var loc: String?
        var city: String?

        enum CodingKeys: String, CodingKey { case status, message, lat, lon, loc, city }

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            self.status = fields.lenient(String.self, forKey: .status)
            self.message = fields.lenient(String.self, forKey: .message)
            self.lat = fields.lenientNumber(forKey: .lat)
            self.lon = fields.lenientNumber(forKey: .lon)
            self.loc = fields.lenient(String.self, forKey: .loc)
            self.city = fields.lenient(String.self, forKey: .city)
        }
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
                    _ = try? IPLocationProvider.decode(
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
