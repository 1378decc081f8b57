import FoundationEssentials
import Glibc
import Logging
import Synchronization
import WeathertagCore
import WeathertagSQLite

/// The daemon's memory, in SQLite (WAL) in `state.directory`: the weather block of every entry it stamped or found
/// stamped, by path relative to the inbox, so that an entry coming back without its block gets the same one back.
///
/// The files are the truth; this is only memory. A missing database is created (and filled again from the stamped
/// files as the inbox is listed); a corrupt one is moved aside with a warning and created anew. Nothing here can
/// hold a stamp back: a write that fails is logged and stamping goes on without it.
///
/// Through WeathertagSQLite: a writer and one reader in WAL mode, migrations, and the system's SQLite (FTS5, for the diary
/// index).
/// Every method is synchronous and is called from pool threads or the watcher's thread, never from the event loop.
public final class StateDatabase: Sendable {
    public static let fileName = "state.sqlite"

    /// The database file.
    public let path: String
    public let policy: RestorePolicy
    private let inbox: String
    /// A writer and one reader, in WAL mode: a batch's lookups before its exchanges (on the reader) never wait
    /// behind another batch's transaction or a checkpoint (on the writer); with one connection they did, and the
    /// drop-to-stamp p99 doubled once the index made the transactions longer. One reader, not more: each keeps its
    /// own page cache (1 MiB). Replaced when `checkIntegrity` finds damage.
    private let connection: Mutex<DatabasePool>
    var database: DatabasePool { self.connection.withLock { $0 } }
    let logger: Logger

    /// Opens (or creates) the database of `inbox` in `directory`. One that SQLite cannot read is moved aside as
    /// `state.sqlite.corrupt-<time>` and replaced; one kept for another inbox is emptied (its paths would name
    /// other entries). Damage deeper in the file is looked for by `checkIntegrity()`, off the start-up path.
    public static func open(
        directory: String,
        inbox: String,
        policy: RestorePolicy = RestorePolicy(),
        logger: Logger
    ) throws -> StateDatabase {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/" + Self.fileName
        let database: DatabasePool
        do {
            database = try Self.connect(path: path, inbox: inbox, logger: logger)
        } catch let error as DatabaseError where Self.isDamage(error) {
            database = try Self.replace(path: path, inbox: inbox, because: error, logger: logger)
        }
        return StateDatabase(path: path, inbox: inbox, policy: policy, database: database, logger: logger)
    }

    private init(path: String, inbox: String, policy: RestorePolicy, database: DatabasePool, logger: Logger) {
        self.path = path
        self.inbox = inbox
        self.policy = policy
        self.connection = Mutex(database)
        self.logger = logger
    }

    /// SQLite's `quick_check` over the whole file (about 30 ms at 50,000 entries, so not at start-up): a damaged
    /// database is moved aside with a warning and replaced, and the memory is filled again from the files at the
    /// next listing. Returns whether it was sound.
    @discardableResult
    public func checkIntegrity() -> Bool {
        let failure: DatabaseError
        do {
            let check = try self.database.read { db in try String.fetchOne(db, sql: "PRAGMA quick_check") }
            guard check != "ok" else { return true }
            failure = DatabaseError(resultCode: .SQLITE_CORRUPT, message: check ?? "integrity check failed")
        } catch let error as DatabaseError where Self.isDamage(error) {
            failure = error
        } catch {
            self.logger.warning("cannot check the state database", metadata: ["error": "\(error)"])
            return true
        }
        do {
            let replacement = try Self.replace(
                path: self.path, inbox: self.inbox, because: failure, logger: self.logger)
            self.connection.withLock { $0 = replacement }
        } catch {
            self.logger.error(
                "cannot replace the damaged state database; stamping goes on without its memory",
                metadata: ["error": "\(error)"])
        }
        return false
    }

    private static func isDamage(_ error: DatabaseError) -> Bool {
        [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode)
    }

