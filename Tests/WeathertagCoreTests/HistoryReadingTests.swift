import Foundation
import Testing
import WeathertagCore

/// Open-Meteo's history read as it is parsed (`JSONPullReader` under `OpenMeteoHistory.decode`): every kind of JSON
/// value where it is not expected, strings with escapes, nesting, and documents that are not JSON.
@Suite("Reading history as it is parsed")
struct HistoryReadingTests {
    static let hour = 1_561_939_200  // 2019-07-01T00:00:00Z

    static func answer(hourly: String, rest: String = "") -> [UInt8] {
        Array(
            #"{"latitude":52.5,"longitude":13.4,"utc_offset_seconds":7200,"timezone":"Europe/Berlin"\#(rest),"hourly":{\#(hourly)}}"#
                .utf8)
    }

    /// Members it does not know, of every kind and nested, before and after the ones it reads, cost nothing; a value
    /// of another type in a variable's list is that hour's unknown value, not a bad answer.
    @Test func unknownMembersAreSkippedAndOddValuesAreUnknown() throws {
        let body = Self.answer(
            hourly: #"""
                "x":{"a":[1,[2,[3,{}]],{"b":"}]\"\\"}],"c":[]},"time":[\#(Self.hour),\#(Self.hour + 3600)],
                "temperature_2m":[18.5,17.25],"weather_code":[3,"sixty-one"],"y":[true,false,null,-1.5e-3]
                """#,
            rest: #","generationtime_ms":0.2,"hourly_units":{"time":"unixtime"},"elevation":38.0"#)
        let series = try OpenMeteoHistory.decode(body)
        let first = Self.hour / 3600
        #expect(series.span == first...(first + 1))
        let weather = try #require(series.weather(hour: first, units: .metric, lang: "en"))
        #expect(weather.temperature == 18.5)
        #expect(weather.condition == "Clouds")
        #expect(weather.zone == "Europe/Berlin")
        // "sixty-one" is no weather code: that hour has none, and is not stamped.
        #expect(series.weather(hour: first + 1, units: .metric, lang: "en") == nil)
    }

    /// A variable listed before `time`, and `daily` before `hourly`: read in any order.
    @Test func membersInAnyOrder() throws {
        let body = Array(
            #"""
            {"daily":{"sunset":[\#(Self.hour + 70000)],"time":[\#(Self.hour)],"sunrise":[\#(Self.hour + 15000)]},
             "hourly":{"weather_code":[0],"temperature_2m":[21.0],"time":[\#(Self.hour + 43200)]},"timezone":"UTC"}
            """#.utf8)
        let weather = try #require(
            try OpenMeteoHistory.decode(body).weather(hour: Self.hour / 3600 + 12, units: .metric, lang: "en"))
        #expect(weather.temperature == 21.0)
        #expect(weather.sunrise == Date(timeIntervalSince1970: Double(Self.hour + 15000)))
        #expect(weather.sunset == Date(timeIntervalSince1970: Double(Self.hour + 70000)))
    }

    /// What is not JSON, or not an answer, is a bad answer: never a trap, never a guess.
    @Test(arguments: [
        "", "{", "[]", "null", #"{"hourly":{"time":[1,2],"temperature_2m":[1]}}"#,
        #"{"hourly":{"time":[1561939200],"temperature_2m":[1]}} trailing"#,
        #"{"hourly":{"time":[1561939200],"temperature_2m":[1],}}"#,
        #"{"hourly":{"time":[1561939200,],"temperature_2m":[1]}}"#,
        #"{"hourly":{"time":["2019-07-01T25:00"],"temperature_2m":[1]}}"#,
        #"{"hourly":{"time":[null],"temperature_2m":[1]}}"#,
        #"{"hourly":{"time":[1561939200],"temperature_2m":[1e999]}}"#,
        #"{"hourly":{"time":[1561939200],"temperature_2m":[1]},"x":"\u12"}"#,
        #"{"hourly":{"time":[1561939200],"temperature_2m":[1]},"x":tru}"#,
        #"{"hourly":{"time":[1561939200],"temperature_2m":[1]},"x":"unterminated}"#,
        #"{"hourly":{"time":[1561939200],"temperature_2m":[1]},"x":[1 2]}"#,
        #"{"hourly":{"time":[1561939200],"temperature_2m":[1]},"x":{"a" 1}}"#,
    ])
    func notAnAnswerIsABadAnswer(text: String) {
        #expect(throws: WeatherError.self) { try OpenMeteoHistory.decode(Array(text.utf8)) }
    }

    /// Nesting deeper than 64 in a member it skips is refused, read without recursion (100,000 levels).
    @Test func deepNestingIsRefusedWithoutRecursion() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let body = Self.answer(hourly: #""time":[\#(Self.hour)],"temperature_2m":[1],"x":\#(deep)"#)
        #expect(throws: WeatherError.self) { try OpenMeteoHistory.decode(body) }
        let shallow = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        let fine = Self.answer(
            hourly: #""time":[\#(Self.hour)],"temperature_2m":[1],"weather_code":[0],"x":\#(shallow)"#)
        #expect((try? OpenMeteoHistory.decode(fine)) != nil)
    }

    /// More hours than a year and a margin is no answer to what was asked.
    @Test func tooManyHoursAreRefused() {
        let hours = (0...(400 * 24)).map { String(Self.hour + $0 * 3600) }.joined(separator: ",")
        let temperatures = Array(repeating: "1", count: 400 * 24 + 1).joined(separator: ",")
        let body = Self.answer(hourly: #""time":[\#(hours)],"temperature_2m":[\#(temperatures)]"#)
        #expect(throws: WeatherError.self) { try OpenMeteoHistory.decode(body) }
    }
}
