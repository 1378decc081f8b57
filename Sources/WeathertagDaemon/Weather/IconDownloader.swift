import FoundationEssentials
import WeathertagCore

/// Downloads OpenWeather's `{icon}@2x.png` images (`openweather.icon_base_url`) for `icon_file`. Every source gives
/// OpenWeather's icon codes, but the images are OpenWeather's: they are fetched only when OpenWeather is one of the
/// sources, so a keyless configuration talks to no commercial service. The request carries no position.
package struct IconDownloader: Sendable {
    let baseURL: String
    let timeout: Duration
    let http: any HTTPClient
    let countDownload: @Sendable () -> Void

    package init(
        baseURL: String, timeout: Duration, http: any HTTPClient, countDownload: @escaping @Sendable () -> Void
    ) {
        self.baseURL = baseURL
        self.timeout = timeout
        self.http = http
        self.countDownload = countDownload
    }

    /// The image of `code`, checked to be a PNG.
    package func icon(_ code: String) async throws -> [UInt8] {
        let url = OpenWeatherAPI.iconURL(iconBaseURL: self.baseURL, icon: code)
        self.countDownload()
        let response = try await self.http.get(HTTPRequest(url: url, timeout: self.timeout))
        let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard response.status == 200, response.body.starts(with: pngSignature) else {
            throw WeatherError(kind: .badResponse, message: "icon \(code): HTTP \(response.status), not a PNG")
        }
        return response.body
    }
}
