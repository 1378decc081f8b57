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

/// The page as the daemon and `weathertag timeline` write it: in pieces, never held whole.
@Suite("the timeline page in pieces")
struct TimelinePagePiecesTests {
    /// A page of 3,000 entries (a day each, from 2015) comes in pieces that make, in order, the same page as the one
    /// made whole: the entries' cards about 64 KiB at a time, the chart in one.
    @Test func thePiecesAreTheWholePage() {
        let start = Date(timeIntervalSince1970: 1_420_070_400)
        let entries = (0..<3000).map { day in
            let time = Date(timeInterval: Double(day) * 86_400, since: start).iso8601(utcOffset: 3600)
            return DiaryStatisticsTests.entry(time, ["Clear", "Rain", "Clouds"][day % 3], Double(day % 30))
        }
        let page = TimelinePage(
            title: "Three thousand days", formatting: DiaryFormatting(locale: DateLocale.english, timeZone: .utc),
            icons: [:], generatedAt: start)
        var pieces: [String] = []
        page.render(entries) { pieces.append($0) }
        let whole = page.render(entries)
        #expect(pieces.joined() == whole)
        #expect(pieces.count > 10, "\(pieces.count) pieces of a page of \(whole.utf8.count) bytes")
        let chart = pieces.firstIndex { $0.hasPrefix("<figure class=\"chart\"") }
        #expect(chart != nil)
        for (index, piece) in pieces.enumerated() where index != chart {
            #expect(piece.utf8.count < 80 << 10, "piece \(index): \(piece.utf8.count) bytes")
        }
    }
}
