import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// `weathertag stats`: the weather of a diary, checked against a count made here over the files written, not with
/// weathertag's code.
@Suite("The weather of a life", .serialized)
struct StatsTests {
    struct Written {
        var day: String
        var hour: Int
        var condition: String?
        var temperature: Double?
        var imperial: Bool
        var mood: String?
        var moodValue: Double?
        var title: String
    }

    /// Sixty entries over three years, some days twice, some without weather, two in °F, moods as numbers and words.
    static func diary() -> [Written] {
        var random = SeededRandom(seed: 30)
        let conditions = ["Rain", "Clear", "Clouds", "Snow", "Drizzle", "Thunderstorm"]
        let words: [(String, Double)] = [("rad", 5), ("good", 4), ("meh", 3), ("bad", 2), ("awful", 1)]
        var written: [Written] = []
        for index in 0..<60 {
            let year = 2021 + index % 3
            let month = 1 + Int.random(in: 0..<12, using: &random)
            let day = 1 + Int.random(in: 0..<28, using: &random)
            let hasWeather = index % 10 != 7
            var mood: (String, Double)?
            switch index % 4 {
            case 0: mood = words[Int.random(in: 0..<5, using: &random)]
            case 1:
                let value = Double(Int.random(in: 1...5, using: &random))
                mood = (String(Int(value)), value)
            default: mood = nil
            }
            written.append(
                Written(
                    day: String(format: "%04d-%02d-%02d", year, month, day), hour: 8 + index % 12,
                    condition: hasWeather ? conditions[Int.random(in: 0..<conditions.count, using: &random)] : nil,
                    temperature: hasWeather ? Double(Int.random(in: -150...350, using: &random)) / 10 : nil,
                    imperial: index == 11 || index == 23, mood: mood?.0, moodValue: mood?.1, title: "Entry \(index)"))
        }
        // A second entry on the first entry's day.
        var twice = written[0]
        twice.hour = 21
        twice.title = "Evening"
        twice.condition = "Clear"
        written.append(twice)
        return written
    }

    static func text(_ entry: Written) -> String {
        var lines = ["---", "title: \(entry.title)", "date: \(entry.day)T\(String(format: "%02d", entry.hour)):00:00Z"]
        if let mood = entry.mood { lines.append("mood: \(mood)") }
        if let condition = entry.condition, let temperature = entry.temperature {
            let written = entry.imperial ? temperature * 9 / 5 + 32 : temperature
            lines += [
                "weather:", "  condition: \(condition)", "  description: \(condition.lowercased())",
                "  temperature: \(written)", "  units: \(entry.imperial ? "imperial" : "metric")", "  place: Seoul",
            ]
        }
        return (lines + ["---", "\(entry.title).", ""]).joined(separator: "\n")
    }

    @Test func theFiguresAreTheFilesOwn() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 37.5665, "longitude": 126.978}]"#)
            let diary = Self.diary()
            for (index, entry) in diary.enumerated() {
                try harness.directory.write("inbox/e\(index).md", Self.text(entry))
            }
            let daemon = try await harness.startDaemon()
            try await poll("the diary read") { () -> Bool? in
                let entries = try DiaryTests.entries(daemon, "limit=1000")
                return entries.count == diary.count
                    && entries.allSatisfy { $0["time_source"] as? String == "front_matter:date" } ? true : nil
            }
            let run = try await DiaryTests.cli(["stats", "--json", "--by", "year"], harness)
            #expect(run.status == 0, "\(run.stderr)")
            let stats = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])

            // The count made here.
            let weathered = diary.filter { $0.condition != nil }
            #expect(stats["entries"] as? Int == diary.count)
            #expect(stats["with_weather"] as? Int == weathered.count)
            var conditions: [String: Int] = [:]
            for entry in weathered { conditions[entry.condition!, default: 0] += 1 }
            let listed = (stats["conditions"] as? [[String: Any]] ?? []).reduce(into: [String: Int]()) {
                $0[$1["key"] as! String] = $1["entries"] as? Int
            }
            #expect(listed == conditions)
            var days: [String: Bool] = [:]
            for entry in weathered {
                days[entry.day] =
                    (days[entry.day] ?? false) || ["Rain", "Drizzle", "Thunderstorm"].contains(entry.condition!)
            }
            #expect(stats["days"] as? Int == days.count)
            #expect(stats["rainy_days"] as? Int == days.values.filter { $0 }.count)
            // Warmest and coldest, in °C (most blocks are metric), the °F ones converted.
            let hottest = weathered.max { $0.temperature! < $1.temperature! }!
            let coldest = weathered.min { $0.temperature! < $1.temperature! }!
            let warm = try #require(stats["warmest"] as? [String: Any])
            let cold = try #require(stats["coldest"] as? [String: Any])
            #expect(abs((warm["temperature"] as? Double ?? .nan) - hottest.temperature!) < 0.01, "\(warm)")
            #expect(warm["title"] as? String == hottest.title)
            #expect(abs((cold["temperature"] as? Double ?? .nan) - coldest.temperature!) < 0.01, "\(cold)")
            // Temperature by calendar month.
            var months: [String: [Double]] = [:]
            for entry in weathered {
                months[String(entry.day.dropFirst(5).prefix(2)), default: []].append(entry.temperature!)
            }
            for tally in stats["temperature_by_month"] as? [[String: Any]] ?? [] {
                let key = tally["key"] as! String
                let values = try #require(months[key])
                #expect(
                    abs((tally["mean_temperature"] as? Double ?? .nan) - values.reduce(0, +) / Double(values.count))
                        < 0.01)
            }
            #expect((stats["temperature_by_month"] as? [[String: Any]])?.count == months.count)
            // Mood, by condition.
            let moody = diary.filter { $0.moodValue != nil }
            #expect(stats["moods"] as? Int == moody.count)
            var moods: [String: [Double]] = [:]
            for entry in moody where entry.condition != nil {
                moods[entry.condition!, default: []].append(entry.moodValue!)
            }
            for tally in stats["mood_by_condition"] as? [[String: Any]] ?? [] {
                let values = try #require(moods[tally["key"] as! String])
                #expect(tally["entries"] as? Int == values.count)
                #expect(
                    abs((tally["mean_mood"] as? Double ?? .nan) - values.reduce(0, +) / Double(values.count)) < 0.01)
            }
            #expect((stats["mood_by_condition"] as? [[String: Any]])?.count == moods.count)
            // By year.
            let years = (stats["groups"] as? [[String: Any]] ?? []).reduce(into: [String: Int]()) {
                $0[$1["key"] as! String] = $1["entries"] as? Int
            }
            #expect(years == Dictionary(grouping: diary, by: { String($0.day.prefix(4)) }).mapValues(\.count))

            // The text, and the timeline's charts of the same.
            let text = try await DiaryTests.cli(["stats"], harness)
            #expect(
                text.stdout.contains("\(diary.count) entries") && text.stdout.contains("Rainy days: "), "\(text.stdout)"
            )
            let page = harness.directory.file("diary.html")
            #expect(try await DiaryTests.cli(["timeline", "--output", page], harness).status == 0)
            let html = try String(contentsOfFile: page, encoding: .utf8)
            #expect(html.contains("<section class=\"statistics\">"))
            #expect(
                html.contains("aria-label=\"Entries per condition\"")
                    && html.contains("aria-label=\"Mood by condition\""))
            #expect(try await daemon.stop() == 0)
        }
    }
}
