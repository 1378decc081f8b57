import FoundationEssentials

/// The diary as one self-contained HTML page (`weathertag timeline`): entries grouped by month with their date,
/// weather icon, temperature, place, title, first lines and photos, under a chart of the temperature over time with
/// each entry's condition shaded behind it and a map of where they were written (`DiaryMap`).
///
/// Self-contained: the icons are embedded (`data:` URIs of the icon cache's PNGs, drawn SVG where none is cached),
/// the CSS is inline, there is no script, and a Content-Security-Policy forbids any request but the entries' own
/// photos (linked by relative paths, shown only when the page is inside the diary), so the page opens offline, from
/// a mail or a USB stick, and prints (one column, no shadows, months kept together where they fit).
package struct TimelinePage: Sendable {
    package var title: String
    package var formatting: DiaryFormatting
    /// PNG bytes by OpenWeather icon code (`13d`).
    package var icons: [String: [UInt8]]
    package var generatedAt: Date
    /// The way from the page's folder to the inbox (`""`, `../`) when the page is inside the diary, where its
    /// entries' photos resolve; nil: the page shows no photos (a link there would be a broken image).
    package var photoBase: String?

    /// The reader's words: the formatting's (`timeline.lang`).
    var words: Messages { self.formatting.words }

    /// The page's `lang`: its words' language (`ko`, `zh-TW`), which picks a font's Japanese, Korean or Chinese shapes
    /// of the same Han letter; the dates' when its words are English.
    var language: String {
        self.words.isEnglish ? self.formatting.locale.language : self.words.language.replacing("_", with: "-")
    }

    package init(title: String, formatting: DiaryFormatting, icons: [String: [UInt8]], generatedAt: Date) {
        self.title = title
        self.formatting = formatting
        self.icons = icons
        self.generatedAt = generatedAt
    }

    /// The colour each condition is shaded with, in the chart and beside each entry.
    package static let conditionColours: KeyValuePairs<String, String> = [
        "Clear": "#ffd966", "Clouds": "#c9ced6", "Rain": "#7fb3e6", "Drizzle": "#a9cdee", "Thunderstorm": "#9b7fd1",
        "Snow": "#dff1ff", "Mist": "#e3e3d5", "Fog": "#e3e3d5", "Haze": "#eadfc8", "Smoke": "#c8bfb4",
        "Dust": "#e0c9a6", "Sand": "#e0c9a6", "Ash": "#b9b9b9", "Squall": "#8fa8bf", "Tornado": "#7d6f80",
    ]

    static func colour(_ condition: String?) -> String? {
        guard let condition else { return nil }
        return Self.conditionColours.first { $0.key.lowercased() == condition.lowercased() }?.value
    }

    /// The page for `entries` (any order; shown newest first, charted oldest to newest).
    /// The page: `entries` by month under the chart, and above them `onThisDay` (earlier years' entries of the
    /// day it is made), when there are any.
    package func render(_ entries: [EntryDocument], onThisDay: [EntryDocument] = [], map: String? = nil) -> String {
        var page = ""
        self.render(entries, onThisDay: onThisDay, map: map) { page += $0 }
        return page
    }

    /// The same page given to `write` in pieces, in order: the head, the chart, then the cards about 64 KiB at a
    /// time. A page of 50,000 entries (68 MiB) is never held whole.
    package func render(
        _ entries: [EntryDocument], onThisDay: [EntryDocument] = [], map: String? = nil,
        into write: (String) throws -> Void
    ) rethrows {
        // Its orders are of indexes into `entries`, not copies of its documents (480 bytes each: every order of
        // 50,000 was 24 MB more).
        let dated = entries.indices.compactMap { index in
            Date(iso8601WithOffset: entries[index].time).map { (index, $0) }
        }.sorted { $0.1 > $1.1 }
        var html = """
            <!DOCTYPE html>
            <html lang="\(Self.escaped(self.language))">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data: 'self' file:; style-src 'unsafe-inline'">
            <meta name="generator" content="weathertag">
            <title>\(Self.escaped(self.title))</title>
            <style>\(Self.css)</style>
            </head>
            <body>
            <header><h1>\(Self.escaped(self.title))</h1>
            """
        let count = dated.count
        if let newest = dated.first, let oldest = dated.last {
            html +=
                "<p class=\"summary\">"
                + Self.escaped(
                    self.words.tr(
                        "{count} entry · {first} – {last}", plural: "{count} entries · {first} – {last}", count: count,
                        [
                            "first": self.day(oldest.1, zone: Self.ownZone(entries[oldest.0])),
                            "last": self.day(newest.1, zone: Self.ownZone(entries[newest.0])),
                        ])) + "</p>"
        } else {
            html += "<p class=\"summary\">\(Self.escaped(self.words.tr("No entries.")))</p>"
        }
        html += "</header>\n"
        // The chart (its curve, a shade and a dot an entry) and the map are each one piece of their own.
        try write(html)
        let chronological = dated.map { index, date in (index, Self.wallTime(entries[index], date)) }
            .sorted { $0.1 < $1.1 }
        try write(self.chart(chronological.map { index, wallTime in (entries[index], wallTime) }))
        html = self.statistics(DiaryStatistics(entries))
        if let map {
            html +=
                "<section class=\"map\"><h2>\(Self.escaped(self.words.tr("Where you wrote")))</h2>\n\(map)</section>\n"
        }
        html += "<main>\n"
        if !onThisDay.isEmpty {
            html += "<section class=\"on-this-day\"><h2>\(Self.escaped(self.words.tr("On this day")))</h2>\n"
            for entry in onThisDay { html += self.article(entry) }
            html += "</section>\n"
        }
        // Months on each entry's own calendar: a dinner at 8:25 PM on 31 March in Cairns is March's, read anywhere.
        // Newest month first, newest entry first within it, so each month is one section.
        let byMonth = dated.map { index, date in (index, date, Self.wallClock(entries[index], date)) }
            .sorted { ($0.2.year, $0.2.month, $0.1) > ($1.2.year, $1.2.month, $1.1) }
        var month: String?
        for (index, date, _) in byMonth {
            let entry = entries[index]
            let heading = self.month(date, zone: Self.ownZone(entry) ?? self.formatting.timeZone)
            if heading != month {
                if month != nil { html += "</section>\n" }
                html += "<section class=\"month\"><h2>\(Self.escaped(heading))</h2>\n"
                month = heading
            }
            html += self.article(entry, anchored: true)
            if html.utf8.count >= 64 << 10 {
                try write(html)
                html = ""
            }
        }
        if month != nil { html += "</section>\n" }
        let footer = self.words.tr(
            "Made by weathertag on {day}. Everything on this page is in this file.",
            ["day": self.day(self.generatedAt)])
        html += "</main>\n<footer>\(Self.escaped(footer))</footer>\n</body>\n</html>\n"
        try write(html)
    }

    /// An entry's card; `anchored`, with the `id` the map links to (the month's card, not "On this day"'s copy).
    private func article(_ entry: EntryDocument, anchored: Bool = false) -> String {
        let weather = entry.weather
        var icon = ""
        if let code = weather?.icon {
            let alt = Self.escaped(weather?.description ?? weather?.condition ?? code)
            if let png = self.icons[code] {
                icon =
                    "<img src=\"data:image/png;base64,\(Data(png).base64EncodedString())\" alt=\"\(alt)\" "
                    + "width=\"48\" height=\"48\">"
            } else {
                // Drawn, not an emoji: a machine without an emoji font shows an empty box for one.
                icon = WeatherIconSVG.svg(code, label: weather?.description ?? weather?.condition ?? code)
            }
        }
        let shade = Self.colour(weather?.condition).map { " style=\"border-left-color: \($0)\"" } ?? ""
        var html =
            "<article\(anchored ? " id=\"\(Self.anchor(entry.path))\"" : "") class=\"entry lane-\(Self.escaped(entry.lane))\"\(shade)>"
        html +=
            "<div class=\"when\"><time datetime=\"\(Self.escaped(entry.time))\">"
            + "\(Self.escaped(self.formatting.date(entry)))</time></div>"
        html +=
            "<div class=\"weather\">\(icon)<span class=\"temperature\">"
            + "\(Self.escaped(self.formatting.temperature(weather)))</span></div>"
        html += "<div class=\"text\"><h3>\(Self.escaped(entry.title))</h3>"
        let place = [weather?.place, weather?.description].compactMap { $0 }.filter { !$0.isEmpty }
        if !place.isEmpty { html += "<p class=\"place\">\(Self.escaped(place.joined(separator: " · ")))</p>" }
        if entry.saysWhy {
            // What `weathertag why` says, and what would change it.
            html += "<p class=\"lane\">\(Self.escaped(entry.why(self.words)))</p>"
            if let remedy = entry.remedy(self.words), entry.lane != Lane.stamped.rawValue {
                html += "<p class=\"remedy\">\(Self.escaped(remedy))</p>"
            }
        }
        if !entry.excerpt.isEmpty { html += "<p class=\"excerpt\">\(Self.escaped(entry.excerpt))</p>" }
        html += self.photos(entry)
        html += "</div></article>\n"
        return html
    }

    /// The entry's photos as thumbnails (linked, not embedded: the page stays one small file), each a link to the
    /// picture itself; nothing when the page is not inside the diary.
    private func photos(_ entry: EntryDocument) -> String {
        guard let base = self.photoBase, let photos = entry.photos, !photos.isEmpty else { return "" }
        var html = "<p class=\"photos\">"
        for photo in photos.prefix(EntryPhotos.limit) {
            let link = Self.escaped(base + Paths.urlEncoded(photo))
            html += "<a href=\"\(link)\"><img src=\"\(link)\" alt=\"\" loading=\"lazy\"></a>"
        }
        return html + "</p>"
    }

    /// The weather of the diary as `weathertag stats` counts it: entries per condition, temperature by month and,
    /// with moods, mood by condition, each a bar chart (inline SVG); the rainy-day share and the extremes in words.
    func statistics(_ statistics: DiaryStatistics) -> String {
        guard statistics.withWeather > 0 else { return "" }
        let (calendar, units) = (self.formatting.locale.words, statistics.units.rawValue)
        var html = "<section class=\"statistics\">\n<p class=\"summary\">"
        let words = self.words
        var summary: [String] = []
        if let share = statistics.rainyShare {
            summary.append(
                words.tr(
                    "Rainy days: {share} ({rainy} of {count} day with entries)",
                    plural: "Rainy days: {share} ({rainy} of {count} days with entries)", count: statistics.days,
                    ["share": "\(Int((share * 100).rounded()))%", "rainy": String(statistics.rainyDays)]))
        }
        for (warmest, extreme) in [(true, statistics.warmest), (false, statistics.coldest)] {
            guard let extreme else { continue }
            let arguments: KeyValuePairs<String, String> = [
                "temperature": calendar.temperature(extreme.temperature, units: units, decimals: 1),
                "date": String(extreme.time.prefix(10)), "title": extreme.title,
            ]
            summary.append(
                warmest
                    ? words.tr("warmest {temperature}, {date} “{title}”", arguments)
                    : words.tr("coldest {temperature}, {date} “{title}”", arguments))
        }
        html += Self.escaped(words.list(summary))
        html += "</p>\n<div class=\"bars\">"
        html += Self.bars(
            words.tr("Entries per condition"),
            statistics.conditions.map {
                (words.condition($0.key), Double($0.entries), "\($0.entries)", Self.colour($0.key))
            })
        html += Self.bars(
            words.tr("Temperature by month"),
            statistics.temperatureByMonth.compactMap { tally in
                guard let mean = tally.mean, let month = Int(tally.key), (1...12).contains(month) else { return nil }
                return (
                    self.formatting.locale.monthName(month), mean,
                    calendar.temperature(mean, units: units, decimals: 1), "#e8a07c"
                )
            })
        if statistics.moods > 0 {
            html += Self.bars(
                words.tr("Mood by condition"),
                statistics.moodByCondition.compactMap { tally in
                    tally.mean.map {
                        (words.condition(tally.key), $0, calendar.number($0, decimals: 1), Self.colour(tally.key))
                    }
                })
            html += Self.bars(
                words.tr("Mood by temperature"),
                statistics.moodByTemperature.compactMap { tally in
                    tally.mean.map {
                        (DiaryStatistics.bandLabel(tally.key, words), $0, calendar.number($0, decimals: 1), "#b9a6e0")
                    }
                })
        }
        return html + "</div>\n</section>\n"
    }

    /// A horizontal bar chart: a row per label, bars from zero (negative values to the left of it).
    static func bars(_ title: String, _ rows: [(label: String, value: Double, text: String, colour: String?)]) -> String
    {
        guard !rows.isEmpty else { return "" }
        let (width, rowHeight, labelWidth, textWidth) = (320.0, 18.0, 96.0, 52.0)
        let height = rowHeight * Double(rows.count) + 24
        let low = min(0, rows.map(\.value).min() ?? 0)
        let high = max(0, rows.map(\.value).max() ?? 0)
        let span = max(high - low, 1e-9)
        let plot = width - labelWidth - textWidth
        func x(_ value: Double) -> Double { labelWidth + plot * (value - low) / span }
        var svg =
            "<figure class=\"bar-chart\"><svg viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" "
            + "aria-label=\"\(Self.escaped(title))\"><text class=\"bar-title\" x=\"0\" y=\"14\">"
            + "\(Self.escaped(title))</text>\n"
        for (index, row) in rows.enumerated() {
            let y = 24 + rowHeight * Double(index)
            let (start, end) = (min(x(0), x(row.value)), max(x(0), x(row.value)))
            svg +=
                "<text class=\"axis\" x=\"\(Self.number(labelWidth - 6))\" y=\"\(Self.number(y + 12))\" "
                + "text-anchor=\"end\">\(Self.escaped(row.label))</text>"
                + "<rect class=\"bar\" x=\"\(Self.number(start))\" y=\"\(Self.number(y + 2))\" "
                + "width=\"\(Self.number(max(1, end - start)))\" height=\"\(Self.number(rowHeight - 5))\" "
                + "fill=\"\(row.colour ?? "#c9ced6")\"><title>\(Self.escaped(row.label)): \(Self.escaped(row.text))</title></rect>"
                + "<text class=\"axis\" x=\"\(Self.number(width - textWidth + 4))\" y=\"\(Self.number(y + 12))\">"
                + "\(Self.escaped(row.text))</text>\n"
        }
        return svg + "</svg></figure>"
    }

    /// Temperature over time (inline SVG), each entry's condition shaded from halfway to its neighbours. Its axis
    /// is the entries' own clocks: each is placed at the wall-clock time it was written (`wallTime`, read as UTC),
    /// so a trip's evenings are evenings and its months start at its own midnight.
    func chart(_ chronological: [(EntryDocument, Date)]) -> String {
        let points: [ChartPoint] = chronological.compactMap { entry, date in
            entry.weather?.temperature.map { (entry, date, $0) }
        }
        guard points.count >= 2, let first = points.first?.1, let last = points.last?.1, last > first else {
            return ""
        }
        let frame = ChartFrame(from: first, to: last, temperatures: points.map(\.2))
        var svg = """
            <figure class="chart"><svg viewBox="0 0 \(Int(frame.width)) \(Int(frame.height))" role="img" \
            aria-label="\(Self.escaped(self.words.tr("Temperature over time")))">

            """
        // Gaps: where entries are much further apart than usual (`ChartGaps`), the line breaks and no condition's
        // shade runs across: years without entries are shown as years without entries.
        let gaps = ChartGaps(points.map(\.1))
        svg += self.gapsSVG(points, gaps, frame)
        let (shades, conditions) = self.shadesSVG(points, gaps, frame)
        svg += shades
        let unit = self.formatting.temperature(points.first?.0.weather).filter { !$0.isNumber && $0 != "-" }
        svg += self.axesSVG(frame, unit: unit)
        svg += self.curveSVG(points, gaps, frame)
        svg += "</svg>\n<figcaption>"
        svg += conditions.map { condition in
            "<span class=\"key\"><span class=\"swatch\" style=\"background: \(Self.colour(condition) ?? "#fff")\">"
                + "</span>\(Self.escaped(self.words.condition(condition)))</span>"
        }.joined(separator: " ")
        svg += "</figcaption></figure>\n"
        return svg
    }

    /// An entry on the chart: its document, its wall-clock time, its temperature.
    typealias ChartPoint = (EntryDocument, Date, Double)

    /// The chart's size and scales: time from the first entry to the last across, temperature up.
    struct ChartFrame {
        let width = 1000.0
        let height = 280.0
        let left = 48.0
        // Room on the right for the label of a month starting at the last entry.
        let right = 28.0
        let top = 12.0
        let bottom = 40.0
        let first: Date
        let last: Date
        let low: Double
        let high: Double

        init(from first: Date, to last: Date, temperatures: [Double]) {
            (self.first, self.last) = (first, last)
            var low = (temperatures.min() ?? 0).rounded(.down) - 2
            var high = (temperatures.max() ?? 0).rounded(.up) + 2
            if high - low < 10 { (low, high) = (low - 5, high + 5) }
            (self.low, self.high) = (low, high)
        }

        func x(_ date: Date) -> Double {
            self.left + (self.width - self.left - self.right) * date.timeIntervalSince(self.first)
                / self.last.timeIntervalSince(self.first)
        }

        func y(_ temperature: Double) -> Double {
            self.top + (self.height - self.top - self.bottom) * (self.high - temperature) / (self.high - self.low)
        }

        var plotHeight: Double { self.height - self.top - self.bottom }
    }

    /// A grey band over each gap, from half a usual interval after its first entry to half before its last.
    private func gapsSVG(_ points: [ChartPoint], _ gaps: ChartGaps, _ frame: ChartFrame) -> String {
        var svg = ""
        let reach = gaps.usualInterval / 2
        for index in gaps.gaps {
            let (from, to) = (points[index - 1].1, points[index].1)
            let (start, end) = (frame.x(from.addingTimeInterval(reach)), frame.x(to.addingTimeInterval(-reach)))
            guard end > start else { continue }
            svg +=
                "<rect class=\"gap\" x=\"\(Self.number(start))\" y=\"\(Self.number(frame.top))\" "
                + "width=\"\(Self.number(end - start))\" height=\"\(Self.number(frame.plotHeight))\">"
                + "<title>"
                + Self.escaped(
                    self.words.tr(
                        "no entries from {first} to {last}",
                        ["first": self.day(from, zone: .utc), "last": self.day(to, zone: .utc)]))
                + "</title></rect>\n"
            if end - start > 80 {
                svg +=
                    "<text class=\"gap-label\" x=\"\(Self.number((start + end) / 2))\" "
                    + "y=\"\(Self.number(frame.top + frame.plotHeight / 2))\" text-anchor=\"middle\">"
                    + "\(Self.escaped(self.words.tr("no entries", context: "chart gap")))</text>\n"
            }
        }
        return svg
    }

    /// Each entry's condition shaded from halfway to the previous entry to halfway to the next, and at a gap's edge
    /// half a usual interval; the conditions seen, in order, for the key.
    private func shadesSVG(
        _ points: [ChartPoint], _ gaps: ChartGaps, _ frame: ChartFrame
    ) -> (String, conditions: [String]) {
        var svg = ""
        var conditions: [String] = []
        let reach = gaps.usualInterval / 2
        let (left, right) = (frame.left, frame.width - frame.right)
        for (index, point) in points.enumerated() {
            guard let condition = point.0.weather?.condition, let colour = Self.colour(condition) else { continue }
            if !conditions.contains(condition) { conditions.append(condition) }
            let gapBefore = index == 0 || gaps.isGap(before: index)
            let gapAfter = index == points.count - 1 || gaps.isGap(before: index + 1)
            let start =
                index == 0
                ? left
                : gapBefore
                    ? max(left, frame.x(point.1.addingTimeInterval(-reach)))
                    : (frame.x(points[index - 1].1) + frame.x(point.1)) / 2
            let end =
                index == points.count - 1
                ? right
                : gapAfter
                    ? min(right, frame.x(point.1.addingTimeInterval(reach)))
                    : (frame.x(point.1) + frame.x(points[index + 1].1)) / 2
            // An entry alone between gaps is still seen.
            let width = max(gapBefore && gapAfter ? 4 : 0.5, end - start)
            svg +=
                "<rect class=\"shade\" x=\"\(Self.number(start))\" y=\"\(Self.number(frame.top))\" "
                + "width=\"\(Self.number(width))\" height=\"\(Self.number(frame.plotHeight))\" "
                + "fill=\"\(colour)\"><title>\(Self.escaped(self.words.condition(condition)))</title></rect>\n"
        }
        return (svg, conditions)
    }

    /// A line per 5 or 10 degrees, the month at each month's start.
    private func axesSVG(_ frame: ChartFrame, unit: String) -> String {
        var svg = ""
        let step = frame.high - frame.low > 40 ? 10.0 : 5.0
        var degree = (frame.low / step).rounded(.up) * step
        while degree <= frame.high {
            svg +=
                "<line class=\"grid\" x1=\"\(Self.number(frame.left))\" x2=\"\(Self.number(frame.width - frame.right))\" "
                + "y1=\"\(Self.number(frame.y(degree)))\" y2=\"\(Self.number(frame.y(degree)))\"/>"
                + "<text class=\"axis\" x=\"\(Self.number(frame.left - 6))\" y=\"\(Self.number(frame.y(degree) + 4))\" "
                + "text-anchor=\"end\">\(Int(degree))\(Self.escaped(unit))</text>\n"
            degree += step
        }
        for (date, label) in self.monthTicks(from: frame.first, to: frame.last) {
            svg +=
                "<text class=\"axis\" x=\"\(Self.number(frame.x(date)))\" "
                + "y=\"\(Self.number(frame.height - frame.bottom + 18))\" "
                + "text-anchor=\"middle\">\(Self.escaped(label))</text>\n"
        }
        return svg
    }

    /// A line for each run of entries between gaps, and a dot per entry (up to 400 of them) naming it.
    private func curveSVG(_ points: [ChartPoint], _ gaps: ChartGaps, _ frame: ChartFrame) -> String {
        var svg = ""
        for run in gaps.runs(count: points.count) where run.count >= 2 {
            let line = points[run].map { "\(Self.number(frame.x($0.1))),\(Self.number(frame.y($0.2)))" }
                .joined(separator: " ")
            svg += "<polyline class=\"curve\" points=\"\(line)\"/>\n"
        }
        guard points.count <= 400 else { return svg }
        for point in points {
            svg +=
                "<circle cx=\"\(Self.number(frame.x(point.1)))\" cy=\"\(Self.number(frame.y(point.2)))\" r=\"2.5\">"
                + "<title>\(Self.escaped(point.0.title)): "
                + "\(Self.escaped(self.formatting.temperature(point.0.weather)))</title></circle>\n"
        }
        return svg
    }

    /// The first day of each month in the range, thinned to at most 12 labels.
    private func monthTicks(from start: Date, to end: Date) -> [(Date, String)] {
        let zone = Zone.utc
        let first = zone.calendar(at: start).dateComponents([.year, .month], from: start)
        guard var year = first.year, var number = first.month else { return [] }
        var ticks: [Date] = []
        while ticks.count < 600 {
            (year, number) = number == 12 ? (year + 1, 1) : (year, number + 1)
            guard let month = zone.date(from: DateComponents(year: year, month: number, day: 1)), month <= end
            else { break }
            ticks.append(month)
        }
        let every = max(1, Int((Double(ticks.count) / 12).rounded(.up)))
        return ticks.enumerated().filter { $0.offset % every == 0 }.map {
            ($0.element, self.formatting.locale.string($0.element, style: .shortMonth, zone: zone))
        }
    }

    private func month(_ date: Date, zone: Zone) -> String {
        self.formatting.locale.string(date, style: .month, zone: zone)
    }

    private func day(_ date: Date, zone: Zone? = nil) -> String {
        self.formatting.locale.string(date, style: .day, zone: zone ?? self.formatting.timeZone)
    }

    /// The clock an entry was written on: the offset its time names.
    static func ownZone(_ entry: EntryDocument) -> Zone? {
        DiaryFormatting.utcOffset(ofRFC3339: entry.time).map { Zone.fixed(secondsFromGMT: $0) }
    }

    /// The wall-clock time an entry was written, as the instant it would be in UTC: what the chart's axis orders.
    static func wallTime(_ entry: EntryDocument, _ date: Date) -> Date {
        date.addingTimeInterval(TimeInterval(DiaryFormatting.utcOffset(ofRFC3339: entry.time) ?? 0))
    }

    static func wallClock(_ entry: EntryDocument, _ date: Date) -> WallClock {
        WallClock(date, utcOffset: DiaryFormatting.utcOffset(ofRFC3339: entry.time) ?? 0)
    }

    private static func number(_ value: Double) -> String { String(cFormat: "%.1f", value) }

    /// The `id` of an entry's card, which the map's dots link to: `entry-` and the FNV-1a hash of its path (an `id`
    /// any path makes, the same on every page).
    package static func anchor(_ path: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "entry-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Text and attribute values, escaped for HTML.
    package static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    static let css = """
        :root { color-scheme: light; --ink: #1d2430; --soft: #5d6675; --line: #e3e6ea; }
        * { box-sizing: border-box; }
        body { margin: 0 auto; max-width: 60rem; padding: 1.5rem; font: 16px/1.5 system-ui, "Noto Sans", "Noto Sans CJK KR", sans-serif; color: var(--ink); background: #fafbfc; }
        header h1 { margin: 0; font-size: 1.8rem; }
        .summary { margin: 0.2rem 0 1rem; color: var(--soft); }
        figure.chart { margin: 0 0 1.5rem; padding: 0.5rem; background: #fff; border: 1px solid var(--line); border-radius: 8px; }
        figure.chart svg { width: 100%; height: auto; display: block; }
        .shade { opacity: 0.55; }
        .gap { fill: #f1f2f4; }
        .statistics .bars { display: flex; flex-wrap: wrap; gap: 0.8rem; margin-bottom: 1rem; }
        .bar-chart { margin: 0; padding: 0.5rem; background: #fff; border: 1px solid var(--line); border-radius: 8px; flex: 1 1 calc(50% - 0.8rem); min-width: 16rem; }
        .bar-chart svg { width: 100%; height: auto; display: block; }
        .photos { display: flex; flex-wrap: wrap; gap: 0.4rem; margin: 0.4rem 0 0; }
        .photos img { display: block; max-width: 160px; max-height: 120px; width: auto; height: auto; border-radius: 4px; object-fit: cover; }
        section.map h2 { font-size: 1.2rem; margin: 0 0 0.4rem; }
        section.map svg { width: 100%; height: auto; display: block; margin-bottom: 1.5rem; border: 1px solid var(--line); border-radius: 8px; }
        article:target { outline: 3px solid #e8a07c; }
        .bar-title { font-size: 12px; font-weight: 600; fill: var(--ink); }
        .bar { stroke: #8a93a0; stroke-width: 0.5; }
        .gap-label { font-size: 12px; fill: #8a93a0; font-style: italic; }
        .grid { stroke: #d0d4da; stroke-width: 0.5; }
        .axis { font-size: 11px; fill: var(--soft); }
        .curve { fill: none; stroke: #c0392b; stroke-width: 2; stroke-linejoin: round; }
        figure.chart circle { fill: #c0392b; }
        figcaption { font-size: 0.85rem; color: var(--soft); }
        .key { margin-right: 0.8rem; white-space: nowrap; }
        .swatch { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.3em; vertical-align: -0.1em; border: 1px solid #aaa; }
        .month h2 { font-size: 1.2rem; margin: 1.5rem 0 0.5rem; padding-bottom: 0.2rem; border-bottom: 2px solid var(--line); }
        .entry { display: grid; grid-template-columns: 9.5rem 5.5rem 1fr; gap: 0.8rem; align-items: start; padding: 0.7rem 0.8rem; margin: 0.4rem 0; background: #fff; border: 1px solid var(--line); border-left: 6px solid #e3e6ea; border-radius: 6px; break-inside: avoid; }
        .when { color: var(--soft); font-size: 0.9rem; }
        .weather { display: flex; align-items: center; gap: 0.3rem; }
        .weather img { width: 48px; height: 48px; }
        .weather svg.icon { flex: none; }
        .on-this-day h2 { font-size: 1.2rem; margin: 0.5rem 0; padding-bottom: 0.2rem; border-bottom: 2px solid #f5b400; }
        .temperature { font-weight: 600; }
        .text h3 { margin: 0; font-size: 1.05rem; }
        .place, .lane { margin: 0; color: var(--soft); font-size: 0.9rem; }
        .lane { font-style: italic; }
        .remedy { margin: 0; color: var(--soft); font-size: 0.8rem; }
        .excerpt { margin: 0.3rem 0 0; }
        footer { margin-top: 2rem; color: var(--soft); font-size: 0.8rem; }
        @media (max-width: 40rem) { .entry { grid-template-columns: 1fr; } }
        @media print {
          body { background: #fff; max-width: none; padding: 0; font-size: 11pt; }
          figure.chart, .entry { border-color: #bbb; }
          .month { break-inside: auto; }
          .month h2 { break-after: avoid; }
        }
        """
}

/// Where a diary's chart breaks: between two entries much further apart than its entries usually are (more than
/// eight times the median interval, and at least a month), so that a 2019 entry's rain does not shade 2019–2022.
struct ChartGaps {
    /// The median time between consecutive entries.
    let usualInterval: Double
    /// The indexes of the entries that start a run after a gap.
    let gaps: [Int]

    init(_ dates: [Date]) {
        let intervals = zip(dates.dropFirst(), dates).map { $0.timeIntervalSince($1) }
        let sorted = intervals.sorted()
        self.usualInterval = sorted.isEmpty ? 86_400 : max(sorted[sorted.count / 2], 3600)
        let threshold = max(8 * self.usualInterval, 31 * 86_400)
        self.gaps = intervals.enumerated().filter { $0.element > threshold }.map { $0.offset + 1 }
    }

    func isGap(before index: Int) -> Bool { self.gaps.contains(index) }

    /// The runs of entries between gaps, as index ranges.
    func runs(count: Int) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start = 0
        for gap in self.gaps {
            runs.append(start..<gap)
            start = gap
        }
        if start < count { runs.append(start..<count) }
        return runs
    }
}
