import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// "On this day": earlier years' entries of a month and day, on each entry's own clock, through the socket, the
/// command line and waybar's tooltip.
@Suite("On this day", .serialized)
struct OnThisDayTests {
    static let fixed = #"[{"type": "fixed", "latitude": 37.5665, "longitude": 126.978}]"#

    /// A stamped entry of `day` (`YYYY-MM-DD`) at `time` with `offset`, its block holding this weather.
    static func entry(
        _ day: String, _ time: String, offset: String, title: String, icon: String, temperature: Int,
        place: String
    ) -> String {
        """
        ---
        title: \(title)
        date: \(day)T\(time):00\(offset)
        weather:
          condition: Rain
          description: light rain
          icon: \(icon)
          temperature: \(temperature)
          units: metric
          place: \(place)
          kind: historical
        ---
        \(title).

        """
    }

    /// The test's own zone's offset now (`+01:00`, `Z`): an entry at midnight of today on this clock is never
    /// dated ahead.
    static func offsetHere() -> String {
        let seconds = TimeZone.current.secondsFromGMT()
        guard seconds != 0 else { return "Z" }
        return (seconds < 0 ? "-" : "+") + String(format: "%02d:%02d", abs(seconds) / 3600, abs(seconds) % 3600 / 60)
    }

    @Test func earlierYearsOfTodayAndOfADateComeNewestYearFirst() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            // Today's month and day (on the clock the commands read: the test's own zone) in earlier years, and
            // this year. Years four apart, so that on 29 February each of them has that day too.
            let today = Calendar.current.dateComponents([.year, .month, .day], from: Date())
            let year = today.year!
            let monthDay = String(format: "%02d-%02d", today.month!, today.day!)
            try harness.directory.write(
                "inbox/market.md",
                Self.entry(
                    "\(year - 12)-\(monthDay)", "10:00", offset: "+09:00", title: "the market", icon: "10d",
                    temperature: 12, place: "Seoul"))
            try harness.directory.write(
                "inbox/lake.md",
                Self.entry(
                    "\(year - 4)-\(monthDay)", "23:30", offset: "+09:00", title: "by the lake", icon: "01n",
                    temperature: -3, place: "Chuncheon"))
            // Its own clock says today's date; UTC would say the day before.
            try harness.directory.write(
                "inbox/dawn.md",
                Self.entry(
                    "\(year - 8)-\(monthDay)", "00:30", offset: "+02:00", title: "dawn", icon: "04n",
                    temperature: 4, place: "Berlin"))
            try harness.directory.write(
                "inbox/now.md",
                Self.entry(
                    "\(year)-\(monthDay)", "00:00", offset: Self.offsetHere(), title: "this year", icon: "01d",
                    temperature: 20, place: "Seoul"))
            let daemon = try await harness.startDaemon()
            // Read, not only seen (a row from a file's name and time until it is read).
            try await poll("the diary read") { () -> Bool? in
                let entries = try DiaryTests.entries(daemon)
                return entries.count == 4 && entries.allSatisfy { $0["time_source"] as? String == "front_matter:date" }
                    ? true : nil
            }

            // The socket: every year of that month and day, newest first.
            let api = try DiaryTests.paths(daemon, "on_this_day=\(monthDay)")
            #expect(api == ["now.md", "lake.md", "dawn.md", "market.md"])
            let bad = try daemon.get("/v1/entries?on_this_day=13-45")
            #expect(bad.status == 400 && bad.body.contains("on_this_day"), "\(bad.body)")

            // The command line: earlier years only, newest year first, with their weather.
            // Read on the test's own clock, as "today" above was.
            let here = TimeZone.current.identifier
            let listed = try await DiaryTests.cli(
                ["entries", "--on-this-day", "--format", "{date}|{title}|{temperature}"], harness, zone: here)
            #expect(listed.status == 0, "\(listed.stderr)")
            let titles = listed.stdout.split(separator: "\n").map { $0.split(separator: "|")[1] }
            #expect(titles == ["by the lake", "dawn", "the market"], "\(listed.stdout)")
            #expect(listed.stdout.contains("|12°C") || listed.stdout.contains("|12"), "\(listed.stdout)")
            // Of another date: its month and day, before its year.
            let other = try await DiaryTests.cli(
                ["entries", "--on-this-day", "\(year - 4)-\(monthDay)", "--format", "{title}"], harness, zone: here)
            #expect(other.stdout == "dawn\nthe market\n", "\(other.stdout)\(other.stderr)")

            // waybar's tooltip: a line each, as the issue shows it, and a class for CSS.
            let bar = try await ChildProcess.run(
                [DaemonProcess.binary, "tag", "--waybar", "--socket", harness.socketPath], in: harness.directory)
            let module = try #require(try JSONSerialization.jsonObject(with: Data(bar.stdout.utf8)) as? [String: Any])
            let tooltip = try #require(module["tooltip"] as? String)
            #expect(tooltip.contains("\(year - 12) · 🌦️ 12°C Seoul · the market"), "\(tooltip)")
            #expect(tooltip.contains("\(year - 4) · 🌙 -3°C Chuncheon · by the lake"), "\(tooltip)")
            #expect(!tooltip.contains("this year"))
            #expect((module["class"] as? [String])?.contains("on-this-day") == true)
            #expect(try await daemon.stop() == 0)
        }
    }
}

