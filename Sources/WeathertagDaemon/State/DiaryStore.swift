import FoundationEssentials
import WeathertagCore

/// One entry to index after a batch (or when it is first seen).
public struct DiaryIndexItem: Sendable {
    public var path: String
    /// The file's version when it was read; nil when it was not read (its lane is all there is to say).
    public var version: FileVersion?
    /// What was read; nil: only the lane changes (or a row is made from its name until it is read).
    public var entry: DiaryEntry?
    public var lane: LaneState
    /// For a row made before the file is read: its time from its name, else its modification time.
    public var placeholderTime: EntryTime

    public init(
        path: String, version: FileVersion?, entry: DiaryEntry?, lane: LaneState, placeholderTime: EntryTime
    ) {
        self.path = path
        self.version = version
        self.entry = entry
        self.lane = lane
        self.placeholderTime = placeholderTime
    }
}

/// One row of the index.
public struct IndexedEntry: Sendable, Equatable {
    public var id: Int64
    public var path: String
    public var title: String
    public var excerpt: String
    public var time: Date
    /// The entry's own clock's offset from UTC at `time`, in seconds (`EntryTime.utcOffset`).
    public var utcOffset: Int
    public var dayOnly: Bool
    public var timeSource: String
    public var lane: LaneState
    public var laneSince: Date
    public var weather: DiaryWeather?
    /// The front matter's mood (`DiaryMood`).
    public var mood: Double?
    /// From the memory (`GET /v1/entries/{path}` only).
    public var block: [String]?
    public var stampedAt: Date?
    public var restoredAt: Date?
    public var restores: Int = 0

    public init(
        id: Int64, path: String, title: String, excerpt: String, time: Date, dayOnly: Bool, timeSource: String,
        lane: LaneState, laneSince: Date, weather: DiaryWeather?, block: [String]? = nil, stampedAt: Date? = nil,
        restoredAt: Date? = nil, restores: Int = 0, mood: Double? = nil, utcOffset: Int
    ) {
        (self.mood, self.utcOffset) = (mood, utcOffset)
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
public protocol DiaryStore: Sendable {
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
}

extension FileVersion {
    /// `device:inode:size:mtime`: how the diary index keeps the version it read.
    public var indexed: String {
        "\(self.device):\(self.inode):\(self.size):\(self.modifiedSeconds).\(self.modifiedNanoseconds)"
    }
}
