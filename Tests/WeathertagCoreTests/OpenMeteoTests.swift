import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

/// Open-Meteo's current weather and the WMO codes, in OpenWeather's terms: pure, no network.
@Suite("Open-Meteo and the WMO codes")
struct OpenMeteoTests {
    @Test func everyWMOCodeHasAConditionAnIconAndWords() throws {
        let groups: Set<String> = ["Clear", "Clouds", "Fog", "Drizzle", "Rain", "Snow", "Thunderstorm"]
        for code in 0...99 {
            let wmo = try #require(WMOWeatherCode(code), "\(code)")
            #expect(groups.contains(wmo.condition), "\(code)")
            #expect(OpenWeatherAPI.isValidIconCode(wmo.icon(isDay: true)), "\(code)")
            #expect(wmo.icon(isDay: false).hasSuffix("n") && wmo.icon(isDay: true).hasSuffix("d"))
            #expect(!wmo.description(in: "en").isEmpty && !wmo.description(in: "ko").isEmpty, "\(code)")
            #expect((200...804).contains(wmo.openWeatherID), "\(code)")
        }
        #expect(WMOWeatherCode(-1) == nil && WMOWeatherCode(100) == nil)
        #expect(WMOWeatherCode.documented.count == 28)
    }

    @Test func theDocumentedCodesAsOpenWeatherSaysThem() throws {
        func wmo(_ code: Int) throws -> WMOWeatherCode { try #require(WMOWeatherCode(code)) }
        #expect(try wmo(0).condition == "Clear" && wmo(0).openWeatherID == 800 && wmo(0).icon(isDay: false) == "01n")
        #expect(try wmo(3).condition == "Clouds" && wmo(3).icon(isDay: true) == "04d")
        #expect(try wmo(45).condition == "Fog" && wmo(45).iconNumber == "50")
        #expect(try wmo(63).condition == "Rain" && wmo(63).openWeatherID == 501 && wmo(63).iconNumber == "10")
        #expect(try wmo(66).iconNumber == "13", "freezing rain wears OpenWeather's snow icon, as its 511 does")
        #expect(try wmo(75).condition == "Snow" && wmo(75).description(in: "ko") == "강한 눈")
        #expect(try wmo(81).iconNumber == "09" && wmo(81).description(in: "en") == "shower rain")
        #expect(try wmo(99).condition == "Thunderstorm" && wmo(99).iconNumber == "11")
        #expect(try wmo(95).description(in: "de") == "Gewitter", "the diarist's language (WeatherWords)")
        #expect(try wmo(95).description(in: "th") == "thunderstorm", "a language without words: English")
        // Undocumented codes take the nearest of their kind.
        #expect(try wmo(5).condition == "Fog", "haze")
        #expect(try wmo(25).condition == "Clouds", "rain in the past hour, none now")
        #expect(try wmo(64).openWeatherID == 501 && wmo(68).condition == "Rain")
        #expect(try wmo(92).condition == "Thunderstorm" && wmo(50).condition == "Drizzle")
    }

    static let answer = #"""
        {"latitude": 46.2, "longitude": 6.14, "utc_offset_seconds": 3600, "timezone": "Europe/Zurich",
         "current": {"time": 1795431600, "interval": 900, "temperature_2m": 3.5, "relative_humidity_2m": 81,
                     "apparent_temperature": 0.4, "is_day": 1, "precipitation": 0.3, "rain": 0.3, "snowfall": 0.0,
                     "weather_code": 61, "cloud_cover": 100, "pressure_msl": 1012.6, "wind_speed_10m": 4.1,
                     "wind_direction_10m": 250, "wind_gusts_10m": 9.3},
         "daily": {"time": [1795388400], "sunrise": [1795415000], "sunset": [1795447000]}}
        """#

    @Test func theDocumentedAnswerIsTheSameWeatherOpenWeatherGives() throws {
        let weather = try OpenMeteoAPI.decodeCurrent(
            HTTPResponse(status: 200, body: Array(Self.answer.utf8)), units: .metric, lang: "ko")
        #expect(weather.condition == "Rain" && weather.code == 500 && weather.icon == "10d")
        #expect(weather.description == "약한 비" && weather.temperature == 3.5 && weather.feelsLike == 0.4)
        #expect(weather.humidity == 81 && weather.pressure == 1013 && weather.windSpeed == 4.1)
        #expect(weather.windDegrees == 250 && weather.windGust == 9.3 && weather.clouds == 100)
        #expect(weather.rain1h == 0.3 && weather.snow1h == nil && weather.utcOffset == 3600)
        #expect(weather.observedAt == Date(timeIntervalSince1970: 1_795_431_600))
        #expect(weather.sunrise == Date(timeIntervalSince1970: 1_795_415_000) && weather.daylight == true)
        let kelvin = try OpenMeteoAPI.decodeCurrent(
            HTTPResponse(status: 200, body: Array(Self.answer.utf8)), units: .standard, lang: "en")
        #expect(abs(kelvin.temperature - 276.65) < 1e-9 && kelvin.description == "light rain")
        let night = Self.answer.replacingOccurrences(of: #""is_day": 1"#, with: #""is_day": 0"#)
        let dark = try OpenMeteoAPI.decodeCurrent(
            HTTPResponse(status: 200, body: Array(night.utf8)), units: .metric, lang: "en")
        #expect(dark.icon == "10n", "is_day decides day or night")
        // A polar night: no sunrise, no sunset, the weather still read.
        let polar = night.replacingOccurrences(
            of: #""sunrise": [1795415000], "sunset": [1795447000]"#, with: #""sunrise": [null], "sunset": [null]"#)
        let winter = try OpenMeteoAPI.decodeCurrent(
            HTTPResponse(status: 200, body: Array(polar.utf8)), units: .metric, lang: "en")
        #expect(polar != night && winter.sunrise == nil && winter.sunset == nil && winter.icon == "10n")
    }

    @Test func theRequestCarriesThePolicysDecimalsAndTheUnits() {
        let here = Position(
            latitude: 46.204_412, longitude: 6.143_211, source: "gpsd", takenAt: Fixtures.observedAt)
        let url = OpenMeteoAPI.currentURL(
            baseURL: "http://127.0.0.1:9/", at: PrivacyPolicy().requestPosition(here), units: .imperial)
        #expect(url.hasPrefix("http://127.0.0.1:9/v1/forecast?latitude=46.20000&longitude=6.14000&current="))
        #expect(url.contains("weather_code") && url.contains("daily=sunrise,sunset"))
        #expect(url.contains("temperature_unit=fahrenheit") && url.contains("wind_speed_unit=mph"))
        let metric = OpenMeteoAPI.currentURL(
            baseURL: "http://h", at: Fixtures.request(1, 2), units: .metric)
        #expect(metric.contains("temperature_unit=celsius") && metric.contains("wind_speed_unit=ms"))
    }

    @Test func itsErrorsAsDocumented() {
        func error(_ status: Int, _ body: String) -> WeatherError? {
            do {
                _ = try OpenMeteoAPI.decodeCurrent(
                    HTTPResponse(status: status, body: Array(body.utf8)), units: .metric, lang: "en")
                return nil
            } catch {
                return error
            }
        }
        let refused = error(400, #"{"error": true, "reason": "Latitude must be in range of -90 to 90°."}"#)
        #expect(refused?.kind == .badResponse && refused?.message.contains("Latitude must be in range") == true)
        guard
            case .rateLimited(let wait)? = error(
                429, #"{"error": true, "reason": "Daily API request limit exceeded"}"#)?.kind
        else {
            Issue.record("429 is a rate limit")
            return
        }
        #expect(wait == .seconds(60))
        #expect(error(502, "<html>Bad Gateway</html>")?.kind == .serverError(status: 502))
        #expect(error(200, "<html>")?.kind == .badResponse)
        #expect(error(200, #"{"current": {"time": 1, "temperature_2m": 3}}"#)?.kind == .badResponse, "no code")
    }
}
