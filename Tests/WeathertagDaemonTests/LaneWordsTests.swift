import FoundationEssentials
import Testing
import WeathertagCore
import WeathertagTestSupport

@testable import WeathertagDaemon

/// One truth in every view: for every lane and reason, whether the index holds it or the running inbox says it
/// (`LaneState.shown`), `why`, `status`, `entries` (its table and `--format {why} {remedy}`), the timeline page's
/// card, `GET /v1/entries` (its list and its entry, `why` and `remedy`) and the bar's tooltip say what `why` says.
@Suite("one truth in every view")
struct LaneWordsTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)
    static let formatting = DiaryFormatting(locale: DateLocale.english, timeZone: .utc)

    /// Every reason in its lane, with words of its own where a reason has them (`detail`).
    static let states: [LaneState] = LaneReason.allCases.map { reason in
        LaneState(reason.lane, reason, detail: Said(verbatim: "detail of \(reason.rawValue) & <more>"))
    }

    /// Where the state comes from: the index's row, or the running inbox's word on an entry the index has waiting.
    enum Origin: CaseIterable {
        case indexed
        case live
    }

    /// The index with one entry in `state`, as `origin` has it.
    static func index(_ state: LaneState, _ origin: Origin) -> DiaryIndex {
        let store = InMemoryEntryStore()
        let entry = DiaryEntry.read(
            Array("---\ndate: 2025-07-01T14:00:00+02:00\n---\nBy the Spree.\n".utf8), fileName: "berlin.md",
            modified: Self.now, composed: nil)
        let indexed =
            origin == .indexed
            ? state : LaneState(.backdated, .waitingForHistory, detail: Said(verbatim: "written earlier"))
        store.remember(
            [],
            index: [
                DiaryIndexItem(
                    path: "berlin.md",
                    version: FileVersion(device: 1, inode: 2, size: 3, modifiedSeconds: 4, modifiedNanoseconds: 0),
                    entry: entry, lane: indexed, placeholderTime: entry.time)
            ], at: Self.now)
        guard origin == .live else { return DiaryIndex(database: store) }
        return DiaryIndex(
            database: store, live: { paths in Dictionary(uniqueKeysWithValues: paths.map { ($0, state) }) })
    }

    @Test(arguments: Self.states, Origin.allCases)
    func everyViewSaysWhatWhySays(state: LaneState, origin: Origin) async throws {
        let index = Self.index(state, origin)
        // The state shown: the running inbox's word, or the index's (a waiting entry without a running daemon waits
        // for it).
        let shown =
            origin == .live
            ? state : LaneState.shown(indexed: state, live: nil, inboxRunning: false)
        // `weathertag why` and `GET /v1/entries/{path}`: the state's own words.
        let told = try #require(try await index.entry("berlin.md"))
        #expect(told.lane == shown.lane.rawValue && told.reason == shown.reason.rawValue, "\(told)")
        #expect(told.why == shown.sentence && told.remedy == shown.remedy)
        #expect(told.explanation() == ["berlin.md (\(shown.lane.rawValue)): \(shown.sentence)", shown.remedy])

        // `GET /v1/entries` and `weathertag entries`: the same document, remedy and all.
        let listed = try #require(try await index.list(EntryQuery()).entries.first)
        #expect(listed.why == told.why && listed.remedy == told.remedy && listed.reason == told.reason)
        let table = Self.formatting.table([listed], lanes: true)
        #expect(table.contains(told.why) == told.saysWhy, "\(table)")
        #expect(Self.formatting.line("{why} {remedy}", listed) == "\(told.why) \(shown.remedy)")

        // `weathertag status` and `/v1/status`: the latest of its lane, in the same words.
        let lanes = try await index.lanes()
        let latest = [lanes.waiting, lanes.stamped, lanes.backdated, lanes.leftAlone, lanes.otherTime].flatMap(\.latest)
        #expect(latest.map(\.why) == [told.why] && latest.map(\.remedy) == [told.remedy])
        let status = lanes.lines().joined(separator: "\n")
        #expect(status.contains(told.saysWhy ? "berlin.md: \(told.why)" : "berlin.md"), "\(status)")

        // The timeline page's card: the sentence and, unless it is stamped, what would change it.
        let page = TimelinePage(title: "Diary", formatting: Self.formatting, icons: [:], generatedAt: Self.now)
            .render([listed])
        #expect(page.contains(TimelinePage.escaped(told.why)) == told.saysWhy, "\(shown)")
        #expect(page.contains(TimelinePage.escaped(shown.remedy)) == (shown.lane != .stamped), "\(shown)")

        // The bar's tooltip, where the entry is one of "on this day".
        let tooltip = Waybar.onThisDayLine(listed)
        #expect(tooltip.hasSuffix(told.saysWhy ? " · \(told.why)" : " · \(told.title)"), "\(tooltip)")
    }

    /// The words are the state's, not a code's: an entry the index has waiting for history, which the running inbox
    /// has left alone for good (its clock contradicts the place), is said to be left alone everywhere.
    @Test func theRunningInboxsWordIsEveryViews() async throws {
        let elsewhere = LaneState(.backdated, .elsewhere, detail: Said(verbatim: "its own clock (+02:00) is neither …"))
        let index = Self.index(elsewhere, .live)
        let status = try await index.lanes().lines().joined(separator: "\n")
        #expect(status.contains("left without weather") && !status.contains("waits"), "\(status)")
        let listed = try #require(try await index.list(EntryQuery()).entries.first)
        #expect(listed.remedy?.contains("stamp --fresh") == true)
        #expect(!Waybar.onThisDayLine(listed).contains("waits for the weather of its time"))
    }

    /// Every reason is one lane's; `LaneState.of` puts every result in the lane of its reason.
    @Test func everyReasonIsOneLanes() {
        for reason in LaneReason.allCases {
            #expect(LaneReason.indexed(reason.rawValue, in: reason.lane) == reason)
        }
        let reasons: [LeftAloneReason] = [
            .readOnly, .hardLinks(2), .keepsChanging, .notRegularFile(.folder), .content(.empty), .permissionDenied,
            .tooLarge(limit: 10), .noReadPermission,
        ]
        for reason in reasons {
            let state = LaneState.of(reason)
            #expect(state.reason.lane == state.lane, "\(reason)")
        }
    }
}
