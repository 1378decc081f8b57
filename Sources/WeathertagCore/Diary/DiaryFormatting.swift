import FoundationEssentials

/// How `weathertag entries` shows entries: a table with the date in the reader's locale, or one line per entry
/// from a template.
package struct DiaryFormatting: Sendable {
    package var locale: DateLocale
    package var timeZone: Zone
    /// The words of the reader's language (`Messages`): the sentences of `why` and the lanes' names.
    package var words: Messages

    package init(locale: DateLocale, timeZone: Zone = .current, words: Messages = .english) {
        self.locale = locale
        self.timeZone = timeZone
        self.words = words
    }

    /// The reader's locale for dates, as the C library picks it: `LC_ALL`, else `LC_TIME`, else `LANG`
    /// (`ko_KR.UTF-8` → `ko_KR`); `C`, `POSIX` or nothing → English.
    package static func locale(environment: [String: String]) -> DateLocale {
        let chosen = ["LC_ALL", "LC_TIME", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        guard let chosen else { return DateLocale.english }
        let identifier = String(chosen.split(separator: ".").first ?? "").split(separator: "@").first.map(String.init)
        guard let identifier, !identifier.isEmpty, identifier != "C", identifier != "POSIX" else {
            return DateLocale.english
        }
        return DateLocale(identifier: identifier)
    }

    /// The placeholders of `--format`.
    package static let placeholders: KeyValuePairs<String, String> = [
        "date": "the date (and time) in the reader's locale",
        "time": "RFC 3339",
        "path": "relative to the inbox",
        "title": "the title",
        "icon": "an emoji for the condition",
        "temperature": "the temperature with its unit",
        "condition": "the condition group (Snow, Rain …)",
        "description": "the source's words for it",
        "place": "the place",
        "lane": "waiting, stamped, backdated or left_alone",
        "reason": "why it is in its lane (a code)",
        "why": "the lane and reason in a sentence",
        "remedy": "what would change its lane",
        "excerpt": "the first lines",
    ]

    /// The date an entry was written, in the reader's locale, at the wall-clock time it was written (the offset its
    /// `time` carries), marked with that offset where the reader's clock differs at that moment (`Mar 10, 2021,
    /// 8:25 PM +10:00`); the day alone when only a day is known.
    package func date(_ entry: EntryDocument) -> String {
        guard let date = Date(iso8601WithOffset: entry.time) else { return entry.time }
        let own = Self.utcOffset(ofRFC3339: entry.time) ?? self.timeZone.secondsFromGMT(for: date)
        let shown = self.locale.string(
            date, style: entry.dayOnly ? .day : .dayAndTime, zone: .fixed(secondsFromGMT: own))
        guard !entry.dayOnly, own != self.timeZone.secondsFromGMT(for: date) else { return shown }
        return shown + " " + Self.offsetName(own)
    }

    /// The offset an RFC 3339 time names (`…+10:00` → 36000, `…Z` → 0), in seconds.
    package static func utcOffset(ofRFC3339 text: String) -> Int? {
        if text.hasSuffix("Z") || text.hasSuffix("z") { return 0 }
        let tail = Array(text.utf8.suffix(6))
        guard tail.count == 6, tail[0] == UInt8(ascii: "+") || tail[0] == UInt8(ascii: "-"),
            tail[3] == UInt8(ascii: ":"),
            let hours = Int(String(decoding: tail[1...2], as: UTF8.self)),
            let minutes = Int(String(decoding: tail[4...5], as: UTF8.self)), hours < 24, minutes < 60
        else { return nil }
        return (tail[0] == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
    }

    /// `+10:00`, `-03:30`, `UTC`.
    package static func offsetName(_ seconds: Int) -> String {
        guard seconds != 0 else { return "UTC" }
        let minutes = abs(seconds) / 60
        return (seconds < 0 ? "-" : "+") + String(cFormat: "%02d:%02d", minutes / 60, minutes % 60)
    }

    /// `front_matter:date` → `its front matter's date`.
    package static func timeSource(_ code: String, _ words: Messages = .english) -> String {
        if code.hasPrefix("front_matter:") {
            return words.tr("its front matter's {key}", ["key": String(code.dropFirst("front_matter:".count))])
        }
        switch code {
        case "file_name": return words.tr("its file name")
        case "modification_time": return words.tr("its modification time")
        case "given": return "--at"
        default: return code
        }
    }

    /// The temperature with its unit, as the reader's locale writes it (`12°C`; `12 °C` under `de`).
    package func temperature(_ weather: DiaryWeather?) -> String {
        guard let value = weather?.temperature else { return "" }
        return self.locale.words.temperature(value, units: weather?.units, decimals: 0)
    }

    package func value(_ name: String, of entry: EntryDocument) -> String? {
        switch name {
        case "date": return self.date(entry)
        case "time": return entry.time
        case "path": return entry.path
        case "title": return entry.title
        case "icon": return entry.weather?.icon.map(TagFormatter.emoji(forIcon:)) ?? ""
        case "temperature": return self.temperature(entry.weather)
        case "condition": return entry.weather?.condition ?? ""
        case "description": return entry.weather?.description ?? ""
        case "place": return entry.weather?.place ?? ""
        case "lane": return entry.lane
        case "reason": return entry.reason
        case "why": return entry.why(self.words)
        case "remedy": return entry.remedy(self.words) ?? ""
        case "excerpt": return entry.excerpt
        default: return nil
        }
    }

    /// One line from a template such as `{date} {icon} {title}`; an unknown placeholder is refused before.
    package func line(_ template: String, _ entry: EntryDocument) -> String {
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let name = String(rest[rest.index(after: open)..<close])
            if let value = self.value(name, of: entry) {
                result += value
            } else {
                result += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// The names in `template` that are not placeholders.
    package static func unknownPlaceholders(in template: String) -> [String] {
        var names: [String] = []
        var rest = template[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            let name = String(rest[rest.index(after: open)..<close])
            if !Self.placeholders.contains(where: { $0.key == name }) { names.append(name) }
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    /// A table: date, icon, temperature, place, title; a lane column when `lanes` (entries of several lanes).
    /// An entry that says why it is where it is (`EntryDocument.saysWhy`) has its `why` on a line of its own under
    /// its row, in `why`'s words.
    package func table(_ entries: [EntryDocument], lanes: Bool = false) -> String {
        let rows = entries.map { entry in
            [
                self.date(entry), self.value("icon", of: entry) ?? "", self.temperature(entry.weather),
                entry.weather?.place ?? "", lanes ? self.laneColumn(entry.lane) : nil, entry.title,
            ].compactMap { $0 }
        }
        guard let columns = rows.first?.count else { return "" }
        var widths = Array(repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], Self.width(cell)) }
        }
        return zip(rows, entries).map { row, entry in
            row.enumerated().map { index, cell in
                index == row.count - 1
                    ? cell : cell + String(repeating: " ", count: widths[index] - Self.width(cell))
            }.joined(separator: "  ") + "\n" + (entry.saysWhy ? "    \(entry.why(self.words))\n" : "")
        }.joined()
    }

    /// The lane column: the code in English (as `--format {lane}` gives it), the lane's name in another language.
    private func laneColumn(_ lane: String) -> String {
        self.words.isEnglish ? lane : EntryDocument.laneName(lane, self.words)
    }

    /// Columns on a terminal: East Asian wide letters and emoji take two.
    package static func width(_ text: String) -> Int {
        text.reduce(0) { total, character in
            guard let scalar = character.unicodeScalars.first else { return total }
            let value = scalar.value
            let wide =
                (0x1100...0x115F).contains(value) || (0x2E80...0xA4CF).contains(value)
                || (0xAC00...0xD7A3).contains(value) || (0xF900...0xFAFF).contains(value)
                || (0xFE30...0xFE4F).contains(value) || (0xFF00...0xFF60).contains(value)
                || (0xFFE0...0xFFE6).contains(value) || (0x1F300...0x1FAFF).contains(value)
                || (0x2600...0x27BF).contains(value) && character.unicodeScalars.count > 1
            return total + (wide ? 2 : 1)
        }
    }
}