/// The timeline page as a new user sees it, in a real Chromium on a machine without an emoji font: icons drawn, years
/// without entries shown as gaps, and earlier years of the day asked on top.
@Suite("The timeline's icons, gaps and this day", .serialized)
struct TimelineLookTests {
    @Test func iconsAreDrawnGapsAreGapsAndThisDayIsOnTop() async throws {
        let chromium = try #require(which("chromium"), "chromium is needed (make setup)")
        let convert = try #require(which("convert"), "ImageMagick is needed (make setup)")
        try await withHarness { harness in
            try harness.writeConfig(providers: OnThisDayTests.fixed)
            // One rainy day in May 2019, then nothing until a sunny fortnight in 2022, and 10 March 2023, whose day
            // the page is written for in 2026.
            try harness.directory.write(
                "inbox/may.md",
                OnThisDayTests.entry(
                    "2019-05-01", "10:00", offset: "+09:00", title: "the market", icon: "10d",
                    temperature: 12, place: "Seoul"
                ).replacingOccurrences(of: "Rain", with: "Rain"))
            for day in 1...14 {
                try harness.directory.write(
                    "inbox/june-\(day).md",
                    OnThisDayTests.entry(
                        String(format: "2022-06-%02d", day), "12:00", offset: "+09:00",
                        title: "June \(day)", icon: day % 2 == 0 ? "01d" : "13d",
                        temperature: 20 + day % 5, place: "Seoul"
                    )
                    .replacingOccurrences(of: "condition: Rain", with: "condition: Clear"))
            }
            try harness.directory.write(
                "inbox/then.md",
                OnThisDayTests.entry(
                    "2023-03-10", "09:00", offset: "Z", title: "a year ago and more",
                    icon: "01d", temperature: 15, place: "Busan"))
            let daemon = try await harness.startDaemon()
            try await poll("the diary read") { () -> Bool? in
                let entries = try DiaryTests.entries(daemon, "limit=100")
                return entries.count == 16 && entries.allSatisfy { $0["time_source"] as? String == "front_matter:date" }
                    ? true : nil
            }
            let page = harness.directory.file("diary.html")
            let written = try await DiaryTests.cli(
                ["timeline", "--output", page, "--on-this-day", "2026-03-10"], harness)
            #expect(written.status == 0, "\(written.stderr)")
            let html = try String(contentsOfFile: page, encoding: .utf8)

            // Drawn icons, no emoji (no icon is cached: the daemon fetched none of these).
            #expect(html.components(separatedBy: "<svg class=\"icon\"").count - 1 >= 16)
            for emoji in ["☀️", "🌦️", "❄️", "🌙", "☁️", "🌧️"] { #expect(!html.contains(emoji), "\(emoji) in the page") }
            // The gap: a rect saying so, and May 2019's rain shading only near its day, not across three years.
            #expect(html.contains("<rect class=\"gap\""), "no gap drawn")
            let rain = try #require(html.range(of: "fill=\"#7fb3e6\"><title>Rain</title>"))
            let rect = html[
                html[..<rain.lowerBound].range(of: "<rect class=\"shade\"", options: .backwards)!
                    .lowerBound..<rain.lowerBound]
            let width = Double(rect.components(separatedBy: "width=\"")[1].prefix { $0 != "\"" }) ?? .infinity
            #expect(width < 20, "the rain shade is \(width) of 1000 wide")
            #expect(html.components(separatedBy: "<polyline class=\"curve\"").count - 1 == 1)
            // This day in earlier years, on top.
            let section = try #require(html.range(of: "<section class=\"on-this-day\">"))
            let month = try #require(html.range(of: "<section class=\"month\">"))
            #expect(section.lowerBound < month.lowerBound)
            #expect(html[section.lowerBound..<month.lowerBound].contains("a year ago and more"))

            // Chromium draws the icons: the sun's yellow is on the screen.
            let shot = harness.directory.file("diary.png")
            let rendered = try await ChildProcess.run(
                [
                    chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--window-size=1100,1400", "--screenshot=" + shot, "file://" + page,
                ], in: harness.directory)
            #expect(rendered.status == 0, "\(rendered.stderr)")
            let share = try await ChildProcess.run(
                [
                    convert, shot, "-fuzz", "6%", "-fill", "white", "+opaque", "rgb(245,180,0)", "-fill", "black",
                    "-opaque", "rgb(245,180,0)", "-format", "%[fx:1-mean]", "info:",
                ], in: harness.directory)
            #expect((Double(share.stdout) ?? 0) > 0.0005, "the suns: \(share.stdout) \(share.stderr)")
            #expect(try await daemon.stop() == 0)
        }
    }
}
