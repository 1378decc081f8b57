import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

@Suite("OpenWeather answers")
struct OpenWeatherDecodingTests {
    /// The documented example response.
    static let documented = """
        {"coord":{"lon":10.99,"lat":44.34},
         "weather":[{"id":501,"main":"Rain","description":"moderate rain","icon":"10d"}],
         "base":"stations",
         "main":{"temp":298.48,"feels_like":298.74,"temp_min":297.56,"temp_max":300.05,"pressure":1015,
                 "humidity":64,"sea_level":1015,"grnd_level":933},
         "visibility":10000,"wind":{"speed":0.62,"deg":349,"gust":1.18},"rain":{"1h":3.16},"clouds":{"all":100},
         "dt":1661870592,"sys":{"type":2,"id":2075663,"country":"IT","sunrise":1661834187,"sunset":1661882248},
         "timezone":7200,"id":3163858,"name":"Zocca","cod":200}
        """

    func decode(_ status: Int, _ body: String, headers: [String: String] = [:]) -> Result<Weather, WeatherError> {
        Result { () throws(WeatherError) in
            try OpenWeatherAPI.decodeCurrentWeather(
                HTTPResponse(status: status, headers: headers, body: Array(body.utf8)),
                units: .standard
            )
        }
    }

    @Test func documentedExample() throws {
        let weather = try self.decode(200, Self.documented).get()
        #expect(weather.condition == "Rain")
        #expect(weather.description == "moderate rain")
        #expect(weather.code == 501)
        #expect(weather.icon == "10d")
        #expect(weather.temperature == 298.48)
        #expect(weather.feelsLike == 298.74)
        #expect(weather.humidity == 64)
        #expect(weather.pressure == 1015)
        #expect(weather.windSpeed == 0.62)
        #expect(weather.place == "Zocca")
        #expect(weather.observedAt == Date(timeIntervalSince1970: 1_661_870_592))
    }

    /// What the answer carries besides the basics: the sun, the place's clock, wind direction and gusts, clouds,
    /// visibility, rain; the block and the templates say it in the place's own time.
    @Test func theRestOfTheAnswerIsKeptAndStamped() throws {
        let weather = try self.decode(200, Self.documented).get()
        #expect(weather.sunrise == Date(timeIntervalSince1970: 1_661_834_187))
        #expect(weather.sunset == Date(timeIntervalSince1970: 1_661_882_248))
        #expect(weather.utcOffset == 7200 && weather.daylight == true)
        #expect(weather.windDegrees == 349 && weather.windDirection == "N" && weather.windGust == 1.18)
        #expect(weather.clouds == 100 && weather.visibility == 10000 && weather.rain1h == 3.16 && weather.snow1h == nil)
        let tag = WeatherTag(
            weather: weather, position: Fixtures.position, iconFile: nil, fetchedAt: weather.observedAt)
        let lines = tag.stampLines
        for expected in [
            "  wind_deg: 349", "  wind_direction: N", "  wind_gust: 1.18", "  clouds: 100", "  visibility: 10000",
            "  rain_1h: 3.16", "  observed_at: 2022-08-30T14:43:12Z", "  local_time: 2022-08-30T16:43:12+02:00",
            "  sunrise: 2022-08-30T06:36:27+02:00", "  sunset: 2022-08-30T19:57:28+02:00", "  daylight: true",
            // 2022-08-27 08:17 UTC was new moon: three days later, a thin waxing crescent.
            "  moon_phase: waxing_crescent", "  kind: current",
        ] {
            #expect(lines.contains(expected), "\(expected) in \(lines)")
        }
        #expect(!lines.contains { $0.hasPrefix("  snow_1h") }, "only what OpenWeather sent")
        let formatted = try TagFormatter(
            template: "{sunrise}–{sunset} {daylight} {local_time} {moon} {moon_phase} {wind_direction} {clouds}%"
        ).format(tag)
        #expect(formatted == "06:36–19:57 day 16:43 🌒 waxing_crescent N 100%")
        #expect(["N", "NNE", "E", "S", "WSW", "NNW", "N"] == [0, 22, 90, 180, 250, 337, 359].map(Weather.compass))
        #expect(Date(timeIntervalSince1970: 0).iso8601(utcOffset: -12_600) == "1969-12-31T20:30:00-03:30")
    }

