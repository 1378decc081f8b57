import FoundationEssentials
import WeathertagCore
import WeathertagSQLite

/// The diary index: every entry in the inbox with its title, time, lane and weather, and its text for full-text
/// search (SQLite FTS5), in the state database beside the memory of blocks.
///
/// Kept in step by the same events as the memory: a batch writes what it read in its one transaction, a listing
/// drops what is gone, renames move rows. Like the memory it is rebuilt from the files when missing: every file
/// is read once at start-up, and one whose version (inode, size, modification time) is indexed already is not
/// parsed again.
enum DiaryTables {
    static func createDiaryIndex(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE diary (
                    id INTEGER PRIMARY KEY,         -- the entry's time, ordered: DiaryOrder.key (newest = largest)
                    path TEXT NOT NULL UNIQUE,      -- relative to the inbox
                    version TEXT,                   -- device:inode:size:mtime when read; NULL: seen, not read yet
                    title TEXT NOT NULL,
                    excerpt TEXT NOT NULL DEFAULT '',
                    time REAL NOT NULL,             -- when it was written (Unix time)
                    day_only INTEGER NOT NULL DEFAULT 0,
                    time_source TEXT NOT NULL,
                    lane TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    detail TEXT,
                    lane_since REAL NOT NULL,
                    condition TEXT, description TEXT, icon TEXT, temperature REAL, units TEXT,
                    place TEXT, region TEXT, country TEXT, observed_at TEXT, kind TEXT, aqi INTEGER
                );
                CREATE INDEX diary_by_lane ON diary (lane, id);
                -- Title, text and place, by the diary row's id: FTS5 walks its matches newest first and stops at
                -- a page. unicode61 folds case and (with 2) diacritics; Han, Kana and Hangul are written as pairs
                -- of letters (SearchText.indexed).
                CREATE VIRTUAL TABLE diary_text USING fts5 (
                    title, body, place, tokenize = 'unicode61 remove_diacritics 2'
                );
                """)
    }

    /// `local_day`: the day an entry was written on its own clock (`2019-05-01`, in the zone its time was read
    /// in), for "on this day" (`diary_by_month_day`, by its `MM-DD`). Rows indexed before it are read again: the
    /// index is emptied and filled from the files, as after a lost database.
    static func addLocalDay(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE diary ADD COLUMN local_day TEXT;
                ALTER TABLE diary ADD COLUMN mood REAL;
                CREATE INDEX diary_by_month_day ON diary (substr(local_day, 6), id);
                """)
        try Self.clearIndex(db)
    }

    /// `utc_offset`: the entry's own clock's offset from UTC at its time, in seconds (`EntryTime.utcOffset`): the
    /// wall-clock time it was written is `time + utc_offset`. The index is read again to fill it.
    static func addOwnOffset(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE diary ADD COLUMN utc_offset INTEGER")
        try Self.clearIndex(db)
    }

    /// `latitude`, `longitude` and `location_name`: where the entry says it was written (`EntryLocation`), for the
    /// map; `photos`: the pictures its text shows (`EntryPhotos`, their links one a line). The index is read again to
    /// fill them.
    static func addLocation(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE diary ADD COLUMN latitude REAL;
                ALTER TABLE diary ADD COLUMN longitude REAL;
                ALTER TABLE diary ADD COLUMN location_name TEXT;
                ALTER TABLE diary ADD COLUMN photos TEXT;
                """)
        try Self.clearIndex(db)
    }

    /// The text table made again with combining marks as letters (`categories 'L* N* Co M*'`): unicode61 takes
    /// only letters, numbers and private-use characters by default, so a Thai tone mark (`่`, Mn) or a Khmer vowel
    /// sign (`ា`, Mc) split a word where it stood, and `ม่ว` was indexed as `ม` and `ว`. Latin's combining accents
    /// are still folded away (`remove_diacritics 2`: a decomposed `café` is `cafe`). Its merge settings as before
    /// (`mergeTextWhenIdle`); the diary's text is read again.
    static func keepMarks(_ db: Database) throws {
        try db.execute(
            sql: """
                DROP TABLE diary_text;
                CREATE VIRTUAL TABLE diary_text USING fts5 (
                    title, body, place, tokenize = "unicode61 remove_diacritics 2 categories 'L* N* Co M*'"
                );
                """)
        try Self.mergeTextWhenIdle(db)
        try Self.clearIndex(db)
    }

    static func clearIndex(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM diary; DELETE FROM diary_text")
    }

    /// A file or folder renamed inside the inbox: its rows follow (their text does not change).
    static func moveIndexed(_ db: Database, from: String, to: String) throws {
        let moved = try Row.fetchAll(
            db,
            sql: "SELECT id, path FROM diary WHERE path = ?1 OR substr(path, 1, length(?1) + 1) = ?1 || '/'",
            arguments: [from])
        for row in moved {
            let id: Int64 = row["id"]
            guard let new = PathChange.renamed(row["path"], from: from, to: to) else { continue }
            try Self.forgetIndexed(db, exactly: new)
            try db.execute(sql: "UPDATE diary SET path = ? WHERE id = ?", arguments: [new, id])
        }
    }

    /// A file or folder gone from the inbox: its rows go.
    static func forgetIndexed(_ db: Database, under path: String) throws {
        // (One statement per call: arguments go to the statements of several in turn, easy to get wrong.)
        let under = "path = ?1 OR substr(path, 1, length(?1) + 1) = ?1 || '/'"
        try db.execute(
            sql: "DELETE FROM diary_text WHERE rowid IN (SELECT id FROM diary WHERE \(under))", arguments: [path])
        try db.execute(sql: "DELETE FROM diary WHERE \(under)", arguments: [path])
    }

    private static func forgetIndexed(_ db: Database, exactly path: String) throws {
        try db.execute(
            sql: "DELETE FROM diary_text WHERE rowid IN (SELECT id FROM diary WHERE path = ?)", arguments: [path])
        try db.execute(sql: "DELETE FROM diary WHERE path = ?", arguments: [path])
    }

    /// After a full listing: rows of entries not found are dropped.
    static func reconcileIndex(_ db: Database, present: Set<String>) throws {
        let rows = try Row.fetchAll(db, sql: "SELECT id, path FROM diary")
        for row in rows where !present.contains(row["path"]) {
            let id: Int64 = row["id"]
            try db.execute(sql: "DELETE FROM diary_text WHERE rowid = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM diary WHERE id = ?", arguments: [id])
        }
    }

    /// Writes a batch's index rows (in the caller's transaction, as its last statements).
    ///
    /// The rows first, their text after: FTS5 keeps a transaction's text in memory and writes it as one segment at
    /// the commit, but any statement that opens a statement journal (an upsert does) once FTS5 has joined the
    /// transaction makes it write what it holds first (`xSavepoint`), so text written between rows became a segment
    /// for every entry, each merged again later: 1.7 times the index's SQLite time of a rebuild.
    static func index(_ db: Database, _ items: [DiaryIndexItem], at now: Date) throws {
        var text = TextChanges()
        for item in items {
            guard let entry = item.entry, let version = item.version else {
                try Self.placeholder(db, item, now: now, replacingLane: true)
                continue
            }
            let (key, staleText, hasRow) = try Self.key(db, path: item.path, time: entry.time.date)
            if let staleText { text.delete(staleText) }
            // A new row is inserted: an upsert that cannot meet its conflict cost a sixth more (most of a rebuild's
            // and a burst's rows are new).
            try db.cachedStatement(hasRow ? Self.rowUpsert : Self.rowInsert).execute(
                arguments: StatementArguments(values: Self.row(key, item, entry, version, at: now)))
            let weather = entry.weather
            let place = [weather?.place, weather?.region, weather?.country].compactMap { $0 }.joined(separator: " ")
            text.insert(key, title: entry.title, body: entry.body, place: place)
        }
        try text.write(db)
    }

    /// A read entry's row in `rowUpsert`'s order, each value made by its own type (an array literal of
    /// `any DatabaseValueConvertible` looked each one's conformance up: 15,000 instructions a row).
    private static func row(
        _ key: Int64, _ item: DiaryIndexItem, _ entry: DiaryEntry, _ version: FileVersion, at now: Date
    ) -> [DatabaseValue] {
        let weather = entry.weather
        return [
            .integer(key), item.path.databaseValue, version.indexed.databaseValue, entry.title.databaseValue,
            entry.excerpt.databaseValue, entry.time.date.timeIntervalSince1970.databaseValue,
            entry.time.dayOnly.databaseValue, entry.time.source.code.databaseValue,
            item.lane.lane.rawValue.databaseValue, item.lane.reason.rawValue.databaseValue,
            (item.lane.detail?.encoded).databaseValue, now.timeIntervalSince1970.databaseValue,
            (weather?.condition).databaseValue,
            (weather?.description).databaseValue, (weather?.icon).databaseValue, (weather?.temperature).databaseValue,
            (weather?.units).databaseValue, (weather?.place).databaseValue, (weather?.region).databaseValue,
            (weather?.country).databaseValue, (weather?.observedAt).databaseValue, (weather?.kind).databaseValue,
            (weather?.aqi).databaseValue, entry.time.localDay.databaseValue, entry.mood.databaseValue,
            entry.time.utcOffset.databaseValue, (entry.location?.latitude).databaseValue,
            (entry.location?.longitude).databaseValue, (entry.location?.name).databaseValue,
            (entry.photos.isEmpty ? nil : entry.photos.joined(separator: "\n")).databaseValue,
        ]
    }

    /// What a batch changes in `diary_text`, written after its rows (`index`): the text of rows read before goes,
    /// then the new text is added. A row's text comes after its deletion only: a path read twice in a batch, or a row
    /// moved away from a key, deletes what is waiting for that key.
    private struct TextChanges {
        private var deleted: [Int64] = []
        private var inserted: [(id: Int64, title: String, body: String, place: String)] = []

        mutating func delete(_ id: Int64) {
            self.deleted.append(id)
            self.inserted.removeAll { $0.id == id }
        }

        /// The text as the index searches it: Han, Kana and Hangul as pairs of letters (`SearchText`).
        mutating func insert(_ id: Int64, title: String, body: String, place: String) {
            self.inserted.append(
                (id, SearchText.indexed(title), SearchText.indexed(body), SearchText.indexed(place)))
        }

        func write(_ db: Database) throws {
            for id in self.deleted {
                try db.cachedStatement(sql: "DELETE FROM diary_text WHERE rowid = ?").execute(arguments: [id])
            }
            for text in self.inserted {
                try db.cachedStatement(
                    sql: "INSERT INTO diary_text (rowid, title, body, place) VALUES (?, ?, ?, ?)"
                ).execute(arguments: [text.id, text.title, text.body, text.place])
            }
        }
    }

    /// A row from the entry's name until it is read; with `replacingLane`, an existing row takes the new lane.
    static func placeholder(_ db: Database, _ item: DiaryIndexItem, now: Date, replacingLane: Bool) throws {
        if try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM diary WHERE path = ?"), arguments: [item.path])
            != nil
        {
            guard replacingLane else { return }
            try db.cachedStatement(sql: Self.laneReplacement).execute(arguments: [
                "path": item.path, "new_lane": item.lane.lane.rawValue, "new_reason": item.lane.reason.rawValue,
                "new_detail": item.lane.detail?.encoded, "new_lane_since": now.timeIntervalSince1970,
            ])
            return
        }
        try Self.insertPlaceholder(db, item, now: now)
    }

    /// A row from the entry's name, where its path has none (the caller looked; one that has is left as it is).
    static func insertPlaceholder(_ db: Database, _ item: DiaryIndexItem, now: Date) throws {
        let name = Paths.fileName(item.path)
        let title =
            name.lastIndex(ofASCII: UInt8(ascii: ".")).map { $0 == name.startIndex ? name : String(name[..<$0]) }
            ?? name
        try db.cachedStatement(
            sql: """
                INSERT INTO diary (id, path, title, time, day_only, time_source, lane, reason, detail, lane_since,
                    local_day, utc_offset)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (path) DO NOTHING
                """
        ).execute(arguments: [
            try Self.freeKey(db, time: item.placeholderTime.date), item.path, title,
            item.placeholderTime.date.timeIntervalSince1970, item.placeholderTime.dayOnly,
            item.placeholderTime.source.code, item.lane.lane.rawValue, item.lane.reason.rawValue,
            item.lane.detail?.encoded,
            now.timeIntervalSince1970, item.placeholderTime.localDay, item.placeholderTime.utcOffset,
        ])
    }

    /// The row key of `path` written at `time`: its own while its time stays; else the first free one from
    /// `DiaryOrder.key(time)` (a row read before moved there; a placeholder deleted). `staleText`: the row whose
    /// text in `diary_text` no longer holds (the path's, when it was read before; a placeholder has none), for the
    /// caller to delete. `hasRow`: the path has a row under that key (else it has none).
    private static func key(
        _ db: Database, path: String, time: Date
    ) throws -> (key: Int64, staleText: Int64?, hasRow: Bool) {
        let existing = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT id, time, version IS NOT NULL AS read FROM diary WHERE path = ?"),
            arguments: [path])
        let stale: Int64? = existing.flatMap { ($0["read"] as Bool) ? $0["id"] : nil }
        if let existing, (existing["time"] as Double) == time.timeIntervalSince1970 {
            return (existing["id"], stale, true)
        }
        // A placeholder (from the name, before the file was read) goes: the row is written whole after this, and
        // moving it first would write it three times (at a rebuild, every row).
        if let existing, stale == nil {
            try db.cachedStatement(sql: "DELETE FROM diary WHERE id = ?").execute(arguments: [existing["id"] as Int64])
        }
        let key = try Self.freeKey(db, time: time)
        if let existing, stale != nil {
            try db.cachedStatement(sql: "UPDATE diary SET id = ? WHERE id = ?").execute(arguments: [
                key, existing["id"] as Int64,
            ])
        }
        return (key, stale, stale != nil)
    }

    /// The first free row key from `DiaryOrder.key(time)`: rows of the same time take the slots after it.
    private static func freeKey(_ db: Database, time: Date) throws -> Int64 {
        var key = DiaryOrder.key(time)
        while true {
            let highest = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT max(id) FROM diary WHERE id >= ? AND id < ?"),
                arguments: [key, key + DiaryOrder.slots])
            if let highest, highest + 1 >= key + DiaryOrder.slots {
                key += DiaryOrder.slots
                continue
            }
            key = highest.map { $0 + 1 } ?? key
            break
        }
        return key
    }
}
