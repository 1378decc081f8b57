import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

/// Answers the real services recorded, from public repositories (`Recorded/PROVENANCE.md` says where each comes
/// from), read with weathertag's own decoders: what they hold is what is stamped, and what they lack is not invented.
@Suite("Answers the real services recorded")
struct RecordedAnswerTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Recorded")

    static func answer(_ name: String, status: Int = 200) throws -> HTTPResponse {
        let data = try Data(contentsOf: Self.folder.appendingPathComponent(name))
        return HTTPResponse(status: status, body: [UInt8](data))
    }

    /// Seconds since 1970 of a UTC `YYYY-MM-DDTHH:MM:SSZ`.
    static func utc(_ text: String) throws -> Double {
        try #require(Date(iso8601: text)).timeIntervalSince1970
    }

    /// Open-Meteo's current weather with its default ISO 8601 local times and every variable there is: the time is
    /// the local time less the answer's offset, the variables asked for are read, the rest (many `null`) ignored.
    @Test func openMeteoCurrentWithLocalTimesAndEveryVariable() throws {
        let weather = try OpenMeteoAPI.decodeCurrent(
            Self.answer("open-meteo-forecast-current.json"), units: .metric, lang: "en")
        // "2026-10-03T12:30" at utc_offset_seconds 7200.
        #expect(weather.observedAt.timeIntervalSince1970 == (try Self.utc("2026-10-03T10:30:00Z")))
        #expect(weather.temperature == 17.7)
        #expect(weather.feelsLike == 17.6)
        #expect(weather.humidity == 66)
        #expect(weather.pressure == 1030)
        #expect(weather.windDegrees == 259)
        #expect(weather.windGust == 11.9)
        #expect(weather.clouds == 73)
        // WMO 2 (partly cloudy: scattered clouds, 03) by day (`is_day` 1).
        #expect(weather.condition == "Clouds")
        #expect(weather.icon == "03d")
        #expect(weather.rain1h == nil)
        #expect(weather.zone == "Europe/Amsterdam")
        // The place's clock: Amsterdam is at +02:00 on 3 October.
        #expect(weather.utcOffset(at: weather.observedAt) == 7200)
    }

    /// An answer with no `current` at all is a bad answer, said as one.
    @Test func openMeteoWithoutCurrentIsABadAnswer() throws {
        let answer = try Self.answer("open-meteo-forecast-minimal.json")
        let result = Result { () throws(WeatherError) in
            try OpenMeteoAPI.decodeCurrent(answer, units: .metric, lang: "en")
        }
        guard case .failure(let error) = result else {
            Issue.record("an answer without `current` was read as weather")
            return
        }
        #expect(error.kind == .badResponse)
        #expect(error.message.contains("Open-Meteo"))
    }

    /// The historical forecast's hours in ISO 8601 local time: each hour where the offset puts it, with its weather
    /// code; with no `is_day`, the sun at the grid point says it is night (midnight in January).
    @Test func openMeteoHistoryWithLocalTimes() throws {
        let series = try OpenMeteoHistory.decode(Self.answer("open-meteo-historical-forecast.json").body)
        // "2024-01-01T00:00" at utc_offset_seconds 7200 is 2023-12-31T22:00Z.
        let first = Int(try Self.utc("2023-12-31T22:00:00Z") / 3600)
        #expect(series.span == first...(first + 2))
        let midnight = try #require(series.weather(hour: first, units: .metric, lang: "en"))
        #expect(midnight.temperature == 7.9)
        #expect(midnight.condition == "Drizzle")
        #expect(midnight.icon.hasSuffix("n"))
        #expect(midnight.zone == "Europe/Amsterdam")
        let later = try #require(series.weather(hour: first + 2, units: .metric, lang: "en"))
        #expect(later.temperature == 8.0)
        #expect(later.condition == "Clouds")
        #expect(series.weather(hour: first + 3, units: .metric, lang: "en") == nil)
    }

    /// An archive answer asked without `weather_code` has temperatures and no condition: no hour of it is weather to
    /// stamp, so nothing is invented.
    @Test func openMeteoHistoryWithoutACodeStampsNothing() throws {
        let series = try OpenMeteoHistory.decode(Self.answer("open-meteo-historical-weather.json").body)
        #expect(series.span.count == 3)
        for hour in series.span { #expect(series.weather(hour: hour, units: .metric, lang: "en") == nil) }
    }

    /// MET Norway's own documented answer: the first step, its next hour's symbol.
    @Test func metNorwayDocumentedAnswer() throws {
        let weather = try METNorwayAPI.decode(
            Self.answer("met-norway-forecast-excerpt.json"), at: Fixtures.request(60.1, 10), units: .metric, lang: "en",
            timeZone: try #require(Zone.named("Europe/Oslo")))
        #expect(weather.observedAt.timeIntervalSince1970 == (try Self.utc("2020-06-10T13:00:00Z")))
        #expect(weather.temperature == 20.7)
        #expect(weather.humidity == 49)
        #expect(weather.pressure == 1021)
        #expect(weather.windSpeed == 2.5)
        #expect(weather.windDegrees == 152)
        #expect(weather.condition == "Clouds")
        #expect(weather.icon == "03d")
        #expect(weather.utcOffset(at: weather.observedAt) == 7200)
    }

    /// OpenWeather in metric units, Ashburn: as recorded, its place and its offset.
    @Test func openWeatherMetric() throws {
        let weather = try OpenWeatherAPI.decodeCurrentWeather(
            Self.answer("openweather-current-ashburn.json"), units: .metric)
        #expect(weather.temperature == 14.9)
        #expect(weather.description == "clear sky")
        #expect(weather.icon == "01d")
        #expect(weather.place == "Ashburn")
        #expect(weather.visibility == 16093)
        #expect(weather.observedAt.timeIntervalSince1970 == 1_586_185_014)
        #expect(weather.utcOffset(at: weather.observedAt) == -14400)
    }

    /// OpenWeather in Kelvin with an empty `"rain": {}`: no rain, not a bad answer.
    @Test func openWeatherEmptyRain() throws {
        let weather = try OpenWeatherAPI.decodeCurrentWeather(
            Self.answer("openweather-current-london.json"), units: .standard)
        #expect(weather.temperature == 278.18)
        #expect(weather.icon == "02n")
        #expect(weather.rain1h == nil)
        #expect(weather.place == "London")
    }
}

/// Open-Meteo's two `timeformat`s, field by field.
@Suite("Open-Meteo's times")
struct OpenMeteoTimeTests {

    @Test(arguments: [
        ("2024-01-01", 1_704_067_200.0), ("2024-01-01T00:00", 1_704_067_200.0), ("2024-02-29T23:59", 1_709_251_140.0),
        ("1940-01-01T00:00:30", -946_771_170.0),
    ])
    func localTextIsRead(text: String, seconds: Double) {
        #expect(OpenMeteoTime.localSeconds(text) == seconds)
    }

    @Test(arguments: [
        "2023-02-29", "2024-13-01", "2024-00-10", "2024-01-01T24:00", "2024-01-01T10:60", "2024-01-01 10:00",
        "24-01-01", "2024-01-01T10", "2024-01-01T10:00:61", "２０２４-01-01", "",
    ])
    func otherTextIsRefused(text: String) {
        #expect(OpenMeteoTime.localSeconds(text) == nil)
    }
}
