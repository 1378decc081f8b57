import FoundationEssentials
import Glibc
import Testing
import WeathertagCore
import WeathertagTestSupport

@testable import WeathertagDaemon

/// The shipped catalogs (po/LL.po) as the real msgfmt compiles them, read by weathertag as GNU gettext reads them,
/// and every view in every language they speak.
@Suite("every view in the reader's language")
struct TranslationsTests {
    static let languages = ["ko", "ja", "zh_CN", "zh_TW", "de", "fr", "es"]

    /// The shipped catalogs compiled by msgfmt into a locale folder of their own.
    static let compiled: Result<String, any Error> = Result {
        let directory = try TemporaryDirectory()
        for language in Self.languages {
            let folder = directory.file("\(language)/LC_MESSAGES")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let status = try runSync([
                "msgfmt", "--check", "-o", folder + "/weathertag.mo", Fixtures.repositoryRoot + "/po/\(language).po",
            ])
            guard status == 0 else { throw TranslationsError.msgfmt(language) }
        }
        return directory.path
    }

    enum TranslationsError: Error { case msgfmt(String) }

    static func words(_ language: String) throws -> Messages {
        let words = Translations.messages([language], directory: try Self.compiled.get())
        #expect(!words.isEnglish && words.language == language)
        return words
    }

