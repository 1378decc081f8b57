import FoundationEssentials

/// `GET /v1/entries`: a page of entries, newest first, and where the next page starts (null on the last page).
public struct EntryListDocument: Codable, Sendable, Equatable {
    public var entries: [EntryDocument]
    public var nextCursor: String?

    public init(entries: [EntryDocument], nextCursor: String?) {
        self.entries = entries
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case entries
        case nextCursor = "next_cursor"
    }
}

/// One entry of the diary index. `GET /v1/entries/{path}` adds `block`, `remedy` and `history`.
public struct EntryDocument: Codable, Sendable, Equatable {
    /// Relative to the inbox.
    public var path: String
    public var title: String
    /// When it was written: RFC 3339 with its own clock's offset (the one its text names, else the machine's).
    public var time: String
    /// Only a day is known (`time` is its midnight).
    public var dayOnly: Bool
    /// Where the time came from: `front_matter:<key>`, `file_name` or `modification_time`.
    public var timeSource: String
    public var lane: String
    public var reason: String
    public var detail: String?
    /// The lane and reason in one sentence.
    public var why: String
    /// The first lines after the title.
    public var excerpt: String
    public var weather: DiaryWeather?
    /// The front matter's `mood`, as a number (`DiaryMood`).
    public var mood: Double?
    /// The weather block as it stands in the file (its lines), when the daemon remembers it.
    public var block: [String]?
    /// What would change its lane.
    public var remedy: String?
    public var history: EntryHistoryDocument?

    public init(
        path: String, title: String, time: String, dayOnly: Bool, timeSource: String, lane: String, reason: String,
        detail: String?, why: String, excerpt: String, weather: DiaryWeather?, mood: Double? = nil,
        block: [String]? = nil,
        remedy: String? = nil, history: EntryHistoryDocument? = nil
    ) {
        self.path = path
        self.title = title
        self.time = time
        self.dayOnly = dayOnly
        self.timeSource = timeSource
        self.lane = lane
        self.reason = reason
        self.detail = detail
        self.why = why
        self.excerpt = excerpt
        self.weather = weather
        self.mood = mood
        self.block = block
        self.remedy = remedy
        self.history = history
    }

    enum CodingKeys: String, CodingKey {
        case path, title, time
        case dayOnly = "day_only"
        case timeSource = "time_source"
        case lane, reason, detail, why, excerpt, weather, mood, block, remedy, history
    }
}

/// What happened to an entry's block over time (from the daemon's memory).
public struct EntryHistoryDocument: Codable, Sendable, Equatable {
    public var stampedAt: String?
    public var restoredAt: String?
    public var restores: Int
    /// Since when it is in its lane.
    public var laneSince: String?

    public init(stampedAt: String?, restoredAt: String?, restores: Int, laneSince: String?) {
        self.stampedAt = stampedAt
        self.restoredAt = restoredAt
        self.restores = restores
        self.laneSince = laneSince
    }

    enum CodingKeys: String, CodingKey {
        case stampedAt = "stamped_at"
        case restoredAt = "restored_at"
        case restores
        case laneSince = "lane_since"
    }
}

extension EntryTime.Source {
    /// `front_matter:date`, `file_name`, `modification_time`, `given`.
    public var code: String {
        switch self {
        case .frontMatter(let key): return "front_matter:" + key
        case .fileName: return "file_name"
        case .modificationTime: return "modification_time"
        case .given: return "given"
        }
    }
}

/// The lanes' counts and each lane's latest entries (in `GET /v1/status` and `weathertag status`).
public struct LanesDocument: Codable, Sendable, Equatable {
    public struct Lane: Codable, Sendable, Equatable {
        public var count: Int
        public var latest: [EntryDocument]

        public init(count: Int, latest: [EntryDocument]) {
            self.count = count
            self.latest = latest
        }
    }

    public var waiting: Lane
    public var stamped: Lane
    public var backdated: Lane
    public var leftAlone: Lane

    public init(waiting: Lane, stamped: Lane, backdated: Lane, leftAlone: Lane) {
        self.waiting = waiting
        self.stamped = stamped
        self.backdated = backdated
        self.leftAlone = leftAlone
    }

    enum CodingKeys: String, CodingKey {
        case waiting, stamped, backdated
        case leftAlone = "left_alone"
    }
}
