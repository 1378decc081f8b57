import Foundation
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

    public func currentWeather(at position: RequestPosition) async throws(WeatherError) -> Weather {
        let url = OpenWeatherAPI.currentWeatherURL(
            baseURL: self.configuration.baseURL,
            at: position,
            apiKey: self.configuration.apiKey.value,
            units: self.configuration.units,
            lang: self.configuration.lang
        )
        let response = try await self.get(url, "OpenWeather")
        do {
            return try OpenWeatherAPI.decodeCurrentWeather(response, units: self.configuration.units)
        } catch {
            throw WeatherError(kind: error.kind, message: self.redacted(error.message))
        }
    }

    /// The place by name near `position`; nil when the geocoder knows none.
    public func placeName(at position: RequestPosition) async throws(WeatherError) -> PlaceName? {
        let url = OpenWeatherAPI.reverseGeocodingURL(
            baseURL: self.configuration.baseURL, at: position, apiKey: self.configuration.apiKey.value)
        return try OpenWeatherAPI.decodeReverseGeocoding(try await self.get(url, "OpenWeather's geocoder"))
    }

    /// The air at `position`.
    public func airQuality(at position: RequestPosition) async throws(WeatherError) -> AirQuality {
        let url = OpenWeatherAPI.airPollutionURL(
            baseURL: self.configuration.baseURL, at: position, apiKey: self.configuration.apiKey.value)
        return try OpenWeatherAPI.decodeAirPollution(try await self.get(url, "OpenWeather's air pollution API"))
    }

    /// The timemachine's answer for `position` at `time`, checked to hold the weather of that time, as it came (to
    /// be kept and read again).
    public func timemachineAnswer(at position: RequestPosition, time: Date) async throws(WeatherError) -> [UInt8] {
        let url = OpenWeatherAPI.timemachineURL(
            baseURL: self.configuration.baseURL, at: position, time: time, apiKey: self.configuration.apiKey.value,
            units: self.configuration.units,
            lang: self.configuration.lang)
        let response = try await self.get(url, "OpenWeather's history")
        do {
            _ = try OpenWeatherAPI.decodeTimemachine(response, units: self.configuration.units)
        } catch {
            throw WeatherError(kind: error.kind, message: self.redacted(error.message))
        }
        return response.body
    }

    /// One counted call; a transport failure is `.unreachable`, in words without the key.
    private func get(_ url: String, _ service: String) async throws(WeatherError) -> HTTPResponse {
        self.statistics.recordCall()
        do {
            return try await self.http.get(HTTPRequest(url: url, timeout: self.configuration.timeout))
        } catch {
            throw WeatherError(
                kind: .unreachable, message: "\(service) unreachable: \(self.redacted("\(error)"))", cause: error)
        }
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