    /// Moves the damaged files aside and connects to a new database.
    private static func replace(
        path: String, inbox: String, because error: DatabaseError, logger: Logger
    ) throws -> DatabasePool {
        let aside = path + ".corrupt-" + String(Int(Date().timeIntervalSince1970))
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            guard rename(path + suffix, aside + suffix) == 0 else { throw SystemError("rename", path: path) }
        }
        logger.warning(
            """
            the state database was unreadable; moved it aside and started a new one (only the memory of \
            earlier stamps is lost, the entries are not)
            """,
            metadata: ["moved_to": "\(aside)", "error": "\(error.message ?? "\(error.resultCode)")"])
        return try Self.connect(path: path, inbox: inbox, logger: logger)
    }

    /// A pool as weathertag's databases are opened (this one and the track index): WAL, a writer and `readers`
    /// readers, waiting up to 5 s for a lock.
    static func pool(path: String, readers: Int) throws -> DatabasePool {
        // The daemon and the `stamp` command may write at the same time: each statement waits up to 5 s for a lock.
        // WAL (the daemon and the `stamp` command read and write side by side) with synchronous NORMAL (a commit
        // survives the process being killed; only a power cut can lose the last ones): `DatabasePool` sets both on
        // its writer. Not again on every connection: a reader asking for WAL while another process was creating the
        // file (the daemon and `stamp --at` opening tracks.sqlite at once) got SQLITE_BUSY without waiting.
        // A 1 MiB page cache rather than SQLite's 2 holds the 50,000-entry index's hot pages.
        let prepare: (Database) throws -> Void = { db in try db.execute(sql: "PRAGMA cache_size = -1024") }
        // SQLite answers a connection's WAL set-up with SQLITE_BUSY at once, without the busy timeout every other
        // statement waits out, while another connection writes (the daemon indexing a year of track while `stamp
        // --at` or a test opens the same index): an open retries for as long as a statement would wait.
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            do {
                return try DatabasePool(path: path, readers: readers, busyTimeout: .seconds(5), prepare: prepare)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && ContinuousClock.now < deadline
            {
                usleep(20_000)
            }
        }
    }

    private static func connect(path: String, inbox: String, logger: Logger) throws -> DatabasePool {
        // One reader beside the writer: a batch's lookups before its exchanges never wait behind another batch's
        // write or a WAL checkpoint.
        let database = try Self.pool(path: path, readers: 1)
        try Self.migrator.migrate(database)
        try database.write { db in
            let kept = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'inbox'")
            if let kept, kept != inbox {
                logger.notice(
                    "the state database was kept for another inbox; starting its memory anew",
                    metadata: ["was": "\(kept)", "inbox": "\(inbox)"])
                try db.execute(sql: "DELETE FROM entry")
                try Self.clearIndex(db)
            }
            try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('inbox', ?)", arguments: [inbox])
        }
        return database
    }

    private static var migrator: DatabaseMigrator {
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
        migrator.registerMigration("v3: the diary index") { db in try Self.createDiaryIndex(db) }
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
        return migrator
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

    // MARK: Reading

    /// The block to write back into `path`, which has none; nil for new weather.
    public func blockToRestore(_ path: String, now: Date = Date()) -> [String]? {
        self.blocksToRestore([path], now: now)[path]
    }

    /// The blocks to write back into any of `paths` that has none, in one query (a batch asks once).
    public func blocksToRestore(_ paths: [String], now: Date = Date()) -> [String: [String]] {
        guard !paths.isEmpty else { return [:] }
        do {
            let rows = try self.database.read { db in
                // One statement per batch size, prepared once.
                try Row.fetchAll(
                    db.cachedStatement(
                        sql: "SELECT path, block, removed_at FROM entry WHERE path IN "
                            + "(\(Array(repeating: "?", count: paths.count).joined(separator: ",")))"),
                    arguments: StatementArguments(paths))
            }
            var blocks: [String: [String]] = [:]
            for row in rows {
                let removedAt: Double? = row["removed_at"]
                let remembered = RememberedStamp(
                    block: Self.lines(row["block"]), removedAt: removedAt.map(Date.init(timeIntervalSince1970:)))
                if let block = self.policy.block(for: remembered, now: now) { blocks[row["path"]] = block }
            }
            return blocks
        } catch {
            self.logger.warning(
                "cannot read the state database; entries get new weather", metadata: ["error": "\(error)"])
            return [:]
        }
    }

    private static func lines(_ block: String) -> [String] {
        block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// What is remembered of `path`.
    public func remembered(_ path: String) throws -> RememberedStamp? {
        try self.database.read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT block, removed_at FROM entry WHERE path = ?", arguments: [path])
            else { return nil }
            let block: String = row["block"]
            let removedAt: Double? = row["removed_at"]
            return RememberedStamp(
                block: Self.lines(block), removedAt: removedAt.map(Date.init(timeIntervalSince1970:)))
        }
    }

    /// How many entries are remembered (removed ones still in their grace time included).
    public func count() throws -> Int {
        try self.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") ?? 0 }
    }

    // MARK: Writing (each call one transaction)

    /// Remembers a batch's blocks and indexes what it read, in one transaction.
    public func remember(_ records: [StampRecord], index: [DiaryIndexItem] = [], at now: Date = Date()) {
        guard !records.isEmpty || !index.isEmpty else { return }
        let time = now.timeIntervalSince1970
        self.write("remember stamps") { db in
            try Self.index(db, index, at: now)
            for record in records {
                let block = record.block.joined(separator: "\n")
                switch record.origin {
                case .stamped:
                    try db.cachedStatement(
                        sql: """
                            INSERT INTO entry (path, block, stamped_at) VALUES (?, ?, ?)
                            ON CONFLICT (path) DO UPDATE SET
                                block = excluded.block, stamped_at = excluded.stamped_at, removed_at = NULL
                            """
                    ).execute(arguments: [record.path, block, time])
                case .restored:
                    try db.cachedStatement(
                        sql: """
                            INSERT INTO entry (path, block, restored_at, restores) VALUES (?, ?, ?, 1)
                            ON CONFLICT (path) DO UPDATE SET
                                block = excluded.block, restored_at = excluded.restored_at,
                                restores = restores + 1, removed_at = NULL
                            """
                    ).execute(arguments: [record.path, block, time])
                case .found:
                    // Most listings find what is remembered already: write only what differs.
                    try db.cachedStatement(
                        sql: """
                            INSERT INTO entry (path, block) VALUES (?, ?)
                            ON CONFLICT (path) DO UPDATE SET block = excluded.block, removed_at = NULL
                            WHERE block IS NOT excluded.block OR removed_at IS NOT NULL
                            """
                    ).execute(arguments: [record.path, block])
                }
            }
        }
    }

    /// Follows renames and removals the watcher saw. A rename moves the memory of the file, or of everything
    /// below the folder, to the new path (a file renamed over an entry, as rsync and editors do, leaves the
    /// entry's memory as it is when the file had none of its own); a removal starts the grace time after which it
    /// is forgotten.
    public func apply(_ changes: [PathChange], at now: Date = Date()) {
        guard !changes.isEmpty else { return }
        let time = now.timeIntervalSince1970
        self.write("follow renames") { db in
            for change in changes {
                switch change {
                case .renamed(let from, let to):
                    let moved = try Row.fetchAll(
                        db,
                        sql: """
                            SELECT path FROM entry WHERE (path = ?1 OR substr(path, 1, length(?1) + 1) = ?1 || '/')
                                AND removed_at IS NULL
                            """,
                        arguments: [from])
                    for row in moved {
                        let old: String = row["path"]
                        guard let new = PathChange.renamed(old, from: from, to: to) else { continue }
                        try db.execute(sql: "DELETE FROM entry WHERE path = ?", arguments: [new])
                        try db.execute(sql: "UPDATE entry SET path = ? WHERE path = ?", arguments: [new, old])
                    }
                    try Self.moveIndexed(db, from: from, to: to)
                case .removed(let path):
                    try db.execute(
                        sql: """
                            UPDATE entry SET removed_at = ?2
                            WHERE (path = ?1 OR substr(path, 1, length(?1) + 1) = ?1 || '/') AND removed_at IS NULL
                            """,
                        arguments: [path, time])
                    try Self.forgetIndexed(db, under: path)
                }
            }
        }
    }

    /// After a full listing: entries remembered but not found have left the inbox (while the daemon was not
    /// running, say) and start their grace time; those past it are forgotten.
    public func reconcile(present: Set<String>, at now: Date = Date()) {
        let time = now.timeIntervalSince1970
        let forgotten = self.policy.forgottenBefore(now).timeIntervalSince1970
        self.write("reconcile with the inbox") { db in
            let remembered = try String.fetchAll(db, sql: "SELECT path FROM entry WHERE removed_at IS NULL")
            for path in remembered where !present.contains(path) {
                try db.execute(sql: "UPDATE entry SET removed_at = ? WHERE path = ?", arguments: [time, path])
            }
            try db.execute(sql: "DELETE FROM entry WHERE removed_at < ?", arguments: [forgotten])
            try Self.reconcileIndex(db, present: present)
        }
    }

    /// Forgets everything (a test's way to lose the memory without deleting the file).
    func forgetAll() throws {
        try self.database.write { db in try db.execute(sql: "DELETE FROM entry") }
    }

    func write(_ what: String, _ body: (Database) throws -> Void) {
        do {
            try self.database.write { db in try body(db) }
        } catch {
            self.writeFailed(what, error)
        }
    }

    /// The same, from async code: the pool's asynchronous write, off the cooperative pool.
    func write(_ what: String, _ body: @escaping @Sendable (Database) throws -> Void) async {
        do {
            try await self.database.write { db in try body(db) }
        } catch {
            self.writeFailed(what, error)
        }
    }

    private func writeFailed(_ what: String, _ error: any Error) {
        self.logger.warning(
            "cannot write the state database; stamping goes on without its memory",
            metadata: ["doing": "\(what)", "error": "\(error)"])
    }

}

/// The state database is the adapter behind the memory of stamps and the diary index (and `HistoryStore`, in
/// StateDatabase+History.swift): one file, one schema, its migrations in one place (`migrator`).
extension StateDatabase: StampMemory, DiaryStore {}
