import FoundationEssentials
import WeathertagCore

/// One entry to index after a batch (or when it is first seen).
package struct DiaryIndexItem: Sendable {
    package var path: String
    /// The file's version when it was read; nil when it was not read (its lane is all there is to say).
    package var version: FileVersion?
    /// What was read; nil: only the lane changes (or a row is made from its name until it is read).
    package var entry: DiaryEntry?
    package var lane: LaneState
    /// For a row made before the file is read: its time from its name, else its modification time.
    package var placeholderTime: EntryTime

    package init(
        path: String, version: FileVersion?, entry: DiaryEntry?, lane: LaneState, placeholderTime: EntryTime
    ) {
        self.path = path
        self.version = version
        self.entry = entry
        self.lane = lane
        self.placeholderTime = placeholderTime
    }
}

extension DiaryIndexItem {
    /// Only a lane, for the row `path` has (a batch wrote it): one the inbox's machine settled after the batch
    /// (`InboxStateMachine.Action.index`). (A path without a row gets one from its name, as `notice` makes them.)
    package static func lane(_ path: String, _ lane: LaneState, at now: Date) -> DiaryIndexItem {
        DiaryIndexItem(
            path: path, version: nil, entry: nil, lane: lane,
            placeholderTime: EntryTime.of(
                fields: [:], fileName: Paths.fileName(path), modified: now, timeZone: .current))
    }
}

/// One row of the index.
package struct IndexedEntry: Sendable, Equatable {
    package var id: Int64
    package var path: String
    package var title: String
    package var excerpt: String
    package var time: Date
    /// The entry's own clock's offset from UTC at `time`, in seconds (`EntryTime.utcOffset`).
    package var utcOffset: Int
    package var dayOnly: Bool
    package var timeSource: String
    package var lane: LaneState
    package var laneSince: Date
    package var weather: DiaryWeather?
    /// The front matter's mood (`DiaryMood`).
    package var mood: Double?
    /// Where it says it was written, as its file says it (`EntryLocation`; shown as `privacy` allows).
    package var location: EntryLocation?
    /// The pictures its text shows, as their links are written (`EntryPhotos`).
    package var photos: [String] = []
    /// From the memory (`GET /v1/entries/{path}` only).
    package var block: [String]?
    package var stampedAt: Date?
    package var restoredAt: Date?
    package var restores: Int = 0

    package init(
        id: Int64, path: String, title: String, excerpt: String, time: Date, dayOnly: Bool, timeSource: String,
        lane: LaneState, laneSince: Date, weather: DiaryWeather?, block: [String]? = nil, stampedAt: Date? = nil,
        restoredAt: Date? = nil, restores: Int = 0, mood: Double? = nil, utcOffset: Int, location: EntryLocation? = nil,
        photos: [String] = []
    ) {
        (self.mood, self.utcOffset, self.location, self.photos) = (mood, utcOffset, location, photos)
        (self.id, self.path, self.title, self.excerpt, self.time) = (id, path, title, excerpt, time)
        (self.dayOnly, self.timeSource, self.lane, self.laneSince, self.weather) = (
            dayOnly, timeSource, lane, laneSince, weather
        )
        (self.block, self.stampedAt, self.restoredAt, self.restores) = (block, stampedAt, restoredAt, restores)
    }
}

/// The diary index: every entry with its title, time, lane and weather, and its text for search. The batches write
/// it beside the memory of stamps (`StampMemory.remember`); this is what comes before a file is read, and the
/// reads.
///
/// Synchronous, like `StampMemory`: called on the thread pool (`DiaryIndex` reads through it), never from async
/// code.
package protocol DiaryStore: Sendable {
    /// The versions indexed for `paths` (a batch asks once, and does not read again what has not changed).
    func indexedVersions(_ paths: [String]) -> [String: String]
    /// Entries seen and not yet read: a row from their name and modification time, unless they have one.
    func notice(_ paths: [String], inbox: String, at now: Date)
    /// A page of entries, newest first, and the cursor of the next page (nil on the last).
    func entries(_ query: EntryQuery) throws -> (entries: [IndexedEntry], next: EntryQuery.Cursor?)
    /// One entry, with what the memory holds of it.
    func entry(_ path: String) throws -> IndexedEntry?
    /// How many entries each lane holds.
    func laneCounts() throws -> [Lane: Int]
    /// One step of merging the text index, when the inbox is idle (`.mergeIndex`): whether it merged anything (then
    /// another step may).
    func mergeText() -> Bool
}

extension DiaryStore {
    /// Nothing to merge (a store in memory).
    package func mergeText() -> Bool { false }
}

extension FileVersion {
    /// `device:inode:size:mtime`: how the diary index keeps the version it read.
    package var indexed: String {
        "\(self.device):\(self.inode):\(self.size):\(self.modifiedSeconds).\(self.modifiedNanoseconds)"
    }
}
