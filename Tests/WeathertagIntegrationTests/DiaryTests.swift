import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// The diary itself: every entry listed with its title, time, lane and weather, searched, explained, through the
/// daemon and without it, kept in step with the files and rebuilt from them.
@Suite("The diary index", .serialized)
struct DiaryTests {
    static let fixed = #"[{"type": "fixed", "latitude": 37.5665, "longitude": 126.978}]"#

    static func entries(_ daemon: DaemonProcess, _ query: String = "") throws -> [[String: Any]] {
        let response = try daemon.get("/v1/entries" + (query.isEmpty ? "" : "?" + query))
        guard response.status == 200 else { throw TimeoutError(description: "\(query): \(response.body)") }
        return response.json["entries"] as? [[String: Any]] ?? []
    }

    static func paths(_ daemon: DaemonProcess, _ query: String = "") throws -> [String] {
        try Self.entries(daemon, query).compactMap { $0["path"] as? String }
    }

    static func entry(_ daemon: DaemonProcess, _ path: String) throws -> [String: Any]? {
        let encoded = path.replacingOccurrences(of: "/", with: "%2F")
        let response = try daemon.get("/v1/entries/" + encoded)
        return response.status == 200 ? response.json : nil
    }

    static func cli(
        _ arguments: [String], _ harness: Harness, lang: String = "en_US.UTF-8", zone: String = "UTC"
    ) async throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        var environment = ProcessInfo.processInfo.environment
        environment["LANG"] = lang
        environment["LC_ALL"] = nil
        environment["LC_TIME"] = nil
        environment["TZ"] = zone
        return try await ChildProcess.run(
            [DaemonProcess.binary] + arguments + ["--config", harness.directory.file("config.json")],
            environment: environment, in: harness.directory)
    }

    static func writeDiary(_ harness: Harness) throws {
        for folder in ["2026/11", "2025/01"] {
            try FileManager.default.createDirectory(
                atPath: harness.entryPath(folder), withIntermediateDirectories: true)
        }
        try harness.directory.write(
            "inbox/2026/11/snow.md", "---\ntitle: Snow day\n---\nIt snowed all morning. We built a snowman.\n")
        try harness.directory.write("inbox/walk.md", "# 산책\n\n한강을 따라 걸었다.\n")
        try harness.directory.write("inbox/plain.md", "\n  First line   is the title  \nsecond line\n")
        // An older block written by another tool: listed with what it holds, never rewritten.
        try harness.directory.write(
            "inbox/older.md", "---\nweather: {main: Snow, temp: -3, city: Oslo}\n---\nSkating on the lake.\n")
        try harness.directory.write("inbox/broken.md", "---\nweather: [1\n---\nBroken front matter.\n")
        try harness.directory.write("inbox/2025/01/old.md", "---\ndate: 2025-01-05\n---\nRain, long ago.\n")
    }

    @Test func theIndexListsSearchesAndExplainsEveryEntry() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            try Self.writeDiary(harness)
            var daemon = try await harness.startDaemon()
            for name in ["2026/11/snow.md", "walk.md", "plain.md"] { _ = try await harness.waitForStamp(name) }
            try await poll("six entries indexed", timeout: .seconds(20)) {
                try Self.paths(daemon).count == 6 ? true : nil
            }

            // Newest first; the back-dated entry (2025) last. Titles: front matter, heading, first line.
            let all = try Self.entries(daemon)
            #expect(all.last?["path"] as? String == "2025/01/old.md")
            var titles: [String: String] = [:]
            for entry in all { titles[entry["path"] as? String ?? ""] = entry["title"] as? String }
            #expect(titles["2026/11/snow.md"] == "Snow day")
            #expect(titles["walk.md"] == "산책")
            #expect(titles["plain.md"] == "First line is the title")
            #expect(titles["older.md"] == "Skating on the lake.")
            #expect(titles["2025/01/old.md"] == "Rain, long ago.")
            let snow = try #require(all.first { $0["path"] as? String == "2026/11/snow.md" })
            #expect(snow["excerpt"] as? String == "It snowed all morning. We built a snowman.")
            #expect((snow["weather"] as? [String: Any])?["place"] as? String == "Seoul")
            #expect(snow["lane"] as? String == "stamped")
            #expect((snow["time"] as? String)?.contains("T") == true)

            // Lanes and reasons.
            #expect(try Self.paths(daemon, "lane=left_alone") == ["broken.md"])
            #expect(try Self.entries(daemon, "lane=backdated").first?["reason"] as? String == "history_disabled")
            let older = try #require(try Self.entries(daemon, "place=oslo").first)
            #expect(older["path"] as? String == "older.md")
            #expect(older["reason"] as? String == "found")
            #expect(harness.read("older.md").contains("{main: Snow, temp: -3, city: Oslo}"))

            // Search, and filters by weather and time.
            #expect(try Self.paths(daemon, "q=snowm") == ["2026/11/snow.md"])
            #expect(try Self.paths(daemon, "q=%ED%95%9C%EA%B0%95") == ["walk.md"])  // 한강
            #expect(try Self.paths(daemon, "q=lake%20skating") == ["older.md"])
            #expect(try Self.paths(daemon, "q=%22long%20ago%22") == ["2025/01/old.md"])
            #expect(try Self.paths(daemon, "condition=SNOW") == ["older.md"])
            #expect(try Self.paths(daemon, "condition=broken%20clouds").count == 3)
            #expect(try Self.paths(daemon, "until=2025-12-31") == ["2025/01/old.md"])
            #expect(!(try Self.paths(daemon, "since=2026-01-01").contains("2025/01/old.md")))

            // Pages: the same entries in the same order, each once.
            var paged: [String] = []
            var cursor: String?
            repeat {
                let response = try daemon.get("/v1/entries?limit=2" + (cursor.map { "&cursor=" + $0 } ?? ""))
                paged += (response.json["entries"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
                cursor = response.json["next_cursor"] as? String
            } while cursor != nil && paged.count < 20
            #expect(paged == all.compactMap { $0["path"] as? String })

            // Bad parameters: 400, the parameter named.
            for (query, parameter) in [
                ("lane=nope", "lane"), ("since=yesterday", "since"), ("limit=0", "limit"), ("cursor=zz", "cursor"),
                ("colour=red", "colour"), ("since=2026-02-01&until=2026-01-01", "until"), ("q=%2B%2B", "q"),
            ] {
                let response = try daemon.get("/v1/entries?" + query)
                #expect(response.status == 400, "\(query)")
                #expect((response.json["error"] as? String)?.hasPrefix(parameter + ":") == true, "\(response.body)")
            }

            // One entry: its block, history and what would change it.
            let one = try #require(try Self.entry(daemon, "2026/11/snow.md"))
            #expect((one["block"] as? [String])?.first == "weather:")
            #expect((one["history"] as? [String: Any])?["stamped_at"] is String)
            #expect(one["remedy"] is String)
            #expect(try daemon.get("/v1/entries/nothing.md").status == 404)

            // /v1/status: the lanes' counts and latest entries.
            let lanes = try #require(try daemon.get("/v1/status").json["lanes"] as? [String: [String: Any]])
            #expect(lanes["stamped"]?["count"] as? Int == 4)
            #expect(lanes["left_alone"]?["count"] as? Int == 1)
            #expect(lanes["backdated"]?["count"] as? Int == 1)
            #expect(lanes["waiting"]?["count"] as? Int == 0)

            // The command line, through the daemon: a table in the reader's locale, and why.
            let table = try await Self.cli(["entries"], harness)
            #expect(table.status == 0, "\(table.stderr)")
            #expect(table.stdout.contains("Snow day") && table.stdout.contains("산책"), "\(table.stdout)")
            #expect(table.stdout.contains("Jan 5, 2025"), "\(table.stdout)")
            let korean = try await Self.cli(["entries", "--lane", "backdated"], harness, lang: "ko_KR.UTF-8")
            #expect(korean.stdout.contains("2025. 1. 5."), "\(korean.stdout)")
            let formatted = try await Self.cli(["entries", "snowman", "--format", "{path}|{title}|{lane}"], harness)
            #expect(formatted.stdout == "2026/11/snow.md|Snow day|stamped\n", "\(formatted.stdout)")
            let why = try await Self.cli(["why", harness.entryPath("2025/01/old.md")], harness)
            #expect(why.status == 0, "\(why.stderr)")
            #expect(why.stdout.contains("back-dated") && why.stdout.contains("history.enabled"), "\(why.stdout)")
            let whyBroken = try await Self.cli(["why", harness.entryPath("broken.md")], harness)
            #expect(whyBroken.stdout.contains("not valid YAML: line 3"), "\(whyBroken.stdout)")
            #expect(try await Self.cli(["why", harness.entryPath("nothing.md")], harness).status == 66)
            let badLane = try await Self.cli(["entries", "--lane", "nope"], harness)
            #expect(badLane.status == 64 && badLane.stderr.contains("--lane"), "\(badLane.stderr)")

            // Kept in step with the files: a rename moves the row, a deletion drops it.
            #expect(rename(harness.entryPath("2026/11/snow.md"), harness.entryPath("2026/11/snow-day.md")) == 0)
            #expect(unlink(harness.entryPath("broken.md")) == 0)
            try await poll("the rename and the deletion followed", timeout: .seconds(20)) {
                let paths = try Self.paths(daemon)
                return paths.contains("2026/11/snow-day.md") && !paths.contains("2026/11/snow.md")
                    && !paths.contains("broken.md") ? true : nil
            }
            #expect(try Self.entry(daemon, "2026/11/snow-day.md")?["title"] as? String == "Snow day")
            #expect(try Self.paths(daemon, "q=snowman") == ["2026/11/snow-day.md"])

            // Without the daemon: straight from the database.
            #expect(try await daemon.stop() == 0)
            let direct = try await Self.cli(["entries", "--lane", "stamped"], harness)
            #expect(direct.status == 0, "\(direct.stderr)")
            #expect(direct.stdout.contains("Snow day") && direct.stdout.contains("Skating"), "\(direct.stdout)")
            let directWhy = try await Self.cli(["why", harness.entryPath("2025/01/old.md")], harness)
            #expect(directWhy.stdout.contains("history.enabled"), "\(directWhy.stdout)")

            // The database deleted: rebuilt from the files.
            for suffix in ["", "-wal", "-shm"] { unlink(harness.state + "/state.sqlite" + suffix) }
            daemon = try await harness.startDaemon()
            // Listed first, then read: the rebuild is done when every entry is there with its words (under load the
            // listing was seen before the last entry's title).
            try await poll("the index rebuilt from the files", timeout: .seconds(20)) {
                try Self.paths(daemon).count == 5
                    && Self.entry(daemon, "2026/11/snow-day.md")?["title"] as? String == "Snow day"
                    && Self.paths(daemon, "q=%ED%95%9C%EA%B0%95") == ["walk.md"] ? true : nil
            }
            #expect(try await daemon.stop() == 0)
        }
    }

    /// `weathertag entries 寿司`: words inside Japanese, Chinese and Thai sentences, found through the daemon and,
    /// with it stopped, in its database; nothing found across a sentence's end.
    @Test func wordsInsideJapaneseAndChineseSentencesAreFound() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            try harness.directory.write("inbox/tokyo.md", "---\ntitle: 東京\n---\n今日は東京で寿司を食べた。美味しかった。\n")
            try harness.directory.write("inbox/beijing.md", "---\ntitle: 北京\n---\n我们在北京吃了烤鸭，天气很冷。\n")
            try harness.directory.write("inbox/bangkok.md", "---\ntitle: ตลาด\n---\nวันนี้ฉันไปตลาดน้ำและกินมะม่วงอร่อยมาก\n")
            let daemon = try await harness.startDaemon()
            for name in ["tokyo.md", "beijing.md", "bangkok.md"] { _ = try await harness.waitForStamp(name) }
            try await poll("all indexed", timeout: .seconds(20)) { try Self.paths(daemon).count == 3 ? true : nil }
            #expect(
                try Self.paths(daemon, "q=%E0%B8%A1%E0%B8%B0%E0%B8%A1%E0%B9%88%E0%B8%A7%E0%B8%87") == ["bangkok.md"])
            #expect(try Self.paths(daemon, "q=%E0%B8%97%E0%B8%B8%E0%B9%80%E0%B8%A3%E0%B8%B5%E0%B8%A2%E0%B8%99").isEmpty)
            for (word, title) in [("寿司", "東京"), ("美味", "東京"), ("烤鸭", "北京"), ("鸭", "北京"), ("มะม่วง", "ตลาด")] {
                let found = try await Self.cli(["entries", word, "--format", "{title}"], harness)
                #expect(found.stdout == title + "\n", "\(word): \(found.stdout) \(found.stderr)")
            }
            #expect(try await Self.cli(["entries", "た美"], harness).stderr.contains("no entries match"))
            #expect(try await daemon.stop() == 0)
            let stopped = try await Self.cli(["entries", "北京", "--format", "{path}"], harness)
            #expect(stopped.stdout == "beijing.md\n", "\(stopped.stdout)")
        }
    }

    @Test func anEntryThatWaitsSaysWhy() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            try harness.standIn.control(#"{"weather": {"mode": "500"}}"#)
            var daemon = try await harness.startDaemon()
            try harness.directory.write("inbox/today.md", "Dear diary\n")
            try await poll("today.md waits for weather", timeout: .seconds(20)) {
                try Self.entry(daemon, "today.md")?["reason"] as? String == "no_weather" ? true : nil
            }
            #expect(try Self.entry(daemon, "today.md")?["lane"] as? String == "waiting")
            #expect(try Self.paths(daemon, "lane=waiting") == ["today.md"])
            let why = try await Self.cli(["why", harness.entryPath("today.md")], harness)
            #expect(why.stdout.contains("waits for weather"), "\(why.stdout)")

            // The daemon stopped: the database says it was waiting, and that nobody is stamping.
            #expect(try await daemon.stop() == 0)
            let stopped = try await Self.cli(["why", harness.entryPath("today.md")], harness)
            #expect(stopped.stdout.contains("the daemon is not running"), "\(stopped.stdout)")

            try harness.standIn.control(#"{"weather": {"mode": "ok"}}"#)
            daemon = try await harness.startDaemon()
            _ = try await harness.waitForStamp("today.md")
            try await poll("today.md stamped in the index", timeout: .seconds(20)) {
                try Self.entry(daemon, "today.md")?["lane"] as? String == "stamped" ? true : nil
            }

            // An editor's swap file beside the entry: it waits for the editor, named.
            try harness.directory.write("inbox/.draft.md.swp", "vim")
            try harness.directory.write("inbox/draft.md", "Half a thought\n")
            try await poll("draft.md waits for its editor", timeout: .seconds(20)) {
                try Self.entry(daemon, "draft.md")?["reason"] as? String == "editor" ? true : nil
            }
            let draft = try #require(try Self.entry(daemon, "draft.md"))
            #expect(draft["detail"] as? String == ".draft.md.swp")
            #expect((draft["remedy"] as? String)?.contains("Close the editor") == true)
            #expect(unlink(harness.entryPath(".draft.md.swp")) == 0)
            _ = try await harness.waitForStamp("draft.md")
            try await poll("draft.md stamped in the index", timeout: .seconds(20)) {
                try Self.entry(daemon, "draft.md")?["lane"] as? String == "stamped" ? true : nil
            }
            #expect(try await daemon.stop() == 0)
        }
    }

    /// A year of a diary, 200 entries with their weather blocks (written over a year, as if stamped then).
    static func writeYear(_ harness: Harness) throws {
        let conditions = [
            ("Clear", "clear sky", "01d"), ("Clouds", "broken clouds", "04d"), ("Rain", "light rain", "10d"),
            ("Snow", "light snow", "13d"), ("Thunderstorm", "thunderstorm", "11d"),
        ]
        let start = Date(timeIntervalSince1970: 1_764_581_400)  // 2025-12-01 09:30 UTC
        for index in 0..<200 {
            let date = start.addingTimeInterval(-Double(index) * 1.8 * 86_400)
            let day = Calendar(identifier: .gregorian).ordinality(of: .day, in: .year, for: date) ?? 1
            let temperature = 12 - 14 * cos(2 * Double.pi * Double(day - 15) / 365) + Double(index % 7) - 3
            let condition =
                temperature < 0
                ? conditions[3] : temperature > 24 ? conditions[index % 3 == 0 ? 4 : 0] : conditions[index % 3]
            let stamp = ISO8601DateFormatter().string(from: date)
            try harness.directory.write(
                "inbox/\(stamp.prefix(10)).md",
                """
                ---
                title: "Day \(200 - index): \(condition.1) & <more>"
                date: \(stamp)
                weather:
                  condition: \(condition.0)
                  description: \(condition.1)
                  icon: \(condition.2)
                  temperature: \(String(format: "%.1f", temperature))
                  units: metric
                  place: Gangneung
                ---
                Walked by the sea; \(condition.1) all morning.

                """)
        }
    }

    /// `timeline`: one self-contained page (icons from the cache, CSS inline, no script, no request), rendered by a
    /// real headless Chromium and its screenshot checked for the chart's curve, its shading and an embedded icon.
    @Test func aYearOfTheDiaryAsOnePageInChromium() async throws {
        let chromium = try #require(which("chromium"), "chromium is needed (make setup)")
        let convert = try #require(which("convert"), "ImageMagick is needed (make setup)")
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            try Self.writeYear(harness)
            let daemon = try await harness.startDaemon()
            // The daemon's own weather brings the icon of broken clouds (04d) into the icon cache.
            _ = try daemon.get("/v1/tag")
            try await poll("200 entries indexed", timeout: .seconds(30)) {
                try Self.entries(daemon, "lane=stamped&limit=1000").count == 200 ? true : nil
            }
            try await poll("the icon cached", timeout: .seconds(10)) {
                FileManager.default.fileExists(atPath: harness.cache + "/icons/04d@2x.png") ? true : nil
            }
            let page = harness.directory.file("diary.html")
            // On this day of 1 December 2026: the year's newest entry (2025-12-01), and it alone, above the months;
            // the page the same on every day the suite runs.
            let written = try await Self.cli(
                ["timeline", "--output", page, "--title", "A year by the sea", "--on-this-day", "2026-12-01"], harness)
            #expect(written.status == 0, "\(written.stderr)")
            let html = try String(contentsOfFile: page, encoding: .utf8)
            let months = try #require(html.range(of: "<section class=\"month\">"))
            let thisDay = html[..<months.lowerBound]
            #expect(thisDay.components(separatedBy: "<article").count - 1 == 1)
            #expect(thisDay.contains("Day 200: light snow"), "\(thisDay.suffix(600))")
            #expect(html[months.lowerBound...].components(separatedBy: "<article").count - 1 == 200)
            #expect(html.components(separatedBy: "<section class=\"month\">").count - 1 == 13)  // Dec 2024 … Dec 2025
            #expect(html.contains("Day 200: light snow &amp; &lt;more&gt;"))
            #expect(!html.contains("<script") && !html.contains("http://") && !html.contains("https://"))
            #expect(html.contains("default-src 'none'"))
            #expect(html.contains("<img src=\"data:image/png;base64,"), "the cached icon, embedded")
            #expect(html.contains("<polyline class=\"curve\""))

            let shot = harness.directory.file("diary.png")
            let rendered = try await ChildProcess.run(
                [
                    chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--window-size=1100,2000", "--screenshot=" + shot, "file://" + page,
                ], in: harness.directory)
            #expect(rendered.status == 0, "\(rendered.stderr)")
            // The temperature curve, the Clear shading and the embedded icon (the stand-in's icon is green).
            for (colour, what) in [("#c0392b", "the curve"), ("#ffd966", "clear shading"), ("#80ff80", "the icon")] {
                let share = try await ChildProcess.run(
                    [
                        convert, shot, "-fuzz", "8%", "-fill", "white", "+opaque", colour, "-fill", "black",
                        "-opaque", colour, "-format", "%[fx:1-mean]", "info:",
                    ], in: harness.directory)
                #expect((Double(share.stdout) ?? 0) > 0.0005, "\(what): \(share.stdout) \(share.stderr)")
            }
            // It prints: Chromium's PDF of it has a page per few entries.
            let pdf = harness.directory.file("diary.pdf")
            let printed = try await ChildProcess.run(
                [
                    chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
                    "--print-to-pdf=" + pdf, "file://" + page,
                ], in: harness.directory)
            #expect(printed.status == 0, "\(printed.stderr)")
            let document = try Data(contentsOf: URL(fileURLWithPath: pdf))
            #expect(document.starts(with: Data("%PDF".utf8)))
            let pages = String(decoding: document, as: UTF8.self).components(separatedBy: "/Type /Page\n").count - 1
            #expect(pages >= 20, "\(pages) pages")
            #expect(try await daemon.stop() == 0)
        }
    }
}
