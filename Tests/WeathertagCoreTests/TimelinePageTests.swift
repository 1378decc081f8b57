import FoundationEssentials
import Testing
import WeathertagCore

/// The timeline page on each entry's own clock: a trip in Cairns (+10:00) read on a machine in UTC is headed,
/// summarised and charted as it was lived.
@Suite("the timeline page on each entry's own clock")
struct TimelinePageOwnClockTests {
    static let trip = [
        DiaryStatisticsTests.entry("2021-04-05T12:00:00+10:00", "Clouds", 27),
        // 1 April in Cairns, still 31 March in UTC.
        DiaryStatisticsTests.entry("2021-04-01T07:30:00+10:00", "Clear", 24),
        DiaryStatisticsTests.entry("2021-03-10T20:25:00+10:00", "Rain", 25),
    ]

    func page(_ zone: Zone) -> String {
        TimelinePage(
            title: "Queensland", formatting: DiaryFormatting(locale: DateLocale.english, timeZone: zone), icons: [:],
            generatedAt: Date(timeIntervalSince1970: 1_700_000_000)
        ).render(Self.trip)
    }

    @Test(arguments: ["UTC", "Europe/Berlin", "America/Chicago"])
    func monthsAndTheSummaryAreTheEntriesOwn(zone: String) throws {
        let html = self.page(try #require(Zone.named(zone)))
        let sections = html.components(separatedBy: "<section class=\"month\">").dropFirst()
        #expect(sections.count == 2, "\(html)")
        let april = try #require(sections.first { $0.contains("<h2>April 2021</h2>") })
        #expect(april.contains("2021-04-01T07:30:00+10:00") && april.contains("2021-04-05T12:00:00+10:00"))
        #expect(!april.contains("2021-03-10T20:25:00+10:00"))
        #expect(html.contains("3 entries · Mar 10, 2021 – Apr 5, 2021"), "\(html)")
    }

    /// The chart's axis is the entries' own clocks: 1 April's breakfast is right of the "Apr" label, wherever the
    /// page is written.
    @Test(arguments: ["UTC", "America/Chicago"])
    func theChartIsOnTheEntriesOwnClocks(zone: String) throws {
        let html = self.page(try #require(Zone.named(zone)))
        let tick = try #require(
            html.components(separatedBy: "<text class=\"axis\" x=\"").dropFirst().first { $0.contains(">Apr</text>") })
        let aprilX = try #require(Double(String(tick.split(separator: "\"")[0])))
        let circles = html.components(separatedBy: "<circle cx=\"").dropFirst()
        let breakfast = try #require(circles.first { $0.contains("<title>2021-04-01T07:30:00+10:00:") })
        let breakfastX = try #require(Double(String(breakfast.split(separator: "\"")[0])))
        #expect(breakfastX > aprilX, "\(breakfastX) ≤ \(aprilX)")
    }
}
