import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

/// No weather that is not the entry's own, decided from bytes alone: a template is never stamped, a block
/// weathertag wrote for another entry is replaced by the entry's own weather, one of another time it did not write
/// is left alone, and one whose time agrees is kept, wherever else it was written. No files, an injected clock.
@Suite("no weather that is not the entry's own")
struct EntrysOwnWeatherTests {
    /// 2026-12-07T10:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_796_637_600)
    /// 2025-11-03T10:41:00Z: when a template was stamped.
    static let templateStamped = Date(timeIntervalSince1970: 1_762_166_460)

    /// The block weathertag writes for weather observed at `time` (`kind`), in `format`.
    static func block(
        at time: Date, kind: WeatherTag.Kind = .current, format: StampFormat = .block,
        fields: [StampField] = StampField.all
    ) -> [String] {
        var weather = Fixtures.weather
        weather.observedAt = time
        weather.utcOffset = 3600
        let tag = WeatherTag(weather: weather, position: Fixtures.position, iconFile: nil, fetchedAt: time, kind: kind)
        return tag.stampLines(fields: fields, format: format)
    }

    static func text(_ front: [String], _ body: String = "Today.\n") -> String {
        "---\n" + front.joined(separator: "\n") + "\n---\n" + body
    }

    static let ownership = BlockOwnership(backdatedAfter: 10_800, timeZone: .utc)

    static func decide(
        _ text: String, name: String, modified: Date = Self.now, lines: [String]? = nil, history: Bool = true,
        backdating: Bool = true, remembered: [String]? = nil, template: TemplateSign? = nil,
        provenance: BlockProvenance = .unknown
    ) -> StampDecision {
        StampDecision.decide(
            Array(text.utf8), name: name, modified: modified, lines: lines,
            backdating: backdating
                ? BackdatingPolicy(timeZone: .utc, asksHistory: history, now: { Self.now }) : nil,
            known: StampDecision.Known(
                remembered: { remembered }, template: template, ownership: Self.ownership,
                provenance: { _ in provenance }))
    }

    // MARK: Templates

