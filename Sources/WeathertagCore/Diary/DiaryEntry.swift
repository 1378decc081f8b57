import FoundationEssentials

/// What the diary index keeps of one entry, read from the file's bytes: its title, its time, its first lines, its
/// text for full-text search, and the weather its block holds (weathertag's, or an older one written by hand or by
/// another tool: whatever of the known keys it has).
package struct DiaryEntry: Sendable, Equatable {
    package var title: String
    /// The first lines of the text after the title, at most `excerptLength` characters.
    package var excerpt: String
    /// The text after the front matter, for search (at most `maximumBodyBytes`).
    package var body: String
    package var time: EntryTime
    package var weather: DiaryWeather?
    /// The front matter's `mood` (`DiaryMood`), when it has one that reads.
    package var mood: Double?
    /// Where it says it was written (`EntryLocation`), as its file says it.
    package var location: EntryLocation?
    /// The pictures its text shows, as their links are written (`EntryPhotos`).
    package var photos: [String] = []

    package static let excerptLength = 280
    /// A diary entry is text a person wrote; the index keeps its first 256 KiB.
    package static let maximumBodyBytes = 256 * 1024

    package init(
        title: String, excerpt: String, body: String, time: EntryTime, weather: DiaryWeather?, mood: Double? = nil,
        location: EntryLocation? = nil, photos: [String] = []
    ) {
        self.mood = mood
        self.location = location
        self.photos = photos
        self.title = title
        self.excerpt = excerpt
        self.body = body
        self.time = time
        self.weather = weather
    }

    /// Reads an entry: the title is the front matter's `title`, else the first Markdown heading, else the first
    /// non-empty line, trimmed (else the file's name without its extension); the time is `EntryTime`'s.
    /// A front matter that is not valid YAML gives no title or weather from it, and the text is still indexed.
    /// `composed`: the front matter as the stamper composed it from these bytes, used when it is the same text.
    ///
    /// `weatherIsItsOwn` false: the weather block it holds is not its weather (a template's, another time's:
    /// `LaneReason.template`, `.otherTime`), and the index keeps neither its weather nor the place it names.
    package static func read(
        _ bytes: [UInt8], fileName: String, modified: Date, timeZone: Zone = .current,
        composed: ComposedFrontMatter? = nil, weatherIsItsOwn: Bool = true
    )
        -> DiaryEntry
    {
        let text = String(decoding: bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes[3...] : bytes[...], as: UTF8.self)
        let (frontMatter, body, lines) = Self.split(text)
        var fields: [String: String] = [:]
        var title: String?
        var weather: DiaryWeather?
        var mood: Double?
        var location: EntryLocation?
        if let frontMatter,
            let mapping = composed.flatMap({ $0.yaml == frontMatter ? $0.mapping : nil })
                ?? (try? YAMLNode.compose(frontMatter))??.mapping
        {
            var block: YAMLNode.Mapping?
            for (key, value) in mapping {
                guard let key = key.string else { continue }
                if let scalar = value.scalar { fields[key] = scalar.string }
                switch key {
                case "title": title = value.scalar.map { Self.oneLine($0.string) }.flatMap { $0.isEmpty ? nil : $0 }
                case "weather": block = value.mapping
                case "mood": mood = value.scalar.flatMap { DiaryMood.value($0.string) }
                default: break
                }
            }
            // The stamp as a block, or as Obsidian's properties (`stamp.format: properties`) read as one.
            if block == nil { block = StampProperties.weatherMapping(in: mapping) }
            if !weatherIsItsOwn { block = nil }
            weather = block.map(DiaryWeather.init(mapping:))
            location = EntryLocation.read(frontMatter: mapping, weather: block)
        }
        let heading = lines.lazy.compactMap(Self.heading).first
        // The text's own title, when the front matter gives none (only then: a rebuild of the index read every
        // entry's first line and made it plain words for nothing, a tenth of its instructions).
        let textTitle = title == nil ? heading ?? lines.lazy.map { Self.oneLine($0) }.first { !$0.isEmpty } : nil
        // A title the text gives is shown as words, a front matter's as it was written.
        let shown = textTitle.map { MarkdownText.plain($0.prefix(characters: 800)) }.flatMap { $0.isEmpty ? nil : $0 }
        let chosen = title ?? shown ?? Self.stem(fileName)
        let time = EntryTime.of(fields: fields, fileName: fileName, modified: modified, timeZone: timeZone)
        return DiaryEntry(
            title: String(chosen.prefix(characters: 200)),
            excerpt: Self.excerpt(lines, skipping: title == nil ? textTitle : heading),
            body: String(decoding: body.utf8.prefix(Self.maximumBodyBytes), as: UTF8.self),
            time: time,
            weather: weather,
            mood: mood,
            location: location,
            photos: EntryPhotos.links(in: body))
    }

    /// The front matter's YAML (nil without one), the text after it, and that text's lines (as
    /// `split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)` gives them).
    static func split(_ text: String) -> (frontMatter: String?, body: Substring, lines: ArraySlice<Substring>) {
        let whole = text[...]
        let lines = whole.lines()
        guard lines.count > 1, lines[0].trimmingWhitespace() == "---",
            let closing = lines.indices.dropFirst().first(where: { index in
                let line = lines[index]
                // Most lines are neither: only one whose first byte after ASCII spaces is `-`, `.` or not ASCII
                // (Unicode's own spaces) is trimmed and compared.
                let first = line.utf8.first { $0 != 0x20 && !(0x09...0x0D).contains($0) }
                guard let first, first == UInt8(ascii: "-") || first == UInt8(ascii: ".") || first >= 0x80 else {
                    return false
                }
                return ["---", "..."].contains(line.trimmingWhitespace())
            })
        else { return (nil, whole, lines[...]) }
        let yaml = whole[lines[1].startIndex..<lines[closing].startIndex]
        // The text starts after the closing line's break (or at the end, when it has none).
        let body = closing + 1 < lines.count ? whole[lines[closing + 1].startIndex...] : whole[whole.endIndex...]
        return (String(yaml), body, closing + 1 < lines.count ? lines[(closing + 1)...] : [""])
    }

    /// `# Title` or `## Title #` → `Title`.
    private static func heading(_ line: Substring) -> String? {
        // Most lines are not headings: their first byte after spaces tells.
        guard line.utf8.first(where: { $0 != 0x20 }) == UInt8(ascii: "#") else { return nil }
        let trimmed = line.drop { $0 == " " }
        guard trimmed.first == "#" else { return nil }
        let hashes = trimmed.prefix { $0 == "#" }
        guard hashes.count <= 6 else { return nil }
        let rest = trimmed.dropFirst(hashes.count)
        guard rest.isEmpty || rest.first == " " || rest.first == "\t" else { return nil }
        var title = rest.trimmingWhitespace()
        while title.hasSuffix("#") { title.removeLast() }
        title = Self.oneLine(title)
        return title.isEmpty ? nil : title
    }

    private static func oneLine(_ text: some StringProtocol) -> String {
        text.collapsingWhitespace()
    }

    private static func stem(_ fileName: String) -> String {
        let name = Paths.fileName(fileName)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// The first lines of text after the title line, as plain words (`MarkdownText`), joined by spaces. Each line
    /// is read up to four excerpts' length: an excerpt never needs more.
    private static func excerpt(_ lines: ArraySlice<Substring>, skipping title: String?) -> String {
        var parts: [String] = []
        var length = 0
        var skipped = title == nil
        var markdown = MarkdownText()
        for line in lines {
            let bounded = line.prefix(characters: 4 * Self.excerptLength)
            if !skipped, let title, Self.heading(bounded) == title || bounded.collapses(to: title) {
                skipped = true
                _ = markdown.plain(bounded)
                continue
            }
            let text = markdown.plain(bounded)
            guard !text.isEmpty else { continue }
            parts.append(text)
            length += text.characterCount + 1
            if length >= Self.excerptLength { break }
        }
        let joined = parts.joined(separator: " ")
        guard joined.characterCount > Self.excerptLength else { return joined }
        return String(joined.prefix(characters: Self.excerptLength - 1)) + "…"
    }
}

/// The weather fields the index keeps and filters on, as the entry's block holds them (and as `GET /v1/entries`
/// gives them).
package struct DiaryWeather: Codable, Sendable, Equatable {
    package var condition: String?
    package var description: String?
    package var icon: String?
    package var temperature: Double?
    package var units: String?
    package var place: String?
    package var region: String?
    package var country: String?
    package var observedAt: String?
    package var kind: String?
    package var aqi: Int?

    package init(
        condition: String? = nil, description: String? = nil, icon: String? = nil, temperature: Double? = nil,
        units: String? = nil, place: String? = nil, region: String? = nil, country: String? = nil,
        observedAt: String? = nil, kind: String? = nil, aqi: Int? = nil
    ) {
        self.condition = condition
        self.description = description
        self.icon = icon
        self.temperature = temperature
        self.units = units
        self.place = place
        self.region = region
        self.country = country
        self.observedAt = observedAt
        self.kind = kind
        self.aqi = aqi
    }

    enum CodingKeys: String, CodingKey {
        case condition, description, icon, temperature, units, place, region, country
        case observedAt = "observed_at"
        case kind, aqi
    }

    init(mapping: YAMLNode.Mapping) {
        func text(_ key: String) -> String? {
            guard let value = mapping[key]?.scalar?.string, !value.isEmpty else { return nil }
            return value
        }
        // weathertag's keys first; `temp`, `main` and `city` as other tools and older notes write them.
        self.init(
            condition: text("condition") ?? text("main"),
            description: text("description"),
            icon: text("icon"),
            temperature: (text("temperature") ?? text("temp")).flatMap(Double.init),
            units: text("units"),
            place: text("place") ?? text("city"),
            region: text("region"),
            country: text("country"),
            observedAt: text("observed_at"),
            kind: text("kind"),
            aqi: mapping["air"]?.mapping?["aqi"]?.scalar.flatMap { Int($0.string) })
    }
}
