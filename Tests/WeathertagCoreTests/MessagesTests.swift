import FoundationEssentials
import Testing
import WeathertagCore
import WeathertagTestSupport

/// The machinery of the reader's words without files: plural rules as gettext reads them, the languages an
/// environment or a setting names, `{name}`s filled, the pseudo-language, and `.mo` bytes as msgfmt lays them out.
@Suite("the reader's words")
struct MessagesTests {
    // MARK: Plural-Forms

    /// Headers as languages' catalogs carry them (the GNU gettext manual's "Plural forms" table, and Weblate's
    /// three-form Spanish), each with the form it gives counts that tell the forms apart.
    static let rules: [(header: String, forms: [Int: Int])] = [
        ("nplurals=1; plural=0;", [0: 0, 1: 0, 2: 0, 101: 0]),
        ("nplurals=2; plural=(n != 1);", [0: 1, 1: 0, 2: 1, 21: 1]),
        ("nplurals=2; plural=(n > 1);", [0: 0, 1: 0, 2: 1, 100: 1]),
        ("nplurals=3; plural=n == 1 ? 0 : n != 0 && n % 1000000 == 0 ? 1 : 2;", [1: 0, 0: 2, 5: 2, 2_000_000: 1]),
        (
            "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);",
            [1: 0, 21: 0, 11: 2, 2: 1, 4: 1, 12: 2, 22: 1, 5: 2, 111: 2, 101: 0]
        ),
        (
            "nplurals=6; plural=(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5);",
            [0: 0, 1: 1, 2: 2, 3: 3, 10: 3, 11: 4, 99: 4, 100: 5, 102: 5, 103: 3]
        ),
        ("nplurals=4; plural=(n%100==1 ? 0 : n%100==2 ? 1 : n%100==3 || n%100==4 ? 2 : 3);", [1: 0, 2: 1, 4: 2, 5: 3]),
        ("nplurals=2; plural=!(n == 1);", [1: 0, 7: 1]),
        ("nplurals=2; plural=n / 0 + n % 0;", [5: 0]),
    ]