    @Test func templatesAreFoundByTheirPlaceholders() throws {
        let cases: [(String, String?)] = [
            ("# <% tp.file.title %>\n", "<% tp.file.title %>"),
            ("---\ndate: <% tp.date.now(\"YYYY-MM-DD\") %>\n---\n", #"<% tp.date.now("YYYY-MM-DD") %>"#),
            ("<%*\nconst x = 1\n%>\ntext\n", "<%* const x = 1 %>"),
            ("# {{date}}\n", "{{date}}"), ("{{date:YYYY-MM-DD}} and {{time:HH:mm}}\n", "{{date:YYYY-MM-DD}}"),
            ("## {{title}}\n", "{{title}}"), ("{{time}}\n", "{{time}}"),
            // Examples in fenced code, other braces, a lone `<%`: no template.
            ("```\n<% tp.file.title %>\n{{date}}\n```\nwritten\n", nil), ("~~~~\n{{title}}\n~~~~\n", nil),
            ("{{dates}} {{ date }} {{weather}} {{date:}\n", nil), ("growth <%5 this year\n", nil),
            ("Kept on 2026-12-07, as {{title}} says nothing.\n```js\n```\n", "{{title}}"),
        ]
        for (text, expected) in cases {
            #expect(TemplatePlaceholders.first(in: Array(text.utf8)) == expected, "\(text)")
        }
        // The recorded templates are templates; the notes made from them and a README's example are not.
        let vaults = Fixtures.repositoryRoot + "/Tests/WeathertagCoreTests/Recorded/Vaults/"
        for (file, isTemplate) in [
            ("journal-templater/Templates/Daily.md", true), ("periodic-sample/Templates/Daily.md", true),
            ("journals-plugin/Templates/Daily Note Template.md", true),
            ("journal-templater/Journal/2022/W28/2022-07-12.md", false),
            ("periodic-sample/Periodic/Daily/2022-01-03.md", false), ("periodic-sample/README.md", false),
        ] {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: vaults + file)))
            #expect((TemplatePlaceholders.first(in: bytes) != nil) == isTemplate, "\(file)")
        }
        // A long unclosed tag or brace costs one pass, not one per brace.
        let hostile = Array(String(repeating: "<% {{date:", count: 200_000).utf8)
        #expect(TemplatePlaceholders.first(in: hostile) == nil)
    }

    @Test func aTemplateIsNeverStampedWhateverItHolds() {
        let stamped = Self.block(at: Self.templateStamped)
        let template = Self.text(["title: <% tp.file.title %>"] + stamped)
        // By its placeholder, with or without weather to stamp with, with a block weathertag wrote there.
        for lines in [nil, Self.block(at: Self.now)] {
            let decision = Self.decide(
                template, name: "daily.md", lines: lines, provenance: .writtenHere(at: Self.templateStamped))
            guard case .leftAlone(.template(.placeholder("<% tp.file.title %>"), .written(let at))) = decision else {
                Issue.record("\(decision)")
                continue
            }
            #expect(at == Self.templateStamped)
        }
        // By the vault's settings, without a placeholder; a block weathertag did not write; none at all.
        let folder = TemplateSign.folder(VaultLayout.Place("Templates", setting: "Templates, .obsidian/templates.json"))
        #expect(
            Self.decide(Self.text(stamped), name: "Plain.md", lines: Self.block(at: Self.now), template: folder)
                == .leftAlone(.template(folder, .unknown)))
        #expect(
            Self.decide("# Plain template\n", name: "Plain.md", lines: Self.block(at: Self.now), template: folder)
                == .leftAlone(.template(folder, .none)))
        // Even replacing on purpose (`stamp --fresh`).
        let fresh = StampDecision.decide(
            Array(template.utf8), name: "daily.md", modified: Self.now, lines: Self.block(at: Self.now),
            replacing: true)
        guard case .leftAlone(.template) = fresh else {
            Issue.record("\(fresh)")
            return
        }
    }

    // MARK: Blocks of another entry, of another time

    /// Today's daily note made from a template an older version stamped: the template's block is replaced by
    /// today's weather, every byte of the author's kept; with no weather yet it waits for it.
    @Test func aTemplatesBlockInTodaysNoteIsReplacedByTodaysWeather() throws {
        for format in StampFormat.allCases {
            let inherited = Self.block(at: Self.templateStamped, format: format)
            let today = Self.block(at: Self.now.addingTimeInterval(-300), format: format)
            let note = Self.text(["tags: [daily]"] + inherited, "# Monday\n\nRain again.\n")
            let copied = BlockProvenance.writtenInto("Templates/Daily.md", at: Self.templateStamped)
            let decision = Self.decide(note, name: "2026-12-07.md", lines: today, provenance: copied)
            guard case .write(let bytes, let block, false) = decision else {
                Issue.record("\(format): \(decision)")
                continue
            }
            #expect(block == today)
            let written = String(decoding: bytes, as: UTF8.self)
            #expect(written == Self.text(["tags: [daily]"] + today, "# Monday\n\nRain again.\n"), "\(format)")
            // No weather yet: it waits, nothing written; the block it holds is never taken for its own.
            #expect(Self.decide(note, name: "2026-12-07.md", lines: nil, provenance: copied) == .needsWeather)
        }
    }

    /// Last week's note copied to start today's: replaced. A copy of a back-dated entry's name asks history for its
    /// own hour; with that history's block it is replaced by it.
    @Test func aCopiedNoteGetsItsOwnWeatherCurrentOrOfItsHour() {
        let lastWeek = Self.block(at: Self.now.addingTimeInterval(-7 * 86_400))
        let copied = BlockProvenance.writtenInto("2026/11/2026-11-30.md", at: Self.now.addingTimeInterval(-7 * 86_400))
        let note = Self.text(lastWeek)
        guard
            case .write = Self.decide(note, name: "2026-12-07.md", lines: Self.block(at: Self.now), provenance: copied)
        else {
            Issue.record("today's copy not replaced")
            return
        }
        // Named for three days ago: the weather of its own day, from history.
        guard case .wantsHistory(let request) = Self.decide(note, name: "2026-12-04.md", provenance: copied) else {
            Issue.record("not asked of history")
            return
        }
        #expect(request.time.localDay == "2026-12-04")
        // The history batch's block for its hour (no policy asked then): written in its place.
        let history = Self.block(at: request.moment, kind: .historical)
        let stamped = Self.decide(note, name: "2026-12-04.md", lines: history, backdating: false, provenance: copied)
        guard case .write(_, let block, false) = stamped else {
            Issue.record("\(stamped)")
            return
        }
        #expect(block == history)
    }

    /// A block of another time that weathertag did not write elsewhere may be the author's own: never rewritten,
    /// in a lane of its own. One whose time agrees with the entry's is its own, wherever else it was written.
    @Test func aBlockOfAnotherTimeIsLeftAloneAndOneOfItsTimeIsKept() {
        let lastWeek = Self.block(at: Self.now.addingTimeInterval(-7 * 86_400))
        let note = Self.text(lastWeek)
        let decision = Self.decide(note, name: "2026-12-07.md", lines: Self.block(at: Self.now))
        guard case .leftAlone(.anotherTime(let another)) = decision else {
            Issue.record("\(decision)")
            return
        }
        #expect(another.blockDay == "2026-11-30" && another.entry.localDay == "2026-12-07")
        #expect(LaneState.of(.anotherTime(another)).lane == .otherTime)
        // A same-day copy ("2026-12-07 1.md"), an entry stamped in the same ten minutes as another: kept.
        let today = Self.block(at: Self.now.addingTimeInterval(-3 * 3600))
        let sameDay = BlockProvenance.writtenInto("2026-12-07.md", at: Self.now)
        #expect(
            Self.decide(Self.text(today), name: "2026-12-07 1.md", provenance: sameDay)
                == .alreadyStamped(block: today))
        // Its own: the memory's block for it (byte for byte, or the same properties in another order) is never
        // judged again; nor is one weathertag wrote there, or found there, whatever its time.
        #expect(Self.decide(note, name: "2026-12-07.md", remembered: lastWeek) == .alreadyStamped(block: lastWeek))
        let properties = Self.block(at: Self.now.addingTimeInterval(-7 * 86_400), format: .properties)
        let rewritten = Self.text(properties.reversed())
        #expect(
            Self.decide(rewritten, name: "2026-12-07.md", remembered: properties)
                == .alreadyStamped(block: properties.reversed()))
        for here in [BlockProvenance.writtenHere(at: nil), .foundHere] {
            #expect(Self.decide(note, name: "2026-12-07.md", provenance: here) == .alreadyStamped(block: lastWeek))
        }
        // An entry dated only by its arrival (its modification time) is not judged by it alone: a week-old stamp of
        // an entry edited today is its own; a copy weathertag knows of is not.
        #expect(Self.decide(note, name: "note.md") == .alreadyStamped(block: lastWeek))
        guard
            case .write = Self.decide(
                note, name: "note.md", lines: Self.block(at: Self.now),
                provenance: .writtenInto("other.md", at: Self.now.addingTimeInterval(-7 * 86_400)))
        else {
            Issue.record("an arrival with a copied block not replaced")
            return
        }
    }

    @Test func whatContradictsAnEntrysTime() {
        let policy = BlockOwnership(backdatedAfter: 10_800, timeZone: .utc)
        let written = Date(timeIntervalSince1970: 1_796_637_600)  // 10:00 UTC
        let instant = EntryTime(date: written, dayOnly: false, source: .frontMatter(key: "date"), timeZone: .utc)
        let hour: TimeInterval = 3600
        // Current weather: from an hour before the entry's time to an hour past the longest an entry waits for it.
        for (offset, contradicts) in [
            (-hour - 60, true), (-hour + 60, false), (3 * hour, false),
            (4 * hour - 60, false), (4 * hour + 60, true),
        ] as [(TimeInterval, Bool)] {
            #expect(
                policy.contradicts(written + offset, day: nil, kind: .current, entry: instant) == contradicts,
                "\(offset)")
        }
        // The weather of its own hour: an hour each way.
        #expect(!policy.contradicts(written + 3000, day: nil, kind: .historical, entry: instant))
        #expect(policy.contradicts(written + 3 * hour, day: nil, kind: .historical, entry: instant))
        // A day: its day on the block's own clock, or within the day on the entry's (an hour's slack).
        let day = EntryTime(date: written - 10 * hour, dayOnly: true, source: .fileName, timeZone: .utc)
        #expect(!policy.contradicts(written + 13 * hour + 1800, day: "2026-12-07", kind: .current, entry: day))
        #expect(!policy.contradicts(written + 14 * hour + 1800, day: "2026-12-08", kind: .current, entry: day))
        #expect(policy.contradicts(written + 16 * hour, day: "2026-12-08", kind: .current, entry: day))
        #expect(policy.contradicts(written - 7 * 24 * hour, day: "2026-11-30", kind: .current, entry: day))
    }

    /// What a block says of itself, in both forms, and a fingerprint that does not change with an editor's order and
    /// quoting but does with its weather.
    @Test func aBlockSaysWhenItsWeatherWas() {
        let time = Self.templateStamped
        for format in StampFormat.allCases {
            let facts = StampFacts(block: Self.block(at: time, format: format))
            #expect(facts.observed == time && facts.kind == .current && facts.localDay == "2025-11-03", "\(format)")
            let history = StampFacts(block: Self.block(at: time, kind: .historical, format: format))
            #expect(history.kind == .historical && history.fingerprint != facts.fingerprint)
        }
        let properties = Self.block(at: time, format: .properties)
        let requoted = properties.reversed().map { line -> String in
            guard line.hasPrefix("weather_utc_offset") else { return line }
            return "weather_utc_offset: '+01:00'"
        }
        #expect(StampFacts.fingerprint(Array(requoted)) == StampFacts.fingerprint(properties))
        var warmer = properties
        warmer[warmer.firstIndex { $0.hasPrefix("weather_temperature") } ?? 0] = "weather_temperature: 30"
        #expect(StampFacts.fingerprint(warmer) != StampFacts.fingerprint(properties))
        // Without a time (`stamp.fields` without one): none, and the memory's word decides.
        let untimed = Self.block(at: time, fields: [.condition, .temperature])
        #expect(StampFacts(block: untimed).observed == nil)
        let verdict = Self.ownership.judge(
            StampFacts(block: untimed),
            entry: EntryTime(date: Self.now, dayOnly: false, source: .fileName, timeZone: .utc)
        ) { .writtenInto("Templates/Daily.md", at: time) }
        #expect(verdict == .copied(from: "Templates/Daily.md"))
    }

    /// `stamp --remove`: the stamp taken out and nothing else; the front matter weathertag made around it too.
    @Test func theStampTakenOutAndNothingElse() {
        for format in StampFormat.allCases {
            let block = Self.block(at: Self.templateStamped, format: format)
            let author = "---\ntitle: <% tp.file.title %>\ntags:\n  - daily\n---\n# {{date}}\n"
            let stamped = FrontMatterStamper.stamp(Array(author.utf8), lines: block)
            guard case .stamped(let bytes) = stamped else {
                Issue.record("\(stamped)")
                continue
            }
            #expect(FrontMatterStamper.removingStamp(bytes).map { String(decoding: $0, as: UTF8.self) } == author)
            // A file weathertag gave a front matter: as it was.
            guard case .stamped(let bare) = FrontMatterStamper.stamp(Array("# {{title}}\n".utf8), lines: block) else {
                continue
            }
            #expect(FrontMatterStamper.removingStamp(bare) == Array("# {{title}}\n".utf8))
        }
        #expect(FrontMatterStamper.removingStamp(Array("---\ntitle: x\n---\nno stamp\n".utf8)) == nil)
        #expect(FrontMatterStamper.removingStamp(Array("no front matter\n".utf8)) == nil)
        // CRLF and a byte-order mark stay.
        let windows = Array("\u{FEFF}---\r\ntitle: x\r\nweather:\r\n  condition: Rain\r\n---\r\nbody\r\n".utf8)
        #expect(
            FrontMatterStamper.removingStamp(windows)
                == Array("\u{FEFF}---\r\ntitle: x\r\n---\r\nbody\r\n".utf8))
    }
}
