import FoundationEssentials

/// What IP geolocation services answer (ip-api's `/json/`, ipinfo's `/json`), read purely: bytes in, a position or
/// an error naming what was wrong. The provider (`IPLocationProvider`, in the daemon) asks; this reads, tested on
/// their documented answers and fuzzed by being registered (`Plugin.answers`).
package enum IPGeolocationAPI {
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

extension IPGeolocationAPI {
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
