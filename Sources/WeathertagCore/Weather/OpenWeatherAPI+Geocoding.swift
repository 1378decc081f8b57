import FoundationEssentials

extension OpenWeatherAPI {
    /// `{base}/geo/1.0/reverse?lat=&lon=&limit=1&appid=`. Contains the key: never log it.
    package static func reverseGeocodingURL(baseURL: String, at position: RequestPosition, apiKey: String) -> String {
        Self.url(
            baseURL, "/geo/1.0/reverse", at: position,
            ["limit=1", "appid=\(Self.percentEncoded(apiKey))"])
    }

    /// The first place of the geocoder's answer; nil when it knows none (an empty list, in the sea).
    package static func decodeReverseGeocoding(_ response: HTTPResponse) throws(WeatherError) -> PlaceName? {
        guard response.status == 200 else {
            throw WeatherError(
                kind: .serverError(status: response.status),
                message: "OpenWeather's geocoder answered HTTP \(response.status)")
        }
        struct Answer: Decodable {
            var name: String
            var local_names: [String: String]?
            var state: String?
            var country: String?
        }
        guard let answers = try? JSONDecoder().decode([Answer].self, from: Data(response.body)) else {
            throw WeatherError(
                kind: .badResponse, message: "OpenWeather's geocoder answer is not the documented JSON shape")
        }
        guard let first = answers.first, !first.name.isEmpty else { return nil }
        return PlaceName(
            name: first.name, localNames: first.local_names ?? [:],
            region: first.state.flatMap { $0.isEmpty ? nil : $0 },
            country: first.country.flatMap { $0.isEmpty ? nil : $0 })
    }
}
