import Foundation

/// The air at a place, from OpenWeather's air pollution API (`air_quality.enabled`).
public struct AirQuality: Sendable, Equatable, Codable {
    /// OpenWeather's index: 1 good, 2 fair, 3 moderate, 4 poor, 5 very poor.
    public var aqi: Int
    /// µg/m³, when sent.
    public var pm2_5: Double?
    public var pm10: Double?
    public var o3: Double?
    public var no2: Double?

    public init(aqi: Int, pm2_5: Double? = nil, pm10: Double? = nil, o3: Double? = nil, no2: Double? = nil) {
        self.aqi = aqi
        self.pm2_5 = pm2_5
        self.pm10 = pm10
        self.o3 = o3
        self.no2 = no2
    }

    /// `good`, `fair`, `moderate`, `poor`, `very_poor`.
    public var label: String {
        switch self.aqi {
        case ...1: return "good"
        case 2: return "fair"
        case 3: return "moderate"
        case 4: return "poor"
        default: return "very_poor"
        }
    }
}

extension OpenWeatherAPI {
    /// `{base}/data/2.5/air_pollution?lat=&lon=&appid=`. Contains the key: never log it.
    public static func airPollutionURL(baseURL: String, at position: RequestPosition, apiKey: String) -> String {
        Self.url(
            baseURL, "/data/2.5/air_pollution", at: position,
            ["appid=\(Self.percentEncoded(apiKey))"])
    }

    /// `list[0]`: `main.aqi` (1–5) and the components.
    public static func decodeAirPollution(_ response: HTTPResponse) throws(WeatherError) -> AirQuality {
        guard response.status == 200 else {
            throw WeatherError(
                kind: .serverError(status: response.status),
                message: "OpenWeather's air pollution API answered HTTP \(response.status)")
        }
        struct Answer: Decodable {
            struct Item: Decodable {
                struct Main: Decodable { var aqi: Int }
                var main: Main
                var components: [String: Double]?
            }
            var list: [Item]
        }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(response.body)),
            let first = answer.list.first, (1...5).contains(first.main.aqi)
        else {
            throw WeatherError(
                kind: .badResponse, message: "OpenWeather's air pollution answer is not the documented JSON shape")
        }
        let components = first.components ?? [:]
        return AirQuality(
            aqi: first.main.aqi, pm2_5: components["pm2_5"], pm10: components["pm10"], o3: components["o3"],
            no2: components["no2"])
    }
}
