import FoundationEssentials
import Testing
import WeathertagCore

/// What becomes of an entry, decided from its bytes alone: no files, an injected clock.
@Suite("the stamp's decision")
struct StampDecisionTests {
    static let now = Date(timeIntervalSince1970: 1_764_000_000)  // 2025-11-24T16:00:00Z
    static let lines = ["weather:", "  condition: Clear"]
    static let remembered = ["weather:", "  condition: Rain"]

    static func policy(history: Bool) -> BackdatingPolicy {
        BackdatingPolicy(timeZone: .utc, asksHistory: history, now: { Self.now })
    }

    static func decide(
        _ text: String, lines: [String]? = Self.lines, replacing: Bool = false, history: Bool = false,
        remembered: [String]? = nil
    ) -> StampDecision {
        StampDecision.decide(
            Array(text.utf8), name: "entry.md", modified: Self.now, lines: lines, replacing: replacing,
            backdating: Self.policy(history: history), known: StampDecision.Known(remembered: { remembered }))
    }

    @Test func aCurrentEntryIsWrittenWithTheCurrentBlock() {
        guard case .write(let content, let block, let restoring) = Self.decide("Today\n") else {
            Issue.record("not written")
            return
        }
        #expect(String(decoding: content, as: UTF8.self) == "---\nweather:\n  condition: Clear\n---\nToday\n")
        #expect(block == Self.lines && !restoring)
        #expect(Self.decide("Today\n", lines: nil) == .needsWeather, "no weather: it waits, nothing written")
    }

    @Test func aBlockThereIsKeptAndFrontMatterItMustNotEditIsLeftAlone() {
        let stamped = "---\nweather:\n  condition: Fog\n---\nx\n"
        #expect(Self.decide(stamped) == .alreadyStamped(block: ["weather:", "  condition: Fog"]))
        #expect(Self.decide(stamped, lines: nil) == .alreadyStamped(block: ["weather:", "  condition: Fog"]))
        guard case .leftAlone(.content) = Self.decide("---\ntitle: [oops\n---\n") else {
            Issue.record("bad front matter not left alone")
            return
        }
        // `--fresh`: the block there is replaced, and the memory is not asked.
        guard case .write(_, let block, false) = Self.decide(stamped, replacing: true, remembered: Self.remembered)
        else {
            Issue.record("not replaced")
            return
        }
        #expect(block == Self.lines)
    }

    /// An entry back without its block gets the remembered one, whenever it was written and with or without
    /// current weather.
    @Test func theRememberedBlockComesBackWheneverTheEntryWasWritten() {
        for text in ["Today\n", "---\ndate: 2019-05-01\n---\nLong ago\n"] {
            guard case .write(_, let block, true) = Self.decide(text, lines: nil, remembered: Self.remembered) else {
                Issue.record("\(text): not restored")
                continue
            }
            #expect(block == Self.remembered)
        }
    }

    @Test func aBackDatedEntryAsksForItsOwnTimeOrIsLeftAlone() {
        let old = "---\ndate: 2019-05-01T10:00:00+02:00\nlatitude: 46.2\nlongitude: 6.15\n---\nLong ago\n"
        guard case .wantsHistory(let request) = Self.decide(old, history: true) else {
            Issue.record("no history asked")
            return
        }
        #expect(request.time.date == Date(timeIntervalSince1970: 1_556_697_600))
        #expect(request.position?.latitude == 46.2 && request.position?.longitude == 6.15)
        guard case .leftAlone(.backdated) = Self.decide(old, history: false) else {
            Issue.record("not left alone without history")
            return
        }
        // Never a guess: a date that cannot be read is left alone, not stamped as now.
        guard case .leftAlone(.unreadableTime) = Self.decide("---\ndate: someday\n---\nx\n") else {
            Issue.record("an unreadable date was stamped")
            return
        }
        guard case .datedAhead = Self.decide("---\ndate: 2025-11-24T20:00:00Z\n---\nTonight\n") else {
            Issue.record("not waiting for its time")
            return
        }
    }