    /// Messages of every kind (names to fill, plurals at counts that tell the forms apart, contexts), each said by
    /// weathertag and by GNU gettext's own `gettext` and `ngettext` from the same `.mo` (`LANGUAGE` honoured under
    /// `C.UTF-8`): the same words.
    @Test(arguments: Self.languages)
    func weathertagReadsACatalogAsGNUGettextDoes(language: String) async throws {
        let directory = try Self.compiled.get()
        let words = try Self.words(language)
        let environment = [
            "TEXTDOMAINDIR": directory, "LANGUAGE": language, "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin",
        ]
        let scratch = try TemporaryDirectory()
        func gnu(_ argv: [String]) async throws -> String {
            let program = try #require(which(argv[0]), "GNU gettext's \(argv[0]) (gettext-base)")
            let (status, output, _) = try await ChildProcess.run(
                [program] + argv.dropFirst(), environment: environment, in: scratch)
            #expect(status == 0)
            return output
        }
        let plain: [(String, String?)] = [
            (words.tr("It is stamped."), try await gnu(["gettext", "-d", "weathertag", "It is stamped."])),
            (
                words.tr("Rain", context: "condition"),
                try await gnu(["gettext", "-d", "weathertag", "-c", "condition", "Rain"])
            ),
            (
                words.tr("waiting", context: "lane"),
                try await gnu(["gettext", "-d", "weathertag", "-c", "lane", "waiting"])
            ),
            (
                words.tr("Nothing: it is stamped once no write has reached it for inbox.settle_seconds."),
                try await gnu([
                    "gettext", "-d", "weathertag",
                    "Nothing: it is stamped once no write has reached it for inbox.settle_seconds.",
                ])
            ),
        ]
        for (ours, theirs) in plain { #expect(ours == theirs, "\(language)") }
        for count in [0, 1, 2, 5, 21] {
            let theirs = try await gnu(["ngettext", "-d", "weathertag", "{count} entry", "{count} entries", "\(count)"])
            #expect(
                words.tr("{count} entry", plural: "{count} entries", count: count)
                    == theirs.replacing("{count}", with: String(count)), "\(language) \(count)")
        }
        // A message with a name, filled: gettext says the template.
        let template = try await gnu(["gettext", "-d", "weathertag", "It is left as it is: {detail}."])
        #expect(
            words.tr("It is left as it is: {detail}.", ["detail": "X"]) == template.replacing("{detail}", with: "X"))
        #expect(template != "It is left as it is: {detail}.")
    }

    /// Every lane's every reason, with and without its detail, in every shipped language: a sentence and a remedy
    /// of its own, not English; Korean, Japanese and Chinese in their scripts.
    @Test(arguments: Self.languages)
    func everyReasonIsSaidInEveryLanguage(language: String) throws {
        let words = try Self.words(language)
        for reason in LaneReason.allCases {
            for detail in [nil, Said(verbatim: "DETAIL")] as [Said?] {
                let state = LaneState(reason.lane, reason, detail: detail)
                let (sentence, remedy) = (state.sentence(words), state.remedy(words))
                #expect(sentence != state.sentence(.english), "\(language) \(reason) sentence")
                #expect(remedy != state.remedy(.english), "\(language) \(reason) remedy")
                if state.sentence(.english).contains("DETAIL") {
                    #expect(sentence.contains("DETAIL"), "\(language) \(reason): \(sentence)")
                }
                if ["ko", "ja", "zh_CN", "zh_TW"].contains(language) {
                    #expect(sentence.unicodeScalars.contains { $0.value >= 0x3000 }, "\(language) \(reason)")
                    #expect(remedy.unicodeScalars.contains { $0.value >= 0x3000 }, "\(language) \(reason)")
                }
            }
            #expect(
                EntryDocument.laneName(reason.lane.rawValue, words)
                    != EntryDocument.laneName(reason.lane.rawValue, .english))
        }
    }

    /// What exactly, in every shipped language: a reason's detail is said in the language, its data as it is.
    @Test(arguments: Self.languages)
    func everyDetailIsSaidInEveryLanguage(language: String) throws {
        let words = try Self.words(language)
        let time = EntryTime(
            date: Date(timeIntervalSince1970: 1_735_689_600), dayOnly: false, source: .frontMatter(key: "date"),
            timeZone: .utc)
        let reasons: [LeftAloneReason] = [
            .readOnly, .tooLarge(limit: 1_048_576), .content(.frontMatterOverLimit(.depth, line: 70)),
            .unreadableTime(UnreadableTime(key: "date", value: "42")), .backdated(time, .historyDisabled),
            .backdated(time, .elsewhere(Elsewhere(entryOffset: 7200, machineOffset: 32400, place: "Seoul"))),
            .template(.placeholder("{{date}}"), .written(at: Date(timeIntervalSince1970: 1_735_689_600))),
            .anotherTime(AnotherTime(block: Date(timeIntervalSince1970: 1_700_000_000), blockDay: nil, entry: time)),
        ]
        for reason in reasons {
            let state = LaneState.of(reason)
            #expect(state.detail?.said(words) != state.detail?.english, "\(language) \(reason)")
            #expect(state.sentence(words).contains(state.detail?.said(words) ?? "-"), "\(language) \(reason)")
            // (Settings, commands, plugins and paths stay as they are written: `inbox.max_bytes`, `track`.)
            if ["ko", "ja", "zh_CN", "zh_TW"].contains(language) {
                let detail = state.detail?.said(words) ?? ""
                #expect(detail.unicodeScalars.contains { $0.value >= 0x3000 }, "\(language) \(reason): \(detail)")
            }
        }
    }

    // MARK: The pseudo-language over whole views

    /// A diary whose own words are Korean (titles, places, the weather's description), so that what remains
    /// outside the pseudo-language's marks is words no catalog reached.
    static let entries: [EntryDocument] = [
        ("seoul.md", "2025-07-01T14:00:00+09:00", "한강 산책", "서울", 31.5, "Rain", "stamped", "stamped", 37.56, 126.97),
        ("busan.md", "2025-07-09T09:00:00+09:00", "해운대", "부산", 27.0, "Clear", "stamped", "found", 35.16, 129.16),
        ("jeju.md", "2025-01-02T20:00:00+09:00", "귤 농장", "제주", 4.0, "Snow", "stamped", "restored", 33.5, 126.53),
        ("later.md", "2025-08-01T08:00:00+09:00", "아침", "서울", 25.0, "Clouds", "waiting", "settling", 37.56, 126.97),
    ].map { path, time, title, place, temperature, condition, lane, reason, latitude, longitude in
        EntryDocument(
            path: path, title: title, time: time, dayOnly: false, timeSource: "front_matter:date", lane: lane,
            reason: reason, detail: nil, why: "", excerpt: "오늘은 " + title,
            weather: DiaryWeather(
                condition: condition, description: "날씨 " + place, temperature: temperature, units: "metric",
                place: place),
            mood: 4, location: EntryLocation(latitude: latitude, longitude: longitude))
    }

    /// The diary's own text, and data any language shows as it is.
    static let data = Self.entries.flatMap { [$0.path, $0.title, $0.excerpt] } + ["GSHHG", "LGPL", "weathertag"]

    /// The text a reader sees in HTML or SVG: text between tags, `aria-label`s, `alt`s and `<title>`s; style blocks
    /// and the markup left out, entities read.
    static func visibleText(_ markup: String) -> String {
        var text = ""
        var rest = Substring(markup)
        while let open = rest.firstIndex(of: "<") {
            text += rest[..<open] + " "
            guard let close = rest[open...].firstIndex(of: ">") else { break }
            let tag = rest[open...close]
            if tag.hasPrefix("<style"), let end = rest.firstRange(of: "</style>") {
                rest = rest[end.upperBound...]
                continue
            }
            for attribute in ["aria-label=\"", "alt=\""] {
                if let start = tag.firstRange(of: attribute), let end = tag[start.upperBound...].firstIndex(of: "\"") {
                    text += tag[start.upperBound..<end] + " "
                }
            }
            rest = rest[rest.index(after: close)...]
        }
        text += rest
        for (entity, character) in [("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'")] {
            text = text.replacing(entity, with: character)
        }
        return text
    }

    @Test func thePageAndTheMapAreAllMarkedInThePseudoLanguage() throws {
        let formatting = DiaryFormatting(locale: DateLocale(identifier: "ko_KR"), timeZone: .utc, words: .pseudo)
        let page = TimelinePage(
            title: "일기", formatting: formatting, icons: [:], generatedAt: Date(timeIntervalSince1970: 1_780_000_000))
        let map = MapRendering.svg(
            Self.entries, files: MapFiles(coastlines: nil, towns: nil), privacy: PrivacyPolicy(),
            formatting: formatting, links: .cards, standalone: false)
        let html = page.render(Self.entries, onThisDay: [Self.entries[0]], map: map)
        let english = PseudoText.english(in: Self.visibleText(html), data: Self.data)
        #expect(english.isEmpty, "English outside the marks: \(english)")
        // The page says what a Korean page says, in the pseudo-language: its counts, chart and sections.
        #expect(html.contains("⟦Ŵĥéŕé ýöû ŵŕöţé") && html.contains("⟦Öñ ţĥîš ðáý"))
    }

    @Test func theStatisticsAndTheLanesAreAllMarkedInThePseudoLanguage() throws {
        let statistics = DiaryStatistics(Self.entries)
        let text = statistics.text(.pseudo, locale: DateLocale(identifier: "ko_KR"))
        let english = PseudoText.english(in: text, data: Self.data)
        #expect(english.isEmpty, "English outside the marks: \(english)\n\(text)")
        let lanes = LanesDocument(
            waiting: .init(count: 1, latest: [Self.entries[3]]),
            stamped: .init(count: 3, latest: Array(Self.entries[0...2])),
            backdated: .init(count: 0, latest: []),
            leftAlone: .init(count: 0, latest: [], stampedTemplates: ["Templates/일기.md"]),
            otherTime: .init(count: 1, latest: []))
        let said = lanes.lines(.pseudo).joined(separator: "\n")
        let left = PseudoText.english(in: said, data: Self.data + ["Templates/일기.md"])
        #expect(left.isEmpty, "English outside the marks: \(left)\n\(said)")
    }
}

/// Runs a program to its end, its output let through; its exit status.
private func runSync(_ argv: [String]) throws -> Int32 {
    var pid = pid_t()
    let arguments = argv.map { strdup($0) } + [nil]
    defer { for argument in arguments { free(argument) } }
    let status = posix_spawnp(&pid, argv[0], nil, nil, arguments, environ)
    guard status == 0 else { throw TranslationsTests.TranslationsError.msgfmt(argv[0]) }
    var exit: Int32 = 0
    while waitpid(pid, &exit, 0) < 0, errno == EINTR {}
    return (exit >> 8) & 0xff
}
