import FoundationEssentials
import NIOPosix
import Synchronization
import WeathertagCore

/// The diary as the socket and the command line list it: the index's rows, with the running inbox's own word on
/// entries that wait (why, this moment). Without a running inbox (the command line reading the database while the
/// daemon is stopped) an entry the index has as waiting says so.
package struct DiaryIndex: Sendable {
    package let database: any DiaryStore
    /// Why entries wait, from the running inbox; nil when the daemon is not running.
    let live: (@Sendable ([String]) async -> [String: LaneState])?
    /// Where the database is read: never on an event loop or the cooperative pool (the command line's too).
    let threadPool: NIOThreadPool
    /// How entries' places are shown (`EntryDocument.location`): as the configuration's `privacy` allows now, whatever
    /// the file holds.
    let privacy: PrivacyPolicy
    /// The lanes of the last second: `/v1/status` is polled (bars, scripts, the bench every 10 ms), and counting
    /// 50,000 rows each time would keep the reader from the batches' lookups.
    private let recentLanes = RecentLanes()

    private final class RecentLanes: Sendable {
        let kept = Mutex<(at: ContinuousClock.Instant, lanes: LanesDocument)?>(nil)
    }

    package init(
        database: any DiaryStore, live: (@Sendable ([String]) async -> [String: LaneState])? = nil,
        threadPool: NIOThreadPool = .singleton, privacy: PrivacyPolicy = PrivacyPolicy()
    ) {
        self.privacy = privacy
        self.database = database
        self.live = live
        self.threadPool = threadPool
    }

    package func list(_ query: EntryQuery) async throws -> EntryListDocument {
        let database = self.database
        let (entries, next) = try await self.read { try database.entries(query) }
        let lanes = await self.lanes(of: entries)
        return EntryListDocument(
            entries: entries.map { self.document($0, lane: lanes[$0.path] ?? $0.lane, detailed: false) },
            nextCursor: next?.description)
    }

    /// One entry by its path relative to the inbox; nil when the index does not have it.
    package func entry(_ path: String) async throws -> EntryDocument? {
        let database = self.database
        guard let entry = try await self.read({ try database.entry(path) }) else { return nil }
        let lane = await self.lanes(of: [entry])[entry.path] ?? entry.lane
        return self.document(entry, lane: lane, detailed: true)
    }

    /// Each lane's count and its latest entries (as they were up to a second ago).
    package func lanes(latest: Int = 3) async throws -> LanesDocument {
        let now = ContinuousClock.now
        if let kept = self.recentLanes.kept.withLock({ $0 }), now - kept.at < .seconds(1) { return kept.lanes }
        let lanes = try await self.countLanes(latest: latest)
        self.recentLanes.kept.withLock { $0 = (now, lanes) }
        return lanes
    }

    private func countLanes(latest: Int) async throws -> LanesDocument {
        let database = self.database
        let (counts, newest, templates) = try await self.read {
            let counts = try database.laneCounts()
            var newest: [Lane: [IndexedEntry]] = [:]
            for lane in Lane.allCases where (counts[lane] ?? 0) > 0 {
                newest[lane] = try database.entries(EntryQuery(lane: lane, limit: latest)).entries
            }
            // Every template an older version stamped, to be named until it is cleaned.
            let templates =
                (counts[.leftAlone] ?? 0) > 0
                ? try database.entries(
                    EntryQuery(
                        lane: .leftAlone, reason: .stampedTemplate, limit: LanesDocument.stampedTemplatesListed)
                ).entries.map(\.path) : []
            return (counts, newest, templates)
        }
        // The latest are shown as every view shows them: with the running inbox's word on those that wait.
        let shown = await self.lanes(of: newest.values.flatMap { $0 })
        func lane(_ lane: Lane) -> LanesDocument.Lane {
            LanesDocument.Lane(
                count: counts[lane] ?? 0,
                latest: (newest[lane] ?? []).map {
                    self.document($0, lane: shown[$0.path] ?? $0.lane, detailed: false)
                }, stampedTemplates: lane == .leftAlone ? templates.sorted() : nil)
        }
        return LanesDocument(
            waiting: lane(.waiting), stamped: lane(.stamped), backdated: lane(.backdated),
            leftAlone: lane(.leftAlone), otherTime: lane(.otherTime))
    }

    /// The lanes to show for `entries` that may be waiting (`LaneState.shown`), with the running inbox's word on
    /// them; without a running inbox, asked of nobody.
    private func lanes(of entries: [IndexedEntry]) async -> [String: LaneState] {
        let waiting = entries.filter(\.lane.mayBeWaiting)
        guard !waiting.isEmpty else { return [:] }
        let reasons = await self.live?(waiting.map(\.path)) ?? [:]
        var lanes: [String: LaneState] = [:]
        for entry in waiting {
            lanes[entry.path] = LaneState.shown(
                indexed: entry.lane, live: reasons[entry.path], inboxRunning: self.live != nil)
        }
        return lanes
    }

    private func read<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await self.threadPool.runIfActive(body)
    }

    func document(_ entry: IndexedEntry, lane: LaneState, detailed: Bool) -> EntryDocument {
        EntryDocument(
            path: entry.path,
            title: entry.title,
            time: entry.time.iso8601(utcOffset: entry.utcOffset),
            dayOnly: entry.dayOnly,
            timeSource: entry.timeSource,
            lane: lane.lane.rawValue,
            reason: lane.reason.rawValue,
            detail: lane.detail?.english,
            why: lane.sentence,
            excerpt: entry.excerpt,
            weather: entry.weather,
            mood: entry.mood,
            block: detailed ? entry.block : nil,
            remedy: lane.remedy,
            history: detailed
                ? EntryHistoryDocument(
                    stampedAt: entry.stampedAt.map(Self.time), restoredAt: entry.restoredAt.map(Self.time),
                    restores: entry.restores, laneSince: Self.time(entry.laneSince))
                : nil,
            location: entry.location.flatMap { self.privacy.shown($0)?.location },
            photos: Self.photos(entry), detailMessage: lane.detail?.nodes)
    }

    /// The entry's pictures as paths relative to the inbox (those that stay inside it); nil for none.
    static func photos(_ entry: IndexedEntry) -> [String]? {
        let photos = entry.photos.compactMap { EntryPhotos.resolved($0, entryPath: entry.path) }
        return photos.isEmpty ? nil : photos
    }

    /// RFC 3339 with the machine's offset at that time: when weathertag did something.
    static func time(_ date: Date) -> String {
        date.iso8601(utcOffset: TimeZone.current.secondsFromGMT(for: date))
    }
}
