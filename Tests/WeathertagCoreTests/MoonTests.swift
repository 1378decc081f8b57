import Foundation
import Testing
import WeathertagCore

/// The moon, computed locally, against the published new and full moons of 2024–2026 (UTC, to the minute, as the
/// almanacs list them).
@Suite("the moon")
struct MoonTests {
    static let newMoons = [
        "2024-01-11 11:57", "2024-02-09 22:59", "2024-03-10 09:00", "2024-04-08 18:21", "2024-05-08 03:22",
        "2024-06-06 12:38", "2024-07-05 22:57", "2024-08-04 11:13", "2024-09-03 01:55", "2024-10-02 18:49",
        "2024-11-01 12:47", "2024-12-01 06:21", "2024-12-30 22:27",
        "2025-01-29 12:36", "2025-02-28 00:45", "2025-03-29 10:58", "2025-04-27 19:31", "2025-05-27 03:02",
        "2025-06-25 10:31", "2025-07-24 19:11", "2025-08-23 06:06", "2025-09-21 19:54", "2025-10-21 12:25",
        "2025-11-20 06:47", "2025-12-20 01:43",
        "2026-01-18 19:52", "2026-02-17 12:01", "2026-03-19 01:23", "2026-04-17 11:52", "2026-05-16 20:01",
        "2026-06-15 02:54", "2026-07-14 09:43", "2026-08-12 17:37", "2026-09-11 03:27", "2026-10-10 15:50",
        "2026-11-09 07:02", "2026-12-09 00:52",
    ]
    static let fullMoons = [
        "2024-01-25 17:54", "2024-02-24 12:30", "2024-03-25 07:00", "2024-04-23 23:49", "2024-05-23 13:53",
        "2024-06-22 01:08", "2024-07-21 10:17", "2024-08-19 18:26", "2024-09-18 02:34", "2024-10-17 11:26",
        "2024-11-15 21:28", "2024-12-15 09:02",
        "2025-01-13 22:27", "2025-02-12 13:53", "2025-03-14 06:55", "2025-04-13 00:22", "2025-05-12 16:56",
        "2025-06-11 07:44", "2025-07-10 20:37", "2025-08-09 07:55", "2025-09-07 18:09", "2025-10-07 03:48",
        "2025-11-05 13:19", "2025-12-04 23:14",
        "2026-01-03 10:03", "2026-02-01 22:09", "2026-03-03 11:38", "2026-04-02 02:12", "2026-05-01 17:23",
        "2026-05-31 08:45", "2026-06-29 23:57", "2026-07-29 14:36", "2026-08-28 04:18", "2026-09-26 16:49",
        "2026-10-26 04:12", "2026-11-24 14:53", "2026-12-24 01:28",
    ]

    static func date(_ text: String) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.date(from: text) ?? .distantPast
    }

    /// The elongation's distance from `target`, in degrees (0–180).
    static func off(_ elongation: Double, from target: Double) -> Double {
        let difference = abs(elongation - target).truncatingRemainder(dividingBy: 360)
        return min(difference, 360 - difference)
    }

    @Test func publishedNewAndFullMoonsAreNewAndFull() {
        // The moon moves 12.2° a day against the Sun: 0.6° is about an hour.
        var worst = 0.0
        for text in Self.newMoons {
            let moon = MoonPhase(at: Self.date(text))
            worst = max(worst, Self.off(moon.elongation, from: 0))
            #expect(moon.name == .new && moon.illumination < 0.001, "\(text): \(moon)")
        }
        for text in Self.fullMoons {
            let moon = MoonPhase(at: Self.date(text))
            worst = max(worst, Self.off(moon.elongation, from: 180))
            #expect(moon.name == .full && moon.illumination > 0.999, "\(text): \(moon)")
        }
        #expect(worst < 0.6, "the worst of 74 phases is \(worst)° (\(worst / 12.19 * 24) h) off")
    }

    @Test func betweenThemTheMoonWaxesAndWanes() {
        let new = Self.date("2026-11-09 07:02")
        let day: TimeInterval = 86_400
        // A lunation is 29.53 days: a quarter of it is 7.38.
        let expected: [(Double, MoonPhase.Name)] = [
            (3.7, .waxingCrescent), (7.4, .firstQuarter), (11.1, .waxingGibbous), (14.8, .full),
            (18.5, .waningGibbous), (22.1, .lastQuarter), (25.8, .waningCrescent), (29.5, .new),
        ]
        var previous = -1.0
        for (days, name) in expected {
            let moon = MoonPhase(at: new.addingTimeInterval(days * day))
            #expect(moon.name == name, "\(days) days after new: \(moon)")
            if days <= 14.8 {
                #expect(moon.illumination > previous, "waxing")
                previous = moon.illumination
            }
        }
        // A quarter of a lunation on (quarters come up to a few hours either side of it): about half lit.
        let quarter = MoonPhase(at: new.addingTimeInterval(7.38 * day))
        #expect(quarter.name == .firstQuarter && abs(quarter.illumination - 0.5) < 0.15)
        #expect(MoonPhase.Name.full.emoji == "🌕" && MoonPhase.Name.waxingCrescent.rawValue == "waxing_crescent")
    }
}
