import FoundationEssentials

extension OpenWeatherAPI {
    /// `{base}/data/2.5/air_pollution?lat=&lon=&appid=`. Contains the key: never log it.
    package static func airPollutionURL(baseURL: String, at position: RequestPosition, apiKey: String) -> String {
        Self.url(
            baseURL, "/data/2.5/air_pollution", at: position,
            ["appid=\(Self.percentEncoded(apiKey))"])
    }

    /// `list[0]`: `main.aqi` (1–5) and the components.
    package static func decodeAirPollution(_ response: HTTPResponse) throws(WeatherError) -> AirQuality {
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