    @Test func optionalFieldsMayBeMissingAndNameEmpty() throws {
        let body =
            #"{"weather":[{"id":800,"main":"Clear","description":"clear sky","icon":"01n"}],"main":{"temp":3.5},"dt":1,"name":""}"#
        let weather = try self.decode(200, body).get()
        #expect(weather.place == nil)
        #expect(weather.windSpeed == nil && weather.humidity == nil)
        #expect(weather.sunrise == nil && weather.daylight == nil && weather.windDirection == nil)
        let lines = WeatherTag(weather: weather, position: Fixtures.position, iconFile: nil, fetchedAt: Date())
            .stampLines
        #expect(
            !lines.contains { $0.hasPrefix("  sunrise") || $0.hasPrefix("  daylight") || $0.hasPrefix("  local_time") })
    }

    @Test func errorShapes() {
        func kind(_ status: Int, _ body: String, headers: [String: String] = [:]) -> WeatherError.Kind? {
            if case .failure(let error) = self.decode(status, body, headers: headers) { return error.kind }
            return nil
        }
        #expect(kind(401, #"{"cod":401,"message":"Invalid API key."}"#) == .unauthorized)
        #expect(kind(404, #"{"cod":"404","message":"city not found"}"#) == .notFound)
        #expect(kind(429, #"{"cod":429}"#, headers: ["retry-after": "120"]) == .rateLimited(retryAfter: .seconds(120)))
        #expect(kind(429, #"{"cod":429}"#) == .rateLimited(retryAfter: nil))
        #expect(kind(502, "<html>Bad Gateway</html>") == .serverError(status: 502))
        #expect(kind(200, "<html>not json</html>") == .badResponse)
        #expect(kind(200, #"{"hello":"world"}"#) == .badResponse)
        #expect(kind(200, #"{"weather":[],"main":{"temp":1}}"#) == .badResponse)
    }

    @Test func errorsSayWhatToDo() throws {
        guard case .failure(let error) = self.decode(401, #"{"cod":401,"message":"Invalid API key."}"#) else {
            Issue.record("expected an error")
            return
        }
        #expect(error.message.contains("rejected the API key"))
        #expect(error.message.contains("Invalid API key."))
        #expect(error.minimumRetryDelay >= .seconds(600))
        #expect(
            WeatherError(kind: .rateLimited(retryAfter: .seconds(5)), message: "").minimumRetryDelay == .seconds(60))
    }

    @Test func requestURL() {
        let url = OpenWeatherAPI.currentWeatherURL(
            baseURL: "https://api.openweathermap.org/",
            at: Fixtures.request(37.5665, 126.978),
            apiKey: "a b",
            units: .imperial,
            lang: "zh_cn"
        )
        #expect(
            url
                == "https://api.openweathermap.org/data/2.5/weather?lat=37.56650&lon=126.97800&appid=a%20b&units=imperial&lang=zh_cn"
        )
        #expect(
            OpenWeatherAPI.iconURL(iconBaseURL: "https://openweathermap.org/img/wn", icon: "04d")
                == "https://openweathermap.org/img/wn/04d@2x.png")
        #expect(OpenWeatherAPI.isValidIconCode("04d") && OpenWeatherAPI.isValidIconCode("13n"))
        #expect(!OpenWeatherAPI.isValidIconCode("../x") && !OpenWeatherAPI.isValidIconCode("04x"))
    }
}

