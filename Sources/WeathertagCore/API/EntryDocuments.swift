import FoundationEssentials

/// `GET /v1/entries`: a page of entries, newest first, and where the next page starts (null on the last page).
package struct EntryListDocument: Codable, Sendable, Equatable {
    package var entries: [EntryDocument]
    package var nextCursor: String?

    package init(entries: [EntryDocument], nextCursor: String?) {
        self.entries = entries
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case entries
        case nextCursor = "next_cursor"
    }
}

/// One entry of the diary index. `GET /v1/entries/{path}` adds `block`, `remedy` and `history`.
package struct EntryDocument: Codable, Sendable, Equatable {
    /// Relative to the inbox.
    package var path: String
    package var title: String
    /// When it was written: RFC 3339 with its own clock's offset (the one its text names, else the machine's).
    package var time: String
    /// Only a day is known (`time` is its midnight).
    package var dayOnly: Bool
    /// Where the time came from: `front_matter:<key>`, `file_name` or `modification_time`.
    package var timeSource: String
    package var lane: String
    package var reason: String
    /// What exactly, in English.
    package var detail: String?
    /// The same as a message of the catalog and what fills it (`Said.nodes`), so that a view says it in its reader's
    /// language; nil where `detail` is data (a lock file, a service's error) or there is none.
    package var detailMessage: [Said.Node]?
    /// The lane and reason in one sentence.
    package var why: String
    /// The first lines after the title.
    package var excerpt: String
    package var weather: DiaryWeather?
    /// The front matter's `mood`, as a number (`DiaryMood`).
    package var mood: Double?
    /// Where it was written, as `privacy` lets it be shown (`EntryLocation`): rounded coordinates, or only a privacy
    /// zone's `name`.
    package var location: EntryLocation?
    /// The pictures its text shows (`EntryPhotos`), as paths relative to the inbox; nil when it shows none.
    package var photos: [String]?
    /// The weather block as it stands in the file (its lines), when the daemon remembers it.
    package var block: [String]?
    /// What would change its lane.
    package var remedy: String?
    package var history: EntryHistoryDocument?

    package init(
        path: String, title: String, time: String, dayOnly: Bool, timeSource: String, lane: String, reason: String,
        detail: String?, why: String, excerpt: String, weather: DiaryWeather?, mood: Double? = nil,
        block: [String]? = nil,
        remedy: String? = nil, history: EntryHistoryDocument? = nil, location: EntryLocation? = nil,
        photos: [String]? = nil, detailMessage: [Said.Node]? = nil
    ) {
        self.detailMessage = detailMessage
        self.location = location
        self.photos = photos
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
        case lane, reason, detail, why, excerpt, weather, mood, location, photos, block, remedy, history
        case detailMessage = "detail_message"
    }
}

/// What happened to an entry's block over time (from the daemon's memory).
package struct EntryHistoryDocument: Codable, Sendable, Equatable {
    package var stampedAt: String?
    package var restoredAt: String?
    package var restores: Int
    /// Since when it is in its lane.
    package var laneSince: String?

    package init(stampedAt: String?, restoredAt: String?, restores: Int, laneSince: String?) {
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
    package var code: String {
        switch self {
        case .frontMatter(let key): return "front_matter:" + key
        case .fileName: return "file_name"
        case .modificationTime: return "modification_time"
        case .given: return "given"
        }
    }
}

/// The lanes' counts and each lane's latest entries (in `GET /v1/status` and `weathertag status`).
package struct LanesDocument: Codable, Sendable, Equatable {
    package struct Lane: Codable, Sendable, Equatable {
        package var count: Int
        package var latest: [EntryDocument]
        /// In the left-alone lane: the templates holding a block weathertag wrote there (`LaneReason.stampedTemplate`),
        /// up to `stampedTemplatesListed`, each to be cleaned with `weathertag stamp --remove`; nil elsewhere.
        package var stampedTemplates: [String]?

        package init(count: Int, latest: [EntryDocument], stampedTemplates: [String]? = nil) {
            self.count = count
            self.latest = latest
            self.stampedTemplates = stampedTemplates
        }

        enum CodingKeys: String, CodingKey {
            case count, latest
            case stampedTemplates = "stamped_templates"
        }
    }

    package var waiting: Lane
    package var stamped: Lane
    package var backdated: Lane
    package var leftAlone: Lane
    /// Entries holding weather from another time (`Lane.otherTime`).
    package var otherTime: Lane

    /// How many stamped templates are named.
    package static let stampedTemplatesListed = 50

    /// The templates holding a block weathertag wrote (the left-alone lane's).
    package var stampedTemplates: [String] { self.leftAlone.stampedTemplates ?? [] }

    package init(
        waiting: Lane, stamped: Lane, backdated: Lane, leftAlone: Lane, otherTime: Lane = Lane(count: 0, latest: [])
    ) {
        self.waiting = waiting
        self.stamped = stamped
        self.backdated = backdated
        self.leftAlone = leftAlone
        self.otherTime = otherTime
    }

    enum CodingKeys: String, CodingKey {
        case waiting, stamped, backdated
        case leftAlone = "left_alone"
        case otherTime = "other_time"
    }

    /// A document of a daemon that knew no lane of other times reads with it empty.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.waiting = try container.decode(Lane.self, forKey: .waiting)
        self.stamped = try container.decode(Lane.self, forKey: .stamped)
        self.backdated = try container.decode(Lane.self, forKey: .backdated)
        self.leftAlone = try container.decode(Lane.self, forKey: .leftAlone)
        self.otherTime = try container.decodeIfPresent(Lane.self, forKey: .otherTime) ?? Lane(count: 0, latest: [])
    }
}
