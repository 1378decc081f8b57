import FoundationEssentials
import Testing
import WeathertagCore
import WeathertagTestSupport

/// Dates, times and numbers as CLDR writes them, in every locale of the catalog, checked against Babel itself
/// (the CLDR the catalog was made from, as `make setup` downloads it): each pattern written by weathertag and by
/// Babel's own `format_datetime` for the same moments gives the same text. (weathertag names the day's period in
/// full, `오후` where Korean's abbreviation is `PM`: Babel is asked for the same, `aaaa`.)
@Suite("dates and numbers as the locale writes them")
struct CalendarWordsTests {
    static let babel = Fixtures.repositoryRoot + "/.build/tools/towns/babel-2.16.0-py3-none-any.whl"

    /// Moments that tell the fields apart: a morning and an afternoon, one- and two-digit days, months and hours.
    static let moments = [
        CalendarWords.Moment(year: 2026, month: 3, day: 5, hour: 15, minute: 30),
        CalendarWords.Moment(year: 2025, month: 11, day: 28, hour: 9, minute: 5),
        CalendarWords.Moment(year: 2024, month: 1, day: 31, hour: 0, minute: 0),
    ]

    @Test func everyLocaleWritesItsPatternsAsBabelDoes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Each locale's patterns, read by Babel from the catalog's own words, for each moment.
        var lines: [String] = []
        var ours: [String] = []
        for name in CalendarWords.catalog.keys.sorted() {
            let words = try #require(CalendarWords.catalog[name])
            for pattern in [words.date, words.time, words.month, words.shortMonth] {
                for moment in Self.moments {
                    lines.append(
                        [
                            name, pattern, "\(moment.year)", "\(moment.month)", "\(moment.day)",
                            "\(moment.hour)", "\(moment.minute)",
                        ].joined(separator: "\t"))
                    ours.append(words.format(pattern, moment))
                }
            }
        }
        try directory.write("cases.tsv", lines.joined(separator: "\n") + "\n")
        try directory.write(
            "babel.py",
            """
            import datetime, sys, zipfile
            folder = sys.argv[3]
            zipfile.ZipFile(sys.argv[1]).extractall(folder)
            sys.path.insert(0, folder)
            from babel import dates, localedata
            import tools_calendar
            last = None
            def wide(pattern):
                parts = pattern.split("'")
                return "'".join(part.replace("a", "aaaa") if index % 2 == 0 else part for index, part in enumerate(parts))
            for line in open(sys.argv[2], encoding="utf-8"):
                name, pattern, year, month, day, hour, minute = line.rstrip("\\n").split("\\t")
                pattern = wide(pattern)
                if name != last:
                    localedata._cache.clear()  # (as tools/calendar-words.py reads each locale: Babel's aliases)
                    last = name
                moment = datetime.datetime(int(year), int(month), int(day), int(hour), int(minute))
                said = dates.format_datetime(moment, pattern, locale=tools_calendar.LOCALES.get(name, name))
                print(said.replace("\\u202f", " ").replace("\\u00a0", " "))
            """)
        // The generator's own table of locales, as a module.
        try directory.write(
            "tools_calendar.py",
            try String(contentsOfFile: Fixtures.repositoryRoot + "/tools/calendar-words.py", encoding: .utf8))
        let python = try #require(which("python3"))
        let result = try await ChildProcess.run(
            [python, directory.file("babel.py"), Self.babel, directory.file("cases.tsv"), directory.file("babel")],
            environment: ["PYTHONPATH": directory.path, "PATH": "/usr/bin:/bin"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        let theirs = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(theirs.count == ours.count)
        for (index, (mine, babels)) in zip(ours, theirs).enumerated() where mine != babels {
            Issue.record("\(lines[index]): weathertag says \(mine), Babel \(babels)")
        }
    }

    @Test func datesTimesAndNumbersInTheReadersLocale() throws {
        let moment = Date(timeIntervalSince1970: 1_772_724_600)  // 2026-03-05 15:30 UTC
        let cases: [(String, String, String, String)] = [
            ("en_US", "Mar 5, 2026, 3:30 PM", "March 2026", "12.3°C"),
            ("en_GB", "5 Mar 2026, 15:30", "March 2026", "12.3°C"),
            ("ko_KR", "2026. 3. 5. 오후 3:30", "2026년 3월", "12.3°C"),
            ("ja_JP", "2026/03/05 15:30", "2026年3月", "12.3°C"),
            ("zh_TW", "2026年3月5日 下午3:30", "2026年3月", "12.3°C"),
            ("de_DE", "05.03.2026, 15:30", "März 2026", "12,3 °C"),
            ("fr_FR", "5 mars 2026, 15:30", "mars 2026", "12,3 °C"),
            ("fr_CA", "5 mars 2026, 15 h 30", "mars 2026", "12,3 °C"),
            ("es_ES", "5 mar 2026, 15:30", "marzo de 2026", "12,3 °C"),
            ("th_TH", "5 มี.ค. 2026 15:30", "มีนาคม 2026", "12.3°C"),
            ("xx_XX", "Mar 5, 2026, 3:30 PM", "March 2026", "12.3°C"),
        ]
        for (identifier, dayAndTime, month, temperature) in cases {
            let locale = DateLocale(identifier: identifier)
            #expect(locale.string(moment, style: .dayAndTime, zone: .utc) == dayAndTime, "\(identifier)")
            #expect(locale.string(moment, style: .month, zone: .utc) == month, "\(identifier)")
            #expect(locale.words.temperature(12.3, units: "metric", decimals: 1) == temperature, "\(identifier)")
        }
        #expect(DateLocale(identifier: "de").words.temperature(54, units: "imperial", decimals: 0) == "54 °F")
        #expect(DateLocale.english.words.temperature(285.2, units: "standard", decimals: 0) == "285 K")
    }
}
