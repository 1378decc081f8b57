import Foundation
import Testing
import WeathertagTestSupport

/// The stand-in behind `make run` and the tests tells the truth about the sun: sunrise and sunset from the sunrise
/// equation on the place's own clock, and day or night from the same sun.
@Suite("The stand-in's sun")
struct StandInSunTests {
    /// Seoul, as the Korea Astronomy and Space Science Institute publishes its solstices (astro.kasi.re.kr):
    /// 21 June 2025 05:11 and 19:57, 21 December 2025 07:43 and 17:17 (KST).
    static let seoul = (latitude: 37.5665, longitude: 126.978)
    static let published = [
        ("2025-06-21", sunrise: "05:11", sunset: "19:57"), ("2025-12-21", sunrise: "07:43", sunset: "17:17"),
    ]

    static func get(_ standIn: WeatherStandIn, _ target: String) throws -> [String: Any] {
        let response = try RawHTTP.request(.tcp(port: standIn.port), "GET", target)
        #expect(response.status == 200, "\(response.body)")
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
    }

    static func minutes(_ clock: Substring) -> Int {
        let parts = clock.split(separator: ":").compactMap { Int($0) }
        return parts[0] * 60 + parts[1]
    }

    @Test func sunriseAndSunsetAreSeoulsOnItsOwnClock() throws {
        let directory = try TemporaryDirectory()
        let standIn = try WeatherStandIn(in: directory)
        defer { Task { await standIn.stop() } }
        for (day, sunrise, sunset) in Self.published {
            let body = try Self.get(
                standIn,
                "/v1/archive?latitude=\(Self.seoul.latitude)&longitude=\(Self.seoul.longitude)&start_date=\(day)"
                    + "&end_date=\(day)&hourly=is_day&daily=sunrise,sunset&timezone=auto")
            #expect(body["timezone"] as? String == "Asia/Seoul")
            let daily = try #require(body["daily"] as? [String: Any])
            let rise = try #require((daily["sunrise"] as? [String])?.first)
            let set = try #require((daily["sunset"] as? [String])?.first)
            #expect(rise.hasPrefix(day + "T") && set.hasPrefix(day + "T"), "\(rise) \(set)")
            // Within two minutes of the published minute (refraction and the observer's height differ by that).
            #expect(abs(Self.minutes(rise.dropFirst(11)) - Self.minutes(Substring(sunrise))) <= 2, "\(rise)")
            #expect(abs(Self.minutes(set.dropFirst(11)) - Self.minutes(Substring(sunset))) <= 2, "\(set)")

            // Each hour's is_day from the same sun: up from the hour after sunrise to the hour of sunset.
            let hourly = try #require(body["hourly"] as? [String: Any])
            let times = try #require(hourly["time"] as? [String])
            let isDay = try #require(hourly["is_day"] as? [Int])
            for (time, flag) in zip(times, isDay) {
                let minute = Self.minutes(time.dropFirst(11))
                let up = minute >= Self.minutes(rise.dropFirst(11)) && minute < Self.minutes(set.dropFirst(11))
                #expect(flag == (up ? 1 : 0), "\(time): is_day \(flag), sun \(rise)–\(set)")
            }
        }
    }

    /// With day and night left to the sun (`--sun`, as `make run` starts it), the current weather's is_day is the
    /// sun's now, and today's sunrise is a morning's (Seoul's earliest is 05:11, its latest 07:47).
    @Test func theCurrentWeatherIsDayOrNightAsTheSunIs() throws {
        let directory = try TemporaryDirectory()
        let standIn = try WeatherStandIn(in: directory)
        defer { Task { await standIn.stop() } }
        try standIn.control(#"{"open-meteo": {"is_day": null}}"#)
        let body = try Self.get(
            standIn,
            "/v1/forecast?latitude=\(Self.seoul.latitude)&longitude=\(Self.seoul.longitude)&current=is_day"
                + "&daily=sunrise,sunset&timezone=auto&timeformat=unixtime&forecast_days=1")
        let offset = try #require(body["utc_offset_seconds"] as? Int)
        #expect(offset == 9 * 3600)
        let daily = try #require(body["daily"] as? [String: Any])
        let rise = try #require((daily["sunrise"] as? [Int])?.first)
        let set = try #require((daily["sunset"] as? [Int])?.first)
        let current = try #require(body["current"] as? [String: Any])
        let now = try #require(current["time"] as? Int)
        let isDay = try #require(current["is_day"] as? Int)
        #expect(isDay == (rise <= now && now < set ? 1 : 0), "now \(now), sun \(rise)–\(set)")
        let riseMinute = (rise + offset) % 86_400 / 60
        let setMinute = (set + offset) % 86_400 / 60
        #expect((5 * 60 + 9)...(7 * 60 + 49) ~= riseMinute, "sunrise at \(riseMinute / 60):\(riseMinute % 60)")
        #expect((17 * 60 + 11)...(19 * 60 + 59) ~= setMinute, "sunset at \(setMinute / 60):\(setMinute % 60)")
    }
}
