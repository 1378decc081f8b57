import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

/// Open-Meteo's past hours in bulk, its weighted budget, and a source's gate: pure, no network.
@Suite("Open-Meteo's history, its budget, and the sources' gates")
struct OpenMeteoHistoryTests {
    static func date(_ text: String) -> Date { Date(iso8601: text) ?? .distantPast }
    static func hour(_ text: String) -> Int { Int(Self.date(text).timeIntervalSince1970 / 3600) }

    @Test func aPastHourIsFetchedWithItsWholeYearAndRecentOnesFromTheForecast() throws {
        let now = Self.date("2026-11-25T02:00:00Z")
        // A 2019 entry: the whole year, a day of margin each side, from the archive.
        let old = try #require(OpenMeteoHistory.plan(hour: Self.hour("2019-05-01T12:00:00Z"), now: now, kept: []))
        #expect(old == .init(service: .archive, start: "2018-12-31", end: "2020-01-01", days: 367))
        #expect(abs(old.weight - 1.4 * 367 / 14) < 1e-9, "14 variables over 367 days")
        // This year: up to the archive's end (seven days back).
        let thisYear = try #require(
            OpenMeteoHistory.plan(hour: Self.hour("2026-03-10T08:00:00Z"), now: now, kept: []))
        #expect(thisYear.service == .archive && thisYear.start == "2025-12-31" && thisYear.end == "2026-11-18")
        // Later this year, with the spring kept: only what is not kept yet.
        let spring = Self.hour("2025-12-31T00:00:00Z")...Self.hour("2026-05-31T23:00:00Z")
        let summer = try #require(
            OpenMeteoHistory.plan(hour: Self.hour("2026-08-01T08:00:00Z"), now: now, kept: [spring]))
        #expect(summer.start == "2026-05-30" && summer.end == "2026-11-18")
        // Yesterday: the forecast API's last days.
        let yesterday = try #require(
            OpenMeteoHistory.plan(hour: Self.hour("2026-11-24T19:00:00Z"), now: now, kept: []))
        #expect(yesterday == .init(service: .forecast, start: "2026-11-17", end: "2026-11-26", days: 10))
        // Not past yet: nothing to ask.
        #expect(OpenMeteoHistory.plan(hour: Self.hour("2026-11-25T05:00:00Z"), now: now, kept: []) == nil)
    }

    @Test func theRequestCarriesThePrivacyDecimalsAndTheUnits() {
        let position = PrivacyPolicy(stampCoordinates: .rounded, decimals: 3, requestDecimals: 2, zones: [])
            .requestPosition(
                Position(latitude: 46.204_391, longitude: 6.143_158, source: "gpsd", takenAt: Fixtures.observedAt))
        let fetch = OpenMeteoHistory.Fetch(service: .archive, start: "2018-12-31", end: "2020-01-01", days: 367)
        let url = OpenMeteoHistory.url(
            fetch, archiveURL: "https://archive-api.open-meteo.com/", forecastURL: "https://api.open-meteo.com",
            at: position, units: .imperial)
        #expect(url.hasPrefix("https://archive-api.open-meteo.com/v1/archive?latitude=46.20000&longitude=6.14000&"))
        #expect(url.contains("start_date=2018-12-31&end_date=2020-01-01"))
        #expect(url.contains("temperature_unit=fahrenheit") && url.contains("wind_speed_unit=mph"))
        #expect(url.contains("hourly=temperature_2m,") && url.contains("daily=sunrise,sunset"))
    }

    /// Three hours of an answer, the last one still empty (the archive's edge).
    static let answer = """
        {"latitude": 46.2, "longitude": 6.14, "utc_offset_seconds": 3600, "timezone": "Europe/Zurich",
         "hourly": {"time": [1556704800, 1556708400, 1556712000, 1556715600],
                    "temperature_2m": [9.5, 10.25, 11.0, null], "relative_humidity_2m": [80, 78, 75, null],
                    "apparent_temperature": [8.0, 8.9, 9.7, null], "is_day": [1, 1, 0, null],
                    "weather_code": [61, 63, 2, null], "cloud_cover": [100, 98, 40, null],
                    "pressure_msl": [1009.4, 1009.0, 1008.6, null], "wind_speed_10m": [3.1, 3.4, 2.2, null],
                    "wind_direction_10m": [200, 210, 215, null], "wind_gusts_10m": [7.2, 8.0, 5.1, null],
                    "rain": [0.4, 1.2, 0.0, null], "snowfall": [0.0, 0.0, 0.0, null]},
         "daily": {"time": [1556661600], "sunrise": [1556683080], "sunset": [1556735640]}}
        """

    @Test func anAnswerBecomesCompactHoursThatGiveEachHoursWeather() throws {
        let series = try OpenMeteoHistory.decode(Array(Self.answer.utf8))
        #expect(series.span == 432_418...432_420, "the empty last hour is not held")
        let weather = try #require(series.weather(hour: 432_419, units: .metric, lang: "ko"))
        #expect(weather.condition == "Rain" && weather.code == 501 && weather.icon == "10d")
        #expect(weather.description == "비")
        #expect(weather.temperature == 10.25 && weather.feelsLike == 8.9 && weather.humidity == 78)
        #expect(weather.pressure == 1009 && weather.windDegrees == 210 && weather.windGust == 8)
        #expect(weather.rain1h == 1.2 && weather.snow1h == nil && weather.utcOffset == 3600)
        #expect(weather.observedAt == Date(timeIntervalSince1970: 1_556_708_400))
        #expect(weather.sunrise == Date(timeIntervalSince1970: 1_556_683_080))
        let night = try #require(series.weather(hour: 432_420, units: .standard, lang: "en"))
        #expect(night.icon == "03n" && night.temperature == 284.15 && night.description == "partly cloudy")
        #expect(series.weather(hour: 432_421, units: .metric, lang: "en") == nil)

        // Kept as bytes and read back the same; anything else is refused.
        let bytes = series.encoded
        #expect(HourlySeries(encoded: bytes) == series)
        #expect(HourlySeries(encoded: Array(bytes.dropLast())) == nil)
        #expect(HourlySeries(encoded: Array(Self.answer.utf8)) == nil)
        #expect(series.ending(at: 432_418)?.span == 432_418...432_418)
        #expect(series.ending(at: 432_417) == nil)
        #expect(HourlySeries(encoded: bytes)?.zone == "Europe/Zurich", "the zone is kept with the hours")
        // Kept before zones were (`WTH1`): still read, its local times in the one offset.
        var old = Array("WTH1".utf8)
        for value in [Int64(432_418), 1, 3600, 0] { withUnsafeBytes(of: value.littleEndian) { old += $0 } }
        for _ in 0..<12 {
            withUnsafeBytes(of: Float(4).bitPattern.littleEndian) { old += $0 }
        }
        let kept = try #require(HourlySeries(encoded: old))
        #expect(kept.zone == nil && kept.utcOffset == 3600 && kept.span == 432_418...432_418)
    }

    /// A real answer's hours without `is_day` (the variable not asked for, or not given): the sun at the answer's
    /// grid point says day or night, not "day" for every hour (a January night at 01:00 got `04d`).
    @Test func withoutIsDayTheSunSays() throws {
        let answer = Self.answer.replacingOccurrences(of: #""is_day": [1, 1, 0, null],"#, with: "")
        let series = try OpenMeteoHistory.decode(Array(answer.utf8))
        // 2019-05-01 10:00 and 12:00 in Geneva (UTC+2): day; the same series at 01:00 local is not asked here, so
        // a night hour is built: 2019-01-15 00:00Z (01:00 in Geneva).
        #expect(series.weather(hour: 432_419, units: .metric, lang: "en")?.icon.hasSuffix("d") == true)
        let night = Self.answer.replacingOccurrences(
            of: "1556704800, 1556708400, 1556712000, 1556715600", with: "1547510400, 1547514000, 1547517600, 1547521200"
        )
        .replacingOccurrences(of: #""is_day": [1, 1, 0, null],"#, with: "")
        let january = try OpenMeteoHistory.decode(Array(night.utf8))
        #expect(january.weather(hour: 1_547_510_400 / 3600, units: .metric, lang: "en")?.icon.hasSuffix("n") == true)
    }

    /// Each local time in the offset of its own instant: one answer's offset (winter's, at its start) is not
    /// summer's.
    @Test func localTimesAreTheZonesForTheirInstant() throws {
        // The answer says 3600 (winter's), as one offset for a year does.
        let series = try OpenMeteoHistory.decode(Array(Self.answer.utf8))
        let weather = try #require(series.weather(hour: 432_419, units: .metric, lang: "en"))
        #expect(weather.zone == "Europe/Zurich" && weather.utcOffset(at: weather.observedAt) == 7200, "May: CEST")
        let tag = WeatherTag(
            weather: weather, position: Fixtures.position, iconFile: nil, fetchedAt: weather.observedAt)
        #expect(tag.stampLines(fields: [.localTime]) == ["weather:", "  local_time: 2019-05-01T13:00:00+02:00"])
    }

    @Test func documentedErrorsAndOtherShapesAreNamed() {
        #expect(throws: WeatherError.self) { try OpenMeteoHistory.decode(Array(#"{"hourly": {}}"#.utf8)) }
        let empty = #"{"hourly": {"time": [1556704800], "temperature_2m": [null]}}"#
        #expect { try OpenMeteoHistory.decode(Array(empty.utf8)) } throws: {
            ($0 as? WeatherError)?.kind == .notFound
        }
        let refused = HTTPResponse(
            status: 400, body: Array(#"{"error": true, "reason": "Parameter 'start_date' is out of range"}"#.utf8))
        #expect(OpenMeteoAPI.error(for: refused)?.message.contains("start_date") == true)
        #expect(OpenMeteoAPI.error(for: HTTPResponse(status: 200, body: [])) == nil)
    }

    @Test func theBudgetWeighsRequestsAndWaitsForTheWindowThatIsFull() throws {
        #expect(OpenMeteoHistory.weight(variables: 15, days: 14) == 1.5)
        #expect(OpenMeteoHistory.weight(variables: 15, days: 28) == 3.0)
        #expect(OpenMeteoHistory.weight(variables: 5, days: 3) == 1.0)
        let start = Self.date("2026-11-25T00:00:00Z")
        var budget = CallBudget(limits: .init(perMinute: 100, perHour: 120, perDay: 200, perMonth: 1000))
        func admit(_ weight: Double, after seconds: TimeInterval) -> Duration? {
            budget.admit(weight: weight, now: start.addingTimeInterval(seconds))
        }
        #expect(admit(60, after: 0) == nil)
        #expect(admit(30, after: 1) == nil)
        // The minute is full (90 + 30 > 100): wait until the first request is a minute old.
        let minute = try #require(admit(30, after: 2))
        #expect(minute > .seconds(57) && minute <= .seconds(59))
        #expect(admit(30, after: 61) == nil)
        // Now the hour (120) is full: wait until the first is an hour old.
        let hour = try #require(admit(10, after: 62))
        #expect(hour > .seconds(3537) && hour <= .seconds(3539))
        #expect(budget.left(now: start.addingTimeInterval(62)) == 80)
        // What earlier processes spent counts the same.
        var restarted = CallBudget(limits: budget.limits, spent: budget.spent)
        let afterRestart = restarted.admit(weight: 10, now: start.addingTimeInterval(63))
        #expect(afterRestart != nil)
        // A request heavier than a whole window waits for it to empty, then goes.
        var heavy = CallBudget(limits: .init(perMinute: 10, perHour: 1000, perDay: 1000, perMonth: 1000))
        let light = heavy.admit(weight: 1, now: start)
        let tooHeavy = heavy.admit(weight: 40, now: start)
        let emptied = heavy.admit(weight: 40, now: start.addingTimeInterval(60))
        #expect(light == nil && tooHeavy != nil && emptied == nil)
    }

    @Test func aGateBacksOffAfterAFailureAndCountsItsMinute() {
        let start = Self.date("2026-11-25T00:00:00Z")
        var gate = SourceGate(source: "open-meteo", maximumPerMinute: 2)
        func admit(after seconds: TimeInterval) -> WeatherError? {
            gate.admit(now: start.addingTimeInterval(seconds), ceilingName: "x")
        }
        #expect(admit(after: 0) == nil)
        #expect(admit(after: 0) == nil)
        #expect(admit(after: 0)?.message.contains("2 open-meteo calls") == true)
        #expect(admit(after: 60) == nil)
        let failure = WeatherError(kind: .serverError(status: 503), message: "Open-Meteo had a server error")
        let news = gate.failed(failure, now: start.addingTimeInterval(60))
        #expect(news, "news: logged")
        #expect(admit(after: 60.1) == failure, "backing off")
        let again = gate.failed(failure, now: start.addingTimeInterval(61))
        #expect(!again, "the same again: not logged again")
        #expect(admit(after: 61 + 3) == nil, "after its backoff (at most 2 s)")
        let recovered = gate.succeeded()
        #expect(recovered, "answering again")
        let steady = gate.succeeded()
        #expect(gate.nextAttemptAt == nil && !steady)
    }
}
