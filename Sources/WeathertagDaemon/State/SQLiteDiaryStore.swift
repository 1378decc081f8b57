import FoundationEssentials
import Glibc
import WeathertagCore
import WeathertagSQLite

/// The diary index in the state database, as the API and the command line read it (tables `diary` and
/// `diary_text`, written with the memory of stamps: `DiaryTables`).
package struct SQLiteDiaryStore: DiaryStore {
    let database: StateDatabase

    /// The versions indexed for `paths` (a batch asks once, and does not read again what has not changed).
    package func indexedVersions(_ paths: [String]) -> [String: String] {
        (try? self.database.pool.read { db in try self.indexedVersions(db, paths) }) ?? [:]
    }

    /// The same, in a transaction of the caller's.
    func indexedVersions(_ db: Database, _ paths: [String]) throws -> [String: String] {
        guard !paths.isEmpty else { return [:] }
        let rows = try Row.fetchAll(
            db, select: "SELECT path, version FROM diary WHERE version IS NOT NULL AND path", in: paths)
        return Dictionary(rows.map { ($0["path"], $0["version"]) }, uniquingKeysWith: { first, _ in first })
    }

    /// Entries seen and not yet read (`paths` relative to `inbox`): a row from their name and modification time,
    /// lane `waiting`, unless they have one. Names no longer there are passed over.
    package func notice(_ paths: [String], inbox: String, at now: Date = Date()) {
        guard !paths.isEmpty else { return }
        // Looked up first, outside a write transaction: one that waits may have its row already (read before it
        // changed, or handed over before).
        let known: Set<String> =
            (try? self.database.pool.read { db in
                var known: Set<String> = []
                let statement = try db.cachedStatement(sql: "SELECT 1 FROM diary WHERE path = ?")
                for path in paths where try Bool.fetchOne(statement, arguments: [path]) != nil { known.insert(path) }
                return known
            }) ?? []
        let missing = paths.filter { !known.contains($0) }
        guard !missing.isEmpty else { return }
        self.database.write("index new entries") { db in
            for path in missing {
                var info = stat()
                guard lstat(inbox + "/" + path, &info) == 0 else { continue }
                let modified = Date(
                    timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
                let fileName = Paths.fileName(path)
                let item = DiaryIndexItem(
                    path: path, version: nil, entry: nil, lane: .queued,
                    placeholderTime: EntryTime.of(
                        fields: [:], fileName: fileName, modified: modified, timeZone: .current))
                try DiaryTables.insertPlaceholder(db, item, now: now)
            }
        }
    }

    /// One step of the text index's merge (`DiaryTables.mergeText`), in a write transaction of its own.
    package func mergeText() -> Bool {
        var merged = false
        self.database.write("merge the text index") { db in merged = try DiaryTables.mergeText(db) }
        return merged
    }

    /// A page of entries, newest first, and the cursor of the next page (nil on the last). Rows are keyed by time
    /// (`DiaryOrder`): a page is a walk down the key, and a search lets FTS5 walk its matches the same way, so
    /// either stops after `limit` rows however many match.
    package func entries(_ query: EntryQuery) throws -> (entries: [IndexedEntry], next: EntryQuery.Cursor?) {
        var conditions: [String] = []
        var arguments: [any DatabaseValueConvertible] = []
        var sql = "SELECT d.* FROM diary d"
        var order = "d.id"
        if let text = query.text, let expression = EntryQuery.searchExpression(text) {
            sql = "SELECT d.* FROM diary_text t JOIN diary d ON d.id = t.rowid"
            order = "t.rowid"
            conditions.append("diary_text MATCH ?")
            arguments.append(expression)
        }
        if let since = query.since {
            conditions.append("\(order) >= ?")
            arguments.append(DiaryOrder.key(since))
        }
        if let until = query.until {
            conditions.append("\(order) < ?")
            arguments.append(DiaryOrder.key(until) + DiaryOrder.slots)
        }
        // Days on each entry's own calendar: the key range above is widened to every clock's day, this is exact.
        if let day = query.sinceDay {
            conditions.append("d.local_day >= ?")
            arguments.append(day)
        }
        if let day = query.untilDay {
            conditions.append("d.local_day <= ?")
            arguments.append(day)
        }
        if let cursor = query.cursor {
            conditions.append("\(order) < ?")
            arguments.append(cursor.id)
        }
        if let condition = query.condition {
            conditions.append(
                "(d.condition LIKE ? ESCAPE '\\' OR d.description LIKE '%' || ? || '%' ESCAPE '\\')")
            arguments += [Self.likeEscaped(condition), Self.likeEscaped(condition)]
        }
        if let place = query.place {
            conditions.append(
                "(d.place LIKE ? ESCAPE '\\' OR d.region LIKE ? ESCAPE '\\' OR d.country LIKE ? ESCAPE '\\')")
            arguments += Array(repeating: Self.likeEscaped(place), count: 3)
        }
        if let day = query.onThisDay {
            conditions.append("substr(d.local_day, 6) = ?")
            arguments.append(day.description)
        }
        if let lane = query.lane {
            conditions.append("d.lane = ?")
            arguments.append(lane.rawValue)
        }
        if let reason = query.reason {
            conditions.append("d.reason = ?")
            arguments.append(reason.rawValue)
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY \(order) DESC LIMIT ?"
        arguments.append(query.limit + 1)
        let rows = try self.database.pool.read { db in
            try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments))
        }
        let entries = rows.prefix(query.limit).map(Self.indexed)
        let next = rows.count > query.limit ? entries.last.map { EntryQuery.Cursor(id: $0.id) } : nil
        return (entries, next)
    }

    /// One entry, with what the memory holds of it.
    package func entry(_ path: String) throws -> IndexedEntry? {
        try self.database.pool.read { db in
            guard
                var entry = try Row.fetchOne(db, sql: "SELECT * FROM diary WHERE path = ?", arguments: [path])
                    .map(Self.indexed)
            else { return nil }
            if let memory = try Row.fetchOne(
                db, sql: "SELECT block, stamped_at, restored_at, restores FROM entry WHERE path = ?",
                arguments: [path])
            {
                let block: String = memory["block"]
                entry.block = block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                entry.stampedAt = (memory["stamped_at"] as Double?).map(Date.init(timeIntervalSince1970:))
                entry.restoredAt = (memory["restored_at"] as Double?).map(Date.init(timeIntervalSince1970:))
                entry.restores = memory["restores"]
            }
            return entry
        }
    }

    /// How many entries each lane holds.
    package func laneCounts() throws -> [Lane: Int] {
        try self.database.pool.read { db in
            var counts: [Lane: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT lane, count(*) AS n FROM diary GROUP BY lane") {
                if let lane = Lane(rawValue: row["lane"]) { counts[lane] = row["n"] }
            }
            return counts
        }
    }

    private static func indexed(_ row: Row) -> IndexedEntry {
        let fields: [String?] = [
            row["condition"], row["description"], row["icon"], row["units"], row["place"], row["region"],
            row["country"], row["observed_at"], row["kind"],
        ]
        let temperature: Double? = row["temperature"]
        let aqi: Int? = row["aqi"]
        let weather =
            fields.allSatisfy({ $0 == nil }) && temperature == nil && aqi == nil
            ? nil
            : DiaryWeather(
                condition: row["condition"], description: row["description"], icon: row["icon"],
                temperature: temperature, units: row["units"], place: row["place"], region: row["region"],
                country: row["country"], observedAt: row["observed_at"], kind: row["kind"], aqi: aqi)
        let time = Date(timeIntervalSince1970: row["time"])
        let (latitude, longitude, name): (Double?, Double?, String?) = (
            row["latitude"], row["longitude"], row["location_name"]
        )
        return IndexedEntry(
            id: row["id"], path: row["path"], title: row["title"], excerpt: row["excerpt"],
            time: time, dayOnly: row["day_only"], timeSource: row["time_source"],
            lane: Self.lane(row),
            laneSince: Date(timeIntervalSince1970: row["lane_since"]), weather: weather, mood: row["mood"],
            utcOffset: (row["utc_offset"] as Int?) ?? Zone.current.secondsFromGMT(for: time),
            location: latitude == nil && longitude == nil && name == nil
                ? nil : EntryLocation(latitude: latitude, longitude: longitude, name: name),
            photos: (row["photos"] as String?)?.split(separator: "\n").map(String.init) ?? [])
    }

    /// The lane an index row gives; a lane or reason this version does not know reads as the most general.
    private static func lane(_ row: Row) -> LaneState {
        let lane = Lane(rawValue: row["lane"]) ?? .waiting
        // (Text an older version kept reads as verbatim words.)
        let detail = (row["detail"] as String?).map(Said.init(decoding:))
        return LaneState(lane, .indexed(row["reason"], in: lane), detail: detail)
    }

    private static func likeEscaped(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("%", with: "\\%")
            .replacing("_", with: "\\_")
    }
}
