import Testing
import WeathertagCore

@Suite("The weather of a life, counted")
struct DiaryStatisticsTests {
    static func entry(
        _ time: String, _ condition: String?, _ temperature: Double?, units: String = "metric", mood: Double? = nil
    ) -> EntryDocument {
        EntryDocument(
            path: time + ".md", title: time, time: time, dayOnly: false, timeSource: "front_matter:date",
            lane: "stamped", reason: "stamped", detail: nil, why: "", excerpt: "",
            weather: condition == nil && temperature == nil
                ? nil
                : DiaryWeather(
                    condition: condition, description: nil, icon: nil, temperature: temperature, units: units,
                    place: nil, region: nil, country: nil, observedAt: nil, kind: nil, aqi: nil),
            mood: mood)
    }

    @Test(arguments: [
        ("rad", 5.0), ("Awful", 1), (" meh ", 3), ("4.5", 4.5), ("-2", -2), ("ok", 3),
    ])
    func moodsReadAsNumbers(text: String, value: Double) {
        #expect(DiaryMood.value(text) == value)
    }

    @Test(arguments: ["", "blue", "1e9", "nan", "five"])
    func otherMoodsSayNothing(text: String) {
        #expect(DiaryMood.value(text) == nil)
    }

    @Test func unitsFollowTheMostBlocksAndRainyDaysCountDays() {
        let statistics = DiaryStatistics([
            Self.entry("2024-01-01T08:00:00+00:00", "Rain", 50, units: "imperial"),
            Self.entry("2024-01-01T20:00:00+00:00", "Clear", 41, units: "imperial", mood: 4),
            Self.entry("2024-01-02T08:00:00+00:00", "Clear", 0, units: "metric", mood: 2),
            Self.entry("2024-01-03T08:00:00+00:00", nil, nil),
        ])
        #expect(statistics.units == .imperial)
        // 0 °C is 32 °F: the coldest.
        #expect(statistics.coldest?.temperature == 32 && statistics.warmest?.temperature == 50)
        // Two days with weather, one of them rainy; the day without weather is not counted.
        #expect(statistics.rainyDays == 1 && statistics.days == 2 && statistics.rainyShare == 0.5)
        #expect(statistics.withWeather == 3 && statistics.entries == 4)
        // 41 °F is 5 °C and 0 °C is 0 °C: one band, 0–10 °C.
        #expect(statistics.moodByTemperature.map(\.key) == ["0–10°C"] && statistics.moodByTemperature.first?.mean == 3)
        #expect(statistics.moodByCondition.map(\.key) == ["Clear"] && statistics.moodByCondition.first?.mean == 3)
    }

    @Test func nothingToCountIsSaidSo() {
        #expect(DiaryStatistics([]).text == "No entries.\n")
        #expect(DiaryStatistics([]).rainyShare == nil)
    }
}

@Suite("On this day, asked")
struct OnThisDayQueryTests {
    /// 2026-05-01 00:30 in Zurich is April 30 in UTC: the month and day are Zurich's, and only years before 2026.
    @Test func earlierYearsOfTheDaysOwnMonthAndDay() throws {
        let zurich = try #require(Zone.named("Europe/Zurich"))
        let date = try #require(EntryTime.given("2026-05-01T00:30:00+02:00")).date
        var query = EntryQuery()
        query.restrict(toEarlierYearsOf: date, zone: zurich)
        #expect(query.onThisDay == MonthDay("05-01"))
        // Up to the last day of the year before, on each entry's own calendar.
        #expect(query.untilDay == "2025-12-31")
        // An earlier `until` given is kept.
        var earlier = EntryQuery(until: EntryTime.given("2020-01-01")?.date)
        earlier.restrict(toEarlierYearsOf: date, zone: zurich)
        #expect(earlier.until == EntryTime.given("2020-01-01")?.date && earlier.untilDay == nil)
    }
}