    /// The front matter the decision composed is the one the index would compose of the same bytes: an entry reads
    /// the same with it and without it, whatever its line breaks, byte-order mark or closing line. It is used where
    /// its text matches, and ignored where it does not.
    @Test func theComposedFrontMatterReadsAsTheIndexWouldComposeIt() throws {
        let texts = [
            "---\ntitle: Tea\ndate: 2025-11-24T15:00:00Z\n---\nGreen tea.\n",
            "---\ntitle: Tea\nweather:\n  condition: Fog\n---\nGreen tea.\n",
            "\u{FEFF}---\r\ntitle: Tea\r\nweather:\r\n  condition: Fog\r\n---\r\nCR LF.\r\n",
            "---\nweather: {condition: Fog}\ntitle: \"Tea, \\u00e9\"\n---\nA flow mapping.\n",
            "---\ntitle: Tea\nweather:\n---\nAn empty weather line.\n",
            "---\ntitle: Tea\nweather:\n  condition: Fog\n...\nClosed with dots.\n",
            "No front matter.\n",
        ]
        var composedAtAll = 0
        for text in texts {
            let (decision, composed) = StampDecision.decideComposing(
                Array(text.utf8), name: "entry.md", modified: Self.now, lines: Self.lines,
                backdating: Self.policy(history: false))
            let bytes: [UInt8]
            switch decision {
            case .write(let written, _, _): bytes = written
            case .alreadyStamped: bytes = Array(text.utf8)
            default:
                Issue.record("\(decision) for \(text)")
                continue
            }
            if composed != nil { composedAtAll += 1 }
            func read(_ composed: ComposedFrontMatter?) -> DiaryEntry {
                DiaryEntry.read(bytes, fileName: "entry.md", modified: Self.now, timeZone: .utc, composed: composed)
            }
            #expect(read(composed) == read(nil), "\(text)")
        }
        #expect(composedAtAll >= 5)

        // Used where the text matches (a mapping with another title shows), ignored where it does not.
        let text = "---\ntitle: Tea\n---\nx\n"
        let other = try #require(try YAMLNode.compose("title: Coffee\n")?.mapping)
        func title(_ yaml: String) -> String {
            DiaryEntry.read(
                Array(text.utf8), fileName: "e.md", modified: Self.now,
                composed: ComposedFrontMatter(yaml: yaml, mapping: other)
            ).title
        }
        #expect(title("title: Tea\n") == "Coffee")
        #expect(title("title: Tea") == "Tea")
    }

    /// An entry without front matter, stamped, has the block alone as its front matter: the batch composes that once
    /// (`ComposedFrontMatter.block`) and the reader takes it for each such entry, as its own text, LF ended; a CR LF
    /// entry's reads as other text and is composed by the reader.
    @Test func theBlockComposedOnceIsEveryNewEntrysFrontMatter() throws {
        let lines = ["weather:", "  condition: Clouds", "  temperature: 7.5", "  place: Seoul"]
        let block = try #require(ComposedFrontMatter.block(lines))
        let other = try #require(try YAMLNode.compose("title: From the block\n")?.mapping)
        for (text, used) in [
            ("No front matter.\n", true), ("# A heading\n\nText.\n", true), ("\u{FEFF}With a mark.\n", true),
            ("CR LF.\r\nSecond line.\r\n", false),
        ] {
            guard case .write(let written, _, _) = Self.decide(text, lines: lines) else {
                Issue.record("not written: \(text)")
                continue
            }
            func read(_ composed: ComposedFrontMatter?) -> DiaryEntry {
                DiaryEntry.read(written, fileName: "entry.md", modified: Self.now, timeZone: .utc, composed: composed)
            }
            #expect(read(block) == read(nil), "\(text)")
            #expect(read(nil).weather?.condition == "Clouds", "\(text)")
            // Whether the reader took it: a mapping with a title shows where it did.
            let shown = read(ComposedFrontMatter(yaml: block.yaml, mapping: other)).title
            #expect((shown == "From the block") == used, "\(text)")
        }
        #expect(ComposedFrontMatter.block(["weather: [unclosed"]) == nil)
    }
}