    @Test(arguments: Self.rules)
    func aPluralRuleGivesTheFormGettextGives(header: String, forms: [Int: Int]) throws {
        let rule = try PluralRule(header: header)
        for (count, form) in forms { #expect(rule.form(count) == form, "\(header) n=\(count)") }
    }

    /// A form beyond `nplurals` is form 0, as gettext takes it.
    @Test func aFormBeyondTheCountIsTheFirst() throws {
        #expect(try PluralRule(header: "nplurals=2; plural=n;").form(7) == 0)
    }

    @Test(arguments: [
        "plural=(n != 1);", "nplurals=0; plural=0;", "nplurals=2;", "nplurals=2; plural=(n != 1;",
        "nplurals=2; plural=n != 1);", "nplurals=2; plural=n ? 1;", "nplurals=2; plural=n : 1;",
        "nplurals=2; plural=n n;", "nplurals=2; plural=x;", "nplurals=2; plural=n !=;", "nplurals=2; plural=;",
        "nplurals=2; plural=99999999999999999999;",
    ])
    func aBrokenHeaderIsRefused(header: String) {
        #expect(throws: PluralRule.Failure.self) { try PluralRule(header: header) }
    }

    /// Nothing in a header can exhaust the stack: 480 parentheses deep is read without recursion; longer than
    /// 1,024 bytes is refused.
    @Test func deepAndLongHeadersAreBounded() throws {
        let deep =
            "nplurals=2; plural=" + String(repeating: "(", count: 480) + "n != 1" + String(repeating: ")", count: 480)
        #expect(try PluralRule(header: deep).form(2) == 1)
        let long = "nplurals=2; plural=" + String(repeating: "(", count: 600) + "n" + String(repeating: ")", count: 600)
        #expect(throws: PluralRule.Failure.tooLong) { try PluralRule(header: long) }
    }

    // MARK: Which language

    static let environments: [([String: String], [String])] = [
        ([:], []),
        (["LANG": "C"], []),
        (["LANG": "POSIX", "LANGUAGE": "ko"], []),
        (["LANG": "ko_KR.UTF-8"], ["ko_KR", "ko"]),
        (["LANG": "de_DE.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8"], ["fr_FR", "fr"]),
        (["LANG": "de_DE.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8", "LC_ALL": "ja_JP.UTF-8"], ["ja_JP", "ja"]),
        (["LANG": "C.UTF-8", "LANGUAGE": "zh_TW:ja"], ["zh_TW", "zh", "ja"]),
        (["LC_ALL": "C", "LANGUAGE": "ko"], []),
        (["LANG": "ko_KR.UTF-8", "LANGUAGE": ""], ["ko_KR", "ko"]),
        (["LANG": "ko_KR.UTF-8", "LANGUAGE": "en:ko"], []),
        (["LANG": "ko_KR.UTF-8", "LANGUAGE": "de:en:ko"], ["de"]),
        (["LANG": "de_AT.UTF-8@euro"], ["de_AT@euro", "de@euro", "de_AT", "de"]),
        (["LANG": "en_US.UTF-8", "LANGUAGE": "en_XA"], ["en_XA"]),
    ]

    @Test(arguments: Self.environments)
    func theEnvironmentChoosesAsGNUProgramsDo(environment: [String: String], languages: [String]) {
        #expect(MessageLanguages.of(environment: environment) == languages, "\(environment)")
    }

    /// A configuration's language, OpenWeather's codes included.
    @Test(arguments: [
        ("ko", ["ko"]), ("kr", ["ko"]), ("zh_cn", ["zh_CN", "zh"]), ("zh-TW", ["zh_TW", "zh"]),
        ("pt_br", ["pt_BR", "pt"]), ("ua", ["uk"]), ("en", []), ("en-XA", ["en_XA"]),
    ])
    func aSettingNamesItsCatalogs(setting: String, languages: [String]) {
        #expect(MessageLanguages.of(setting: setting) == languages)
    }

    // MARK: Words

    @Test func englishIsTheCodesOwnWithItsNamesFilled() {
        let words = Messages.english
        #expect(words.tr("It waits: {detail}.", ["detail": "a {brace}"]) == "It waits: a {brace}.")
        #expect(words.tr("{count} entry", plural: "{count} entries", count: 1) == "1 entry")
        #expect(words.tr("{count} entry", plural: "{count} entries", count: 0) == "0 entries")
        #expect(words.tr("{{literal}} {missing}") == "{literal} {missing}")
    }

    /// The pseudo-language marks every message, keeps its names, and is longer: English left in a view is what no
    /// catalog can reach.
    @Test func thePseudoLanguageMarksAccentsAndLengthens() {
        let words = Messages.pseudo
        let said = words.tr("It waits: {detail}.", ["detail": "plain data"])
        #expect(said == "⟦Îţ ŵáîţš: ⟧plain data⟦.···⟧", "\(said)")
        #expect(words.tr("It is stamped.").count > "It is stamped.".count + 2)
        // What fills a name is outside the marks: data, or words no catalog reached.
        #expect(PseudoText.english(in: said) == ["plain", "data"])
        #expect(PseudoText.english(in: said, data: ["plain data"]).isEmpty)
        #expect(PseudoText.english(in: words.tr("It is stamped.")).isEmpty)
    }

    /// Every lane's sentence and remedy, without data, is all marked in the pseudo-language.
    @Test(arguments: LaneReason.allCases)
    func everyReasonIsSaidThroughTheCatalog(reason: LaneReason) {
        let state = LaneState(reason.lane, reason)
        // (A state without its detail names its reason's code instead, which is data.)
        let code = [reason.rawValue]
        #expect(PseudoText.english(in: state.sentence(.pseudo), data: code).isEmpty, "\(state.sentence(.pseudo))")
        #expect(PseudoText.english(in: state.remedy(.pseudo)).isEmpty, "\(state.remedy(.pseudo))")
        #expect(state.sentence(.english) == state.sentence && state.remedy(.english) == state.remedy)
    }

    // MARK: .mo bytes

    /// A catalog laid out as msgfmt lays it out (little-endian, no hash table), built here so that each field can
    /// be broken.
    static func mo(_ messages: [(String, String)]) -> [UInt8] {
        let sorted = messages.sorted { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
        var bytes: [UInt8] = []
        func word(_ value: Int) { bytes += withUnsafeBytes(of: UInt32(value).littleEndian, Array.init) }
        let count = sorted.count
        let originals = 28
        let translations = originals + count * 8
        var strings = translations + count * 8
        word(0x9504_12de)
        word(0)
        word(count)
        word(originals)
        word(translations)
        word(0)
        word(0)
        var blob: [UInt8] = []
        for column in [0, 1] {
            for message in sorted {
                let text = Array((column == 0 ? message.0 : message.1).utf8)
                word(text.count)
                word(strings)
                blob += text + [0]
                strings += text.count + 1
            }
        }
        return bytes + blob
    }

    @Test func aCatalogGivesItsWordsFormsAndContexts() throws {
        let catalog = try MessageCatalog(
            mo: Self.mo([
                ("", "Language: fr\nPlural-Forms: nplurals=2; plural=(n > 1);\n"),
                ("It is stamped.", "Sa météo est inscrite."),
                ("{count} entry\0{count} entries", "{count} entrée\0{count} entrées"),
                ("condition\u{4}Rain", "Pluie"),
                ("untranslated", ""),
            ]))
        #expect(catalog.language == "fr" && catalog.plural.forms == 2)
        let words = Messages(language: "fr", catalogs: [catalog])
        #expect(words.tr("It is stamped.") == "Sa météo est inscrite.")
        #expect(words.tr("{count} entry", plural: "{count} entries", count: 1) == "1 entrée")
        #expect(words.tr("{count} entry", plural: "{count} entries", count: 0) == "0 entrée")
        #expect(words.tr("{count} entry", plural: "{count} entries", count: 2) == "2 entrées")
        #expect(words.tr("Rain", context: "condition") == "Pluie")
        #expect(words.tr("Rain") == "Rain")
        #expect(words.tr("untranslated") == "untranslated")
    }

    /// Bad bytes are refused, never read past: a wrong magic number, a count larger than the file, an offset or a
    /// length past its end, a string that is not UTF-8, a broken Plural-Forms.
    @Test func badCatalogsAreRefused() {
        let good = Self.mo([("a", "b")])
        func broken(_ change: (inout [UInt8]) -> Void) -> [UInt8] {
            var bytes = good
            change(&bytes)
            return bytes
        }
        let cases: [[UInt8]] = [
            [], Array(good.prefix(20)),
            broken { $0[0] = 0 },
            broken {
                $0[8] = 0xff; $0[9] = 0xff
            },
            broken {
                $0[12] = 0xf0; $0[13] = 0xff
            },
            broken {
                $0[28] = 0xff; $0[29] = 0xff
            },
            broken {
                $0[32] = 0xff; $0[33] = 0xff; $0[34] = 0xff; $0[35] = 0x7f
            },
            broken { $0[$0.count - 2] = 0xff },
            Self.mo([("", "Plural-Forms: nplurals=2; plural=(n;\n")]),
        ]
        for bytes in cases {
            #expect(throws: MessageCatalog.Failure.self) { try MessageCatalog(mo: bytes) }
        }
    }

    // MARK: Words decided in one place and said in another

    static let written = EntryTime(
        date: Date(timeIntervalSince1970: 1_735_689_600), dayOnly: false, source: .frontMatter(key: "date"),
        timeZone: .utc)

    /// A reason of every kind, its data plain (numbers, times, paths).
    static let reasons: [LeftAloneReason] = [
        .notRegularFile(.symbolicLink), .notRegularFile(.folder), .notRegularFile(.fifo), .notRegularFile(.device),
        .notRegularFile(.socket), .notRegularFile(.other), .permissionDenied, .hardLinks(3), .readOnly,
        .noReadPermission, .tooLarge(limit: 1_048_576), .content(.empty), .content(.binary), .content(.notText),
        .content(.unterminatedFrontMatter), .content(.tomlFrontMatter), .content(.jsonFrontMatter),
        .content(.invalidFrontMatter("<3:1>")), .content(.frontMatterNotMapping), .content(.weatherNotMapping),
        .content(.cannotAppend), .content(.frontMatterOverLimit(.depth, line: 70)),
        .content(.frontMatterOverLimit(.nodes, line: 7)), .content(.frontMatterOverLimit(.bytes, line: 9)),
        .ownerWouldLoseAccess(
            OwnerLockout(owner: 1001, group: 1001, stamper: 0, stamperGroup: 0, notGroupWritable: true)),
        .ownerWouldLoseAccess(
            OwnerLockout(owner: 1001, group: 100, stamper: 0, stamperGroup: 0, notGroupWritable: false)),
        .keepsChanging, .unreadableTime(UnreadableTime(key: "date", value: "42")),
        .future(Self.written, withinADay: true), .future(Self.written), .stoppedTheDaemon,
        .backdated(Self.written, .historyDisabled), .backdated(Self.written, .noPosition),
        .backdated(Self.written, .refused("HTTP 401")),
        .backdated(
            Self.written,
            .elsewhere(Elsewhere(entryOffset: 7200, machineOffset: 32400, place: "서울", placeOffset: 32400))),
        .backdated(Self.written, .elsewhere(Elsewhere(entryOffset: 7200, machineOffset: 32400, placeOffset: 32400))),
        .backdated(Self.written, .elsewhere(Elsewhere(entryOffset: 7200, machineOffset: 32400, place: "서울"))),
        .backdated(Self.written, .elsewhere(Elsewhere(entryOffset: 7200, machineOffset: 32400))),
        .template(.folder(VaultLayout.Place("", setting: ".obsidian/templates.json"))),
        .template(.folder(VaultLayout.Place("틀", setting: ".obsidian/templates.json"))),
        .template(.file(VaultLayout.Place("틀/일기.md", setting: ".obsidian/daily-notes.json"))),
        .template(.placeholder("{{date}}"), .written(at: Date(timeIntervalSince1970: 1_735_689_600))),
        .template(.placeholder("<% tp.date.now() %>"), .written(at: nil)),
        .template(.placeholder("{{date}}"), .unknown),
        .anotherTime(
            AnotherTime(block: Date(timeIntervalSince1970: 1_700_000_000), blockDay: nil, entry: Self.written)),
    ]

    /// Every reason's words are messages: in the pseudo-language nothing but their data is outside the marks, and
    /// in English they are what they always were.
    @Test func everyReasonsWordsAreMessages() {
        let data = [
            "tp", "date", "now", "obsidian", "templates", "json", "daily", "notes", "md", "UTC", "HTTP", "uid",
            "KiB",
        ]
        for reason in Self.reasons {
            let said = reason.said
            #expect(said.english == reason.description)
            let pseudo = said.said(.pseudo)
            #expect(PseudoText.english(in: pseudo, data: data).isEmpty, "\(pseudo)")
        }
    }

    /// What the index keeps and what `GET /v1/entries` gives read back as the same words; text an older version
    /// kept is said as it is; nothing read back nests deeper than a message can, or points anywhere but later.
    @Test func saidIsKeptAndReadBack() throws {
        for reason in Self.reasons {
            let said = reason.said
            #expect(Said(decoding: said.encoded) == said, "\(said)")
            let nodes = try #require(said.nodes)
            #expect(Said(nodes: nodes) == said, "\(said)")
        }
        let legacy = "it is read-only"
        #expect(Said(decoding: legacy) == Said(verbatim: legacy) && Said(verbatim: legacy).nodes == nil)
        #expect(Said(decoding: "a\nline\\ and more").english == "a\nline\\ and more")
        // Nested past the bound, a count past the lines, a place that is not later: not a message.
        var deep = Said("{x}", ["x": .text("end")])
        for _ in 0..<6 { deep = Said("{x}", ["x": .said(deep)]) }
        #expect(Said(decoding: deep.encoded).verbatim)
        #expect(Said(decoding: "\u{1}said\nmessage\n9\nname\n=value").verbatim)
        #expect(Said(nodes: [Said.Node(message: "{x}", arguments: ["x": .node(0)])]) == nil)
        #expect(Said(nodes: [Said.Node(message: "{x}", arguments: ["x": .node(5)])]) == nil)
        #expect(Said(nodes: []) == nil)
    }

    /// A message's arguments are written by name, in order: the same document from every process (a dictionary's
    /// order changes with each process's hash seed, and `entries --json` differed between two runs).
    @Test func aMessagesArgumentsAreWrittenInOrder() throws {
        let node = Said.Node(message: "m", arguments: ["time": .text("t"), "source": .node(1), "a": .text("x")])
        for _ in 0..<5 {
            #expect(
                try JSONTextEncoder().encode(node) == #"{"message":"m","arguments":{"a":"x","source":1,"time":"t"}}"#)
        }
    }
}
