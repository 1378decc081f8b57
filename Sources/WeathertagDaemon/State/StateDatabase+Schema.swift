import FoundationEssentials
import WeathertagCore
import WeathertagSQLite

/// The state database's schema: its migrations, each applied once and in order (`DatabaseMigrator`).
extension StateDatabase {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: entries and their blocks") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
                    CREATE TABLE entry (
                        path TEXT PRIMARY KEY NOT NULL,  -- relative to the inbox
                        block TEXT NOT NULL,             -- the weather block's lines, joined by LF
                        stamped_at REAL,                 -- when weathertag stamped it (Unix time)
                        restored_at REAL,                -- when its block was last written back
                        restores INTEGER NOT NULL DEFAULT 0,
                        removed_at REAL                  -- when it left the inbox; forgotten some time after
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v2: history answers and calls") { db in
            try db.execute(
                sql: """
                    CREATE TABLE history (
                        place TEXT NOT NULL,    -- latitude,longitude to 2 decimals (about 1 km)
                        hour INTEGER NOT NULL,  -- Unix time / 3600
                        body BLOB NOT NULL,     -- OpenWeather's answer, as it came
                        PRIMARY KEY (place, hour)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v3: the diary index") { db in try DiaryTables.createDiaryIndex(db) }
        migrator.registerMigration("v4: Open-Meteo's hours and spends") { db in
            try db.execute(
                sql: """
                    CREATE TABLE history_period (
                        place TEXT NOT NULL,         -- latitude,longitude to 2 decimals (about 1 km)
                        first_hour INTEGER NOT NULL, -- Unix time / 3600, the first and last hour with weather
                        last_hour INTEGER NOT NULL,
                        body BLOB NOT NULL,          -- the hours, an encoded HourlySeries
                        PRIMARY KEY (place, first_hour, last_hour)
                    ) WITHOUT ROWID;
                    CREATE TABLE open_meteo_spend (
                        at REAL NOT NULL,            -- Unix time of the request
                        weight REAL NOT NULL         -- what Open-Meteo counts it as
                    );
                    """)
        }
        migrator.registerMigration("v5: every history source's hours and spends") { db in
            try Self.migrateHistoryToSources(db)
        }
        migrator.registerMigration("v6: each entry's own local day") { db in try DiaryTables.addLocalDay(db) }
        // Each entry's own offset, and titles and excerpts as plain words (MarkdownText): the diary is read again.
        migrator.registerMigration("v7: each entry's own offset, excerpts as words") { db in
            try DiaryTables.addOwnOffset(db)
        }
        migrator.registerMigration("v8: where each entry was written") { db in try DiaryTables.addLocation(db) }
        migrator.registerMigration("v9: the text index merged less often") { db in try DiaryTables.tuneTextMerges(db) }
        migrator.registerMigration("v10: the text index merged when the inbox is idle") { db in
            try DiaryTables.mergeTextWhenIdle(db)
        }
        // Han, Kana and Hangul indexed as pairs of letters (`SearchText`): the diary's text is read again.
        migrator.registerMigration("v11: words found in every script") { db in try DiaryTables.clearIndex(db) }
        migrator.registerMigration("v12: each block's fingerprint, blocks taken out") { db in
            try Self.addFingerprints(db)
        }
        // Thai, Lao, Khmer and Burmese as pairs of letters, their marks kept (`SearchText`): the text table is made
        // again and the diary's text read again.
        migrator.registerMigration("v13: words found in Thai, Lao, Khmer and Burmese") { db in
            try DiaryTables.keepMarks(db)
        }
        return migrator
    }

    /// Each remembered block's fingerprint (`StampFacts`), so that a block found in another entry is looked up by
    /// it, and when a block was taken out on request (`stamp --remove`: never given back).
    private static func addFingerprints(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE entry ADD COLUMN fingerprint INTEGER;  -- StampFacts.fingerprint of the block
                ALTER TABLE entry ADD COLUMN withdrawn_at REAL;    -- when the block was taken out on request
                """)
        for row in try Row.fetchAll(db, sql: "SELECT path, block FROM entry") {
            let block: String = row["block"]
            let lines = block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            try db.execute(
                sql: "UPDATE entry SET fingerprint = ? WHERE path = ?",
                arguments: [StampFacts.fingerprint(lines), row["path"] as String])
        }
        try db.execute(sql: "CREATE INDEX entry_fingerprint ON entry (fingerprint)")
    }

    /// One table of kept hours and one of spends for every history source (`HistorySource`): Open-Meteo's years move
    /// over as they are; each timemachine answer becomes its `TimemachineHour`; a day's timemachine calls become
    /// that many spends now (they count against the next 24 hours, never less than before).
    private static func migrateHistoryToSources(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE history_hours (
                    source TEXT NOT NULL,        -- the weather source's type (open-meteo, openweather, …)
                    place TEXT NOT NULL,         -- latitude,longitude to 2 decimals (about 1 km)
                    first_hour INTEGER NOT NULL, -- Unix time / 3600, the first and last hour held
                    last_hour INTEGER NOT NULL,
                    body BLOB NOT NULL,          -- the hours as the source keeps them (HistoryHours.encoded)
                    PRIMARY KEY (source, place, first_hour, last_hour)
                ) WITHOUT ROWID;
                CREATE TABLE history_spend (
                    source TEXT NOT NULL,
                    at REAL NOT NULL,            -- Unix time of the request
                    weight REAL NOT NULL         -- what the source counts it as
                );
                INSERT INTO history_hours SELECT 'open-meteo', place, first_hour, last_hour, body FROM history_period;
                INSERT INTO history_spend SELECT 'open-meteo', at, weight FROM open_meteo_spend;
                """)
        for row in try Row.fetchAll(db, sql: "SELECT place, hour, body FROM history") {
            let place: String = row[0]
            let hour: Int = row[1]
            let body: Data = row[2]
            try db.execute(
                sql: "INSERT OR REPLACE INTO history_hours VALUES ('openweather', ?, ?, ?, ?)",
                arguments: [place, hour, hour, Data(TimemachineHour(hour: hour, body: [UInt8](body)).encoded)])
        }
        let now = Date().timeIntervalSince1970
        for row in try Row.fetchAll(db, sql: "SELECT value FROM meta WHERE key LIKE 'history_calls:%'") {
            let value: String = row[0]
            for _ in 0..<min(Int(value) ?? 0, 100_000) {
                try db.execute(
                    sql: "INSERT INTO history_spend VALUES ('openweather', ?, 1)", arguments: [now])
            }
        }
        try db.execute(
            sql: """
                DELETE FROM meta WHERE key LIKE 'history_calls:%';
                DROP TABLE history;
                DROP TABLE history_period;
                DROP TABLE open_meteo_spend;
                """)
    }
}