/// Every service's answer is read within bounds: nesting no JSON reader should recurse through (100,000 `[`, 50,000
/// `{"a":`) is an error naming the source, never a crash. `JSONDecoder` (FoundationEssentials) stops at 512 levels.
@Suite("hostile answers")
struct HostileAnswerTests {
    static let bodies = [
        String(repeating: "[", count: 100_000), String(repeating: "{\"a\":", count: 50_000),
        "{\"current\": " + String(repeating: "[", count: 100_000) + "}",
    ]

    @Test(arguments: Self.bodies)
    func deepNestingIsABadAnswer(body: String) {
        let response = HTTPResponse(status: 200, body: Array(body.utf8))
        #expect(throws: WeatherError.self) { try OpenWeatherAPI.decodeCurrentWeather(response, units: .metric) }
        #expect(throws: WeatherError.self) { try OpenWeatherAPI.decodeTimemachine(response, units: .metric) }
        #expect(throws: WeatherError.self) {
            try OpenMeteoAPI.decodeCurrent(response, units: .metric, lang: "en")
        }
        #expect(throws: WeatherError.self) { try OpenMeteoHistory.decode(Array(body.utf8)) }
        #expect(throws: WeatherError.self) {
            try METNorwayAPI.decode(
                response, at: Fixtures.request(59.9, 10.7), units: .metric, lang: "en")
        }
    }

    /// Numbers beyond any measure (`1e300`, an offset of 9·10¹⁸ s) where integers are made of them: the field is
    /// unknown, a time that can be no time is a bad answer; nothing traps (`Int(1e300)` did: the `fuzz-json` target
    /// found it in a history answer's `time`).
    @Test func numbersBeyondAnyMeasureAreUnknownNotATrap() throws {
        let condition = #"[{"id": 500, "main": "Rain", "description": "light rain", "icon": "10d"}]"#
        let current = HTTPResponse(
            status: 200,
            body: Array(
                #"""
                {"main": {"temp": 12.5, "humidity": 1e300, "pressure": -1e300}, "clouds": {"all": 1e308},
                 "wind": {"deg": 1e300}, "visibility": 1e300, "weather": \#(condition), "dt": 1700000000,
                 "timezone": 9000000000000000000, "sys": {"sunrise": 1e300}}
                """#.utf8))
        let weather = try OpenWeatherAPI.decodeCurrentWeather(current, units: .metric)
        #expect(weather.temperature == 12.5)
        #expect(weather.humidity == nil && weather.pressure == nil && weather.clouds == nil)
        #expect(weather.windDegrees == nil && weather.visibility == nil && weather.sunrise == nil)
        #expect(weather.utcOffset(at: weather.observedAt) == nil)
        let noTime = HTTPResponse(
            status: 200, body: Array(#"{"main": {"temp": 1}, "weather": \#(condition), "dt": 1e300}"#.utf8))
        #expect(throws: WeatherError.self) { try OpenWeatherAPI.decodeCurrentWeather(noTime, units: .metric) }
        let meteo = HTTPResponse(
            status: 200,
            body: Array(
                #"{"utc_offset_seconds": 9000000000000000000, "current": {"time": 1700000000, "temperature_2m": 3, "weather_code": 1e300, "relative_humidity_2m": 1e300}}"#
                    .utf8))
        #expect(throws: WeatherError.self, "no weather code it could be") {
            try OpenMeteoAPI.decodeCurrent(meteo, units: .metric, lang: "en")
        }
        let history = #"{"hourly": {"time": [1e300], "temperature_2m": [1], "weather_code": [1]}}"#
        #expect(throws: WeatherError.self) { try OpenMeteoHistory.decode(Array(history.utf8)) }
        let hours = try OpenMeteoHistory.decode(
            Array(
                #"{"hourly": {"time": [1700000000], "temperature_2m": [1], "weather_code": [3], "relative_humidity_2m": [3e38], "pressure_msl": [-3e38]}}"#
                    .utf8))
        let hour = try #require(hours.weather(hour: 1_700_000_000 / 3600, units: .metric, lang: "en"))
        #expect(hour.humidity == nil && hour.pressure == nil)
    }
}
