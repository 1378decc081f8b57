/// `GET /v1/status`: what the daemon is doing, for `weathertag status` and scripts.
package struct StatusDocument: Codable, Sendable, Equatable {
    package var startedAt: String
    package var uptimeSeconds: Double
    package var inbox: String
    package var providers: [Provider]
    package var weather: TagDocument?
    package var cache: Cache
    /// Every weather service's calls, in all and by source type (absent from daemons before it).
    package var services: Services?
    /// The same totals under the name they had when OpenWeather was the only service: kept for the scripts that
    /// read it (deprecated: read `services`).
    package var openweather: Services
    package var entries: Entries
    package var lastError: String?
    package var lastErrorAt: String?
    /// The diary index's lanes (null without the state database).
    package var lanes: LanesDocument?
    /// The weather of back-dated entries (null with `history.enabled` off).
    package var history: History?
    /// The `conflict` lane: sync tools' conflict copies in the inbox, never stamped and never listed as entries
    /// (absent from daemons before it).
    package var conflicts: [Conflict]?
    /// The page the daemon keeps current (null without `timeline.output`).
    package var timeline: Timeline?

    enum CodingKeys: String, CodingKey {
        case startedAt = "started_at"
        case uptimeSeconds = "uptime_seconds"
        case inbox, providers, weather, cache, services, openweather, entries
        case lastError = "last_error"
        case lastErrorAt = "last_error_at"
        case lanes, history, conflicts, timeline
    }

    /// `timeline.output`: where the page is, when it was last written and with how many entries, and why its last
    /// write failed (null when it did not).
    package struct Timeline: Codable, Sendable, Equatable {
        package var path: String
        package var writtenAt: String?
        package var entries: Int?
        /// Whether the diary changed since (a write is due).
        package var stale: Bool
        package var lastError: String?

        enum CodingKeys: String, CodingKey {
            case path
            case writtenAt = "written_at"
            case entries, stale
            case lastError = "last_error"
        }

        package init(path: String, writtenAt: String?, entries: Int?, stale: Bool, lastError: String?) {
            (self.path, self.writtenAt, self.entries, self.stale, self.lastError) = (
                path, writtenAt, entries, stale, lastError
            )
        }
    }

    /// A sync tool's conflict copy: where it is, the entry it is a version of (both relative to the inbox), which
    /// tool made it and what to do.
    package struct Conflict: Codable, Sendable, Equatable {
        package var path: String
        package var entry: String
        package var tool: String
        package var remedy: String

        package init(_ conflict: SyncConflict) {
            (self.path, self.entry, self.tool, self.remedy) = (
                conflict.copy, conflict.entry, conflict.tool.rawValue, conflict.remedy
            )
        }
    }

    package init(
        startedAt: String, uptimeSeconds: Double, inbox: String, providers: [Provider], weather: TagDocument?,
        cache: Cache, services: Services, entries: Entries, lastError: String?, lastErrorAt: String?,
        lanes: LanesDocument? = nil
    ) {
        self.startedAt = startedAt
        self.uptimeSeconds = uptimeSeconds
        self.inbox = inbox
        self.providers = providers
        self.weather = weather
        self.cache = cache
        self.services = services
        var totals = services
        totals.bySource = nil
        self.openweather = totals
        self.entries = entries
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
        self.lanes = lanes
    }

    /// History's progress: entries waiting for it, what it has asked, and what its budget has left.
    package struct History: Codable, Sendable, Equatable {
        /// `open-meteo` or `openweather`.
        package var source: String
        /// Back-dated entries waiting for the weather of their time.
        package var waiting: Int
        /// Requests this process made.
        package var requests: Int
        /// Open-Meteo's weighted calls left of history's daily share (the tighter of the day's and the month's), or
        /// the timemachine's calls left today; null before the first request.
        package var budgetLeft: Double?

        enum CodingKeys: String, CodingKey {
            case source, waiting, requests
            case budgetLeft = "budget_left"
        }

        package init(source: String, waiting: Int, requests: Int, budgetLeft: Double?) {
            self.source = source
            self.waiting = waiting
            self.requests = requests
            self.budgetLeft = budgetLeft
        }
    }

    /// One location provider's health, then what the provider itself tells (`details`, as extra string members).
    package struct Provider: Codable, Sendable, Equatable {
        package var type: String
        package var ok: Bool
        package var attempts: Int
        package var failures: Int
        package var lastSuccessAt: String?
        package var lastError: String?
        package var lastErrorAt: String?
        package var skippedUntil: String?
        package var lastPosition: LocationDocument?
        /// Its position was the one taken the last time the chain answered.
        package var won = false
        /// The last position's accuracy in metres, as `most_accurate` ranks it (5000 when it gave none).
        package var accuracy: Double?
        /// How old the last position is, in seconds.
        package var ageSeconds: Double?
        package var details: [String: String]

        package init(
            type: String, ok: Bool, attempts: Int, failures: Int, lastSuccessAt: String?, lastError: String?,
            lastErrorAt: String?, skippedUntil: String?, lastPosition: LocationDocument?, details: [String: String]
        ) {
            (self.type, self.ok, self.attempts, self.failures) = (type, ok, attempts, failures)
            (self.lastSuccessAt, self.lastError, self.lastErrorAt) = (lastSuccessAt, lastError, lastErrorAt)
            (self.skippedUntil, self.lastPosition, self.details) = (skippedUntil, lastPosition, details)
        }

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(_ string: String) { self.stringValue = string }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        private static let fixedKeys = [
            "type", "ok", "attempts", "failures", "last_success_at", "last_error", "last_error_at", "skipped_until",
            "last_position", "won", "accuracy_m", "age_seconds",
        ]

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(self.type, forKey: Key("type"))
            try container.encode(self.ok, forKey: Key("ok"))
            try container.encode(self.attempts, forKey: Key("attempts"))
            try container.encode(self.failures, forKey: Key("failures"))
            try container.encodeIfPresent(self.lastSuccessAt, forKey: Key("last_success_at"))
            try container.encodeIfPresent(self.lastError, forKey: Key("last_error"))
            try container.encodeIfPresent(self.lastErrorAt, forKey: Key("last_error_at"))
            try container.encodeIfPresent(self.skippedUntil, forKey: Key("skipped_until"))
            try container.encodeIfPresent(self.lastPosition, forKey: Key("last_position"))
            try container.encode(self.won, forKey: Key("won"))
            try container.encodeIfPresent(self.accuracy, forKey: Key("accuracy_m"))
            try container.encodeIfPresent(self.ageSeconds, forKey: Key("age_seconds"))
            for (key, value) in self.details.sorted(by: { $0.key < $1.key }) where !Self.fixedKeys.contains(key) {
                try container.encode(value, forKey: Key(key))
            }
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            self.type = try container.decode(String.self, forKey: Key("type"))
            self.ok = try container.decode(Bool.self, forKey: Key("ok"))
            self.attempts = try container.decode(Int.self, forKey: Key("attempts"))
            self.failures = try container.decode(Int.self, forKey: Key("failures"))
            self.lastSuccessAt = try container.decodeIfPresent(String.self, forKey: Key("last_success_at"))
            self.lastError = try container.decodeIfPresent(String.self, forKey: Key("last_error"))
            self.lastErrorAt = try container.decodeIfPresent(String.self, forKey: Key("last_error_at"))
            self.skippedUntil = try container.decodeIfPresent(String.self, forKey: Key("skipped_until"))
            self.lastPosition = try container.decodeIfPresent(LocationDocument.self, forKey: Key("last_position"))
            self.won = try container.decodeIfPresent(Bool.self, forKey: Key("won")) ?? false
            self.accuracy = try container.decodeIfPresent(Double.self, forKey: Key("accuracy_m"))
            self.ageSeconds = try container.decodeIfPresent(Double.self, forKey: Key("age_seconds"))
            var details: [String: String] = [:]
            for key in container.allKeys where !Self.fixedKeys.contains(key.stringValue) {
                if let value = try? container.decode(String.self, forKey: key) { details[key.stringValue] = value }
            }
            self.details = details
        }
    }

    package struct Cache: Codable, Sendable, Equatable {
        package var places: Int
        package var hits: Int
        package var misses: Int
        package var lastFetchedAt: String?
        package var ageSeconds: Double?

        enum CodingKeys: String, CodingKey {
            case places, hits, misses
            case lastFetchedAt = "last_fetched_at"
            case ageSeconds = "age_seconds"
        }

        package init(places: Int, hits: Int, misses: Int, lastFetchedAt: String?, ageSeconds: Double?) {
            self.places = places
            self.hits = hits
            self.misses = misses
            self.lastFetchedAt = lastFetchedAt
            self.ageSeconds = ageSeconds
        }
    }

    /// The weather services' calls (current weather, history, place names, the air) since start and today, in all
    /// and by source type; OpenWeather's icon downloads; the last error of current weather and when it is asked again.
    package struct Services: Codable, Sendable, Equatable {
        package var calls: Int
        package var callsToday: Int
        package var iconDownloads: Int
        package var lastError: String?
        package var nextAttemptAt: String?
        /// By source type: `{"open-meteo": {"calls": 3, "calls_today": 3}}`.
        package var bySource: [String: SourceCalls]?

        /// One source's calls.
        package struct SourceCalls: Codable, Sendable, Equatable {
            package var calls: Int
            package var callsToday: Int

            enum CodingKeys: String, CodingKey {
                case calls
                case callsToday = "calls_today"
            }

            package init(calls: Int, callsToday: Int) {
                self.calls = calls
                self.callsToday = callsToday
            }
        }

        enum CodingKeys: String, CodingKey {
            case calls
            case callsToday = "calls_today"
            case iconDownloads = "icon_downloads"
            case lastError = "last_error"
            case nextAttemptAt = "next_attempt_at"
            case bySource = "by_source"
        }

        private struct SourceKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        /// `by_source` only where there is one: `openweather` is written as it always was.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.calls, forKey: .calls)
            try container.encode(self.callsToday, forKey: .callsToday)
            try container.encode(self.iconDownloads, forKey: .iconDownloads)
            try container.encode(self.lastError, forKey: .lastError)
            try container.encode(self.nextAttemptAt, forKey: .nextAttemptAt)
            // (Our encoder writes a nil optional as null: the key is left out by hand.) The sources in the order of
            // their names: a dictionary writes its keys in hash order, which changes from run to run.
            if let bySource = self.bySource {
                var sources = container.nestedContainer(keyedBy: SourceKey.self, forKey: .bySource)
                for (source, calls) in bySource.sorted(by: { $0.key < $1.key }) {
                    try sources.encode(calls, forKey: SourceKey(stringValue: source))
                }
            }
        }

        package init(
            bySource: [String: SourceCalls], iconDownloads: Int, lastError: String?, nextAttemptAt: String?
        ) {
            self.calls = bySource.values.reduce(0) { $0 + $1.calls }
            self.callsToday = bySource.values.reduce(0) { $0 + $1.callsToday }
            self.iconDownloads = iconDownloads
            self.lastError = lastError
            self.nextAttemptAt = nextAttemptAt
            self.bySource = bySource
        }
    }

    package struct Entries: Codable, Sendable, Equatable {
        package var stamped: Int
        /// Came back without their block and got the remembered one back (never new weather).
        package var restored: Int
        package var alreadyStamped: Int
        package var skipped: Int
        /// Written before what current weather can speak for, left alone.
        package var backdated: Int
        package var waiting: Int
        package var lastScanAt: String?

        enum CodingKeys: String, CodingKey {
            case stamped, restored
            case alreadyStamped = "already_stamped"
            case skipped, backdated, waiting
            case lastScanAt = "last_scan_at"
        }

        package init(
            stamped: Int, restored: Int, alreadyStamped: Int, skipped: Int, backdated: Int, waiting: Int,
            lastScanAt: String?
        ) {
            self.stamped = stamped
            self.restored = restored
            self.alreadyStamped = alreadyStamped
            self.skipped = skipped
            self.backdated = backdated
            self.waiting = waiting
            self.lastScanAt = lastScanAt
        }
    }
}
