import WeathertagCore

/// Asks OpenWeather for current weather and icons. Counts every call it makes; its errors never contain the key.
public struct OpenWeatherClient: Sendable {
    public var configuration: OpenWeatherConfiguration
    private let http: any HTTPClient
    private let statistics: DaemonStatistics

    public init(configuration: OpenWeatherConfiguration, http: any HTTPClient, statistics: DaemonStatistics) {
        self.configuration = configuration
        self.http = http
        self.statistics = statistics
    }

    public func currentWeather(at position: Position) async throws(WeatherError) -> Weather {
        let url = OpenWeatherAPI.currentWeatherURL(
            baseURL: self.configuration.baseURL,
            latitude: position.latitude,
            longitude: position.longitude,
            apiKey: self.configuration.apiKey.value,
            units: self.configuration.units,
            lang: self.configuration.lang
        )
        self.statistics.recordCall()
        let response: HTTPResponse
        do {
            response = try await self.http.get(HTTPRequest(url: url, timeout: self.configuration.timeout))
        } catch {
            throw WeatherError(
                kind: .unreachable, message: "OpenWeather unreachable: \(self.redacted("\(error)"))", cause: error)
        }
        do {
            return try OpenWeatherAPI.decodeCurrentWeather(response, units: self.configuration.units)
        } catch {
            throw WeatherError(kind: error.kind, message: self.redacted(error.message))
        }
    }

    /// The place by name near `position` (already rounded as privacy asks); nil when the geocoder knows none.
    public func placeName(at position: Position) async throws(WeatherError) -> PlaceName? {
        let url = OpenWeatherAPI.reverseGeocodingURL(
            baseURL: self.configuration.baseURL, latitude: position.latitude, longitude: position.longitude,
            apiKey: self.configuration.apiKey.value)
        self.statistics.recordCall()
        let response: HTTPResponse
        do {
            response = try await self.http.get(HTTPRequest(url: url, timeout: self.configuration.timeout))
        } catch {
            throw WeatherError(
                kind: .unreachable, message: "OpenWeather's geocoder unreachable: \(self.redacted("\(error)"))",
                cause: error)
        }
        return try OpenWeatherAPI.decodeReverseGeocoding(response)
    }

    /// The air at `position` (already rounded as privacy asks).
    public func airQuality(at position: Position) async throws(WeatherError) -> AirQuality {
        let url = OpenWeatherAPI.airPollutionURL(
            baseURL: self.configuration.baseURL, latitude: position.latitude, longitude: position.longitude,
            apiKey: self.configuration.apiKey.value)
        self.statistics.recordCall()
        let response: HTTPResponse
        do {
            response = try await self.http.get(HTTPRequest(url: url, timeout: self.configuration.timeout))
        } catch {
            throw WeatherError(
                kind: .unreachable,
                message: "OpenWeather's air pollution API unreachable: \(self.redacted("\(error)"))",
                cause: error)
        }
        return try OpenWeatherAPI.decodeAirPollution(response)
    }

    /// The `{icon}@2x.png` image.
    public func icon(_ code: String) async throws -> [UInt8] {
        let url = OpenWeatherAPI.iconURL(iconBaseURL: self.configuration.iconBaseURL, icon: code)
        self.statistics.update { $0.iconDownloads += 1 }
        let response = try await self.http.get(HTTPRequest(url: url, timeout: self.configuration.timeout))
        let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard response.status == 200, response.body.starts(with: pngSignature) else {
            throw WeatherError(kind: .badResponse, message: "icon \(code): HTTP \(response.status), not a PNG")
        }
        return response.body
    }

    /// Belt and braces: whatever a lower layer put in a message, the key does not leave this type.
    private func redacted(_ message: String) -> String {
        let key = self.configuration.apiKey.value
        return key.isEmpty ? message : message.replacingOccurrences(of: key, with: "<redacted>")
    }
}
