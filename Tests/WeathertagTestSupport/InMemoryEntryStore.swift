import FoundationEssentials
import Glibc
import Synchronization
import WeathertagCore
import WeathertagDaemon

/// The memory of stamps and the diary index in the process: the same rules as the state database (`RestorePolicy`,
/// the lanes' updates, `DiaryOrder` keys, renames and removals, search by word prefixes and phrases), a real
/// implementation for tests. `StampMemoryTests` and `DiaryStoreTests` run both against one contract.
package final class InMemoryEntryStore: EntryStore {
    package let policy: RestorePolicy

    private struct Remembered {
        var stamp: RememberedStamp
        var stampedAt: Date?
        var restoredAt: Date?
        var restores = 0
        /// Taken out on request (`withdraw`): never given back.
        var withdrawnAt: Date?

        var written: Bool { self.stampedAt != nil || self.restores > 0 }
    }

    private struct Row {
        var entry: IndexedEntry
        var version: String?
        /// The day it was written on its own clock (the state database's `local_day`).
        var localDay: String
        /// What a search looks in: the title, the text and the place, as words.
        var words: [String]
    }

    private struct State {
        var memory: [String: Remembered] = [:]
        var rows: [String: Row] = [:]
    }

    private let state = Mutex(State())

    package init(policy: RestorePolicy = RestorePolicy()) {
        self.policy = policy
    }

    // MARK: StampMemory

    package func blocksToRestore(_ paths: [String], now: Date) -> [String: [String]] {
        self.state.withLock { state in
            var blocks: [String: [String]] = [:]
            for path in paths where state.memory[path]?.withdrawnAt == nil {
                if let block = self.policy.block(for: state.memory[path]?.stamp, now: now) { blocks[path] = block }
            }
            return blocks
        }
    }

    package func remember(_ records: [StampRecord], index: [DiaryIndexItem], at now: Date) {
        self.state.withLock { state in
            for item in index { Self.index(item, in: &state, at: now) }
            for record in records {
                var remembered = state.memory[record.path] ?? Remembered(stamp: RememberedStamp(block: []))
                let same = StampFacts.fingerprint(remembered.stamp.block) == StampFacts.fingerprint(record.block)
                remembered.stamp = RememberedStamp(block: record.block)
                remembered.withdrawnAt = nil
                switch record.origin {
                case .stamped: remembered.stampedAt = now
                case .restored:
                    remembered.restoredAt = now
                    remembered.restores += 1
                case .found where !same:
                    // Another block found there: not weathertag's writing.
                    (remembered.stampedAt, remembered.restoredAt, remembered.restores) = (nil, nil, 0)
                case .found: break
                }
                state.memory[record.path] = remembered
            }
        }
    }

    package func apply(_ changes: [PathChange], at now: Date) {
        self.state.withLock { state in
            for change in changes {
                switch change {
                case .renamed(let from, let to):
                    for (old, remembered) in state.memory where remembered.stamp.removedAt == nil {
                        guard let new = PathChange.renamed(old, from: from, to: to) else { continue }
                        state.memory[old] = nil
                        state.memory[new] = remembered
                    }
                    for (old, row) in state.rows {
                        guard let new = PathChange.renamed(old, from: from, to: to) else { continue }
                        state.rows[old] = nil
                        var moved = row
                        moved.entry.path = new
                        state.rows[new] = moved
                    }
                case .removed(let path):
                    for (old, remembered) in state.memory
                    where remembered.stamp.removedAt == nil && PathChange.renamed(old, from: path, to: path) != nil {
                        state.memory[old]?.stamp.removedAt = now
                    }
                    for old in state.rows.keys where PathChange.renamed(old, from: path, to: path) != nil {
                        state.rows[old] = nil
                    }
                }
            }
        }
    }

    package func reconcile(present: Set<String>, at now: Date, keeping: (String) -> Bool) {
        self.state.withLock { state in
            for (path, remembered) in state.memory {
                if let removedAt = remembered.stamp.removedAt {
                    if self.policy.isForgotten(removedAt: removedAt, now: now) { state.memory[path] = nil }
                } else if !present.contains(path), !keeping(path) {
                    state.memory[path]?.stamp.removedAt = now
                }
            }
            state.rows = state.rows.filter { present.contains($0.key) }
        }
    }

    package func remembered(_ path: String) throws -> RememberedStamp? {
        self.state.withLock { $0.memory[path]?.stamp }
    }

    package func provenance(of block: [String], at path: String) -> BlockProvenance {
        let fingerprint = StampFacts.fingerprint(block)
        return self.state.withLock { state in
            let same = state.memory.filter { StampFacts.fingerprint($0.value.stamp.block) == fingerprint }
            if let here = same[path] {
                return here.written ? .writtenHere(at: here.stampedAt ?? here.restoredAt) : .foundHere
            }
            let elsewhere = same.filter { $0.value.written && $0.value.stamp.removedAt == nil }
                .min {
                    ($0.value.stampedAt ?? $0.value.restoredAt ?? .distantFuture, $0.key)
                        < ($1.value.stampedAt ?? $1.value.restoredAt ?? .distantFuture, $1.key)
                }
            return elsewhere.map { .writtenInto($0.key, at: $0.value.stampedAt ?? $0.value.restoredAt) } ?? .unknown
        }
    }

    package func withdraw(_ path: String, at now: Date) {
        self.state.withLock { $0.memory[path]?.withdrawnAt = now }
    }

    // MARK: DiaryStore

    package func indexedVersions(_ paths: [String]) -> [String: String] {
        self.state.withLock { state in
            var versions: [String: String] = [:]
            for path in paths { versions[path] = state.rows[path]?.version }
            return versions
        }
    }

    package func notice(_ paths: [String], inbox: String, at now: Date) {
        self.state.withLock { state in
            for path in paths where state.rows[path] == nil {
                var info = stat()
                guard lstat(inbox + "/" + path, &info) == 0 else { continue }
                let modified = Date(
                    timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
                let item = DiaryIndexItem(
                    path: path, version: nil, entry: nil, lane: .queued,
                    placeholderTime: EntryTime.of(
                        fields: [:], fileName: InboxTree.split(path).name, modified: modified, timeZone: .current))
                Self.index(item, in: &state, at: now)
            }
        }
    }

    package func entries(_ query: EntryQuery) throws -> (entries: [IndexedEntry], next: EntryQuery.Cursor?) {
        let terms = query.text.map(Self.terms) ?? []
        let rows = self.state.withLock { state in
            state.rows.values.filter { row in
                let entry = row.entry
                if let since = query.since, entry.id < DiaryOrder.key(since) { return false }
                if let until = query.until, entry.id >= DiaryOrder.key(until) + DiaryOrder.slots { return false }
                if let cursor = query.cursor, entry.id >= cursor.id { return false }
                if let lane = query.lane, entry.lane.lane != lane { return false }
                if let reason = query.reason, entry.lane.reason != reason { return false }
                if let day = query.onThisDay, MonthDay(ofDay: row.localDay) != day { return false }
                if !query.includes(localDay: row.localDay) { return false }
                if let condition = query.condition?.lowercased() {
                    let group = entry.weather?.condition?.lowercased()
                    let description = entry.weather?.description?.lowercased() ?? ""
                    guard group == condition || description.contains(condition) else { return false }
                }
                if let place = query.place?.lowercased() {
                    let names = [entry.weather?.place, entry.weather?.region, entry.weather?.country]
                    guard names.contains(where: { $0?.lowercased() == place }) else { return false }
                }
                return terms.allSatisfy { Self.matches($0, row.words) }
            }
            .map(\.entry)
            .sorted { $0.id > $1.id }
        }
        let page = Array(rows.prefix(query.limit))
        let next = rows.count > query.limit ? page.last.map { EntryQuery.Cursor(id: $0.id) } : nil
        return (page, next)
    }

    package func entry(_ path: String) throws -> IndexedEntry? {
        self.state.withLock { state in
            guard var entry = state.rows[path]?.entry else { return nil }
            if let remembered = state.memory[path] {
                entry.block = remembered.stamp.block
                entry.stampedAt = remembered.stampedAt
                entry.restoredAt = remembered.restoredAt
                entry.restores = remembered.restores
            }
            return entry
        }
    }

    package func laneCounts() throws -> [Lane: Int] {
        self.state.withLock { state in
            var counts: [Lane: Int] = [:]
            for row in state.rows.values { counts[row.entry.lane.lane, default: 0] += 1 }
            return counts
        }
    }

    // MARK: The index's rules

    /// A batch's row, or (not read) a row from the entry's name that only takes the new lane when there is one.
    private static func index(_ item: DiaryIndexItem, in state: inout State, at now: Date) {
        let old = state.rows[item.path]
        let lane = Self.lane(old: old?.entry, new: item.lane, now: now)
        guard let read = item.entry, let version = item.version else {
            guard var row = old else {
                let name = InboxTree.split(item.path).name
                let title = name.lastIndex(of: ".").map { $0 == name.startIndex ? name : String(name[..<$0]) } ?? name
                let time = item.placeholderTime
                state.rows[item.path] = Row(
                    entry: IndexedEntry(
                        id: Self.key(item.path, time.date, in: state), path: item.path, title: title, excerpt: "",
                        time: time.date, dayOnly: time.dayOnly, timeSource: time.source.code, lane: item.lane,
                        laneSince: now, weather: nil, utcOffset: time.utcOffset),
                    version: nil, localDay: time.localDay, words: [])
                return
            }
            (row.entry.lane, row.entry.laneSince) = lane
            state.rows[item.path] = row
            return
        }
        let place = [read.weather?.place, read.weather?.region, read.weather?.country].compactMap { $0 }
        state.rows[item.path] = Row(
            entry: IndexedEntry(
                id: Self.key(item.path, read.time.date, in: state), path: item.path, title: read.title,
                excerpt: read.excerpt, time: read.time.date, dayOnly: read.time.dayOnly,
                timeSource: read.time.source.code, lane: lane.lane, laneSince: lane.since, weather: read.weather,
                mood: read.mood, utcOffset: read.time.utcOffset, location: read.location, photos: read.photos),
            version: version.indexed, localDay: read.time.localDay,
            words: Self.words(([read.title, read.body] + place).joined(separator: " ")))
    }

    /// An entry's new lane: one found stamped where weathertag stamped it keeps that reason, and an entry that
    /// stays in its lane keeps its `lane_since` (the state database's `laneUpdate`).
    private static func lane(old: IndexedEntry?, new: LaneState, now: Date) -> (lane: LaneState, since: Date) {
        guard let old else { return (new, now) }
        let keepsSince = old.lane.lane == new.lane && (old.lane.reason == new.reason || new.reason == .found)
        let keepsReason = old.lane.lane == .stamped && new.lane == .stamped && new.reason == .found
        return (keepsReason ? old.lane : new, keepsSince ? old.laneSince : now)
    }

    /// Its own key while its time stays; else the first free one of `DiaryOrder.key(time)`'s slots (or later ones).
    private static func key(_ path: String, _ time: Date, in state: State) -> Int64 {
        if let existing = state.rows[path]?.entry, existing.time == time { return existing.id }
        let taken = Set(state.rows.values.filter { $0.entry.path != path }.map(\.entry.id))
        var key = DiaryOrder.key(time)
        while true {
            let slots = key..<(key + DiaryOrder.slots)
            if let highest = taken.filter({ slots.contains($0) }).max() {
                if highest + 1 < slots.upperBound { return highest + 1 }
                key += DiaryOrder.slots
            } else {
                return key
            }
        }
    }

    /// Letters and digits, as the index holds them (`SearchText.indexed`), folded as FTS5's
    /// `unicode61 remove_diacritics 2` folds them.
    private static func words(_ text: String) -> [String] {
        foldedForSearch(SearchText.indexed(text))
            .split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// A search's terms (`SearchText.terms`), folded as FTS5 folds the query.
    private static func terms(_ text: String) -> [SearchText.Term] {
        SearchText.terms(text).map { term in
            switch term {
            case .prefix(let word): return .prefix(foldedForSearch(word))
            case .phrase(let tokens, let lastIsPrefix):
                return .phrase(tokens.map(foldedForSearch), lastIsPrefix: lastIsPrefix)
            }
        }
    }

    private static func matches(_ term: SearchText.Term, _ words: [String]) -> Bool {
        switch term {
        case .prefix(let word): return words.contains { $0.hasPrefix(word) }
        case .phrase(let tokens, let lastIsPrefix):
            guard words.count >= tokens.count else { return false }
            return (0...(words.count - tokens.count)).contains { start in
                tokens.indices.allSatisfy { index in
                    let word = words[start + index]
                    return lastIsPrefix && index == tokens.count - 1
                        ? word.hasPrefix(tokens[index]) : word == tokens[index]
                }
            }
        }
    }
}
