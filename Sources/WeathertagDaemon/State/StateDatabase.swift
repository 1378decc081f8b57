import FoundationEssentials
import Logging
import NIOPosix
import Synchronization
import WeathertagCore
import WeathertagSQLite

/// The daemon's memory, in SQLite (WAL) in `state.directory`: one file, one schema (`StateDatabase+Schema.swift`),
/// one pool, and three small stores over it, each its own type: the memory of stamps (`memory`,
/// `SQLiteStampMemory`), the diary index (`diary`, `SQLiteDiaryStore`) and history's hours (`history`,
/// `SQLiteHistoryStore`).
///
/// The files are the truth; this is only memory. A missing database is created (and filled again from the stamped
/// files as the inbox is listed); an unreadable one is moved aside with a warning and created anew
/// (`DatabasePool.open`). Nothing here can hold a stamp back: a write that fails is logged and stamping goes on
/// without it.
package final class StateDatabase: Sendable {
    package static let fileName = "state.sqlite"

    /// The database file.
    package let path: String
    package let policy: RestorePolicy
    private let inbox: String
    private let threadPool: NIOThreadPool
    /// A writer and one reader, in WAL mode: a batch's lookups before its exchanges (on the reader) never wait
    /// behind another batch's transaction or a checkpoint (on the writer); with one connection they did, and the
    /// drop-to-stamp p99 doubled once the index made the transactions longer. One reader, not more: each keeps its
    /// own page cache (1 MiB). Replaced when `checkIntegrity` finds damage.
    private let connection: Mutex<DatabasePool>
    var pool: DatabasePool { self.connection.withLock { $0 } }
    let logger: Logger

    /// The memory of stamps.
    package var memory: SQLiteStampMemory { SQLiteStampMemory(database: self) }
    /// The diary index.
    package var diary: SQLiteDiaryStore { SQLiteDiaryStore(database: self) }
    /// History's hours and spends.
    package var history: SQLiteHistoryStore { SQLiteHistoryStore(database: self) }
    /// The memory and the index together, as a batch writes them (in one transaction).
    package var entries: SQLiteEntryStore { SQLiteEntryStore(memory: self.memory, diary: self.diary) }

    /// Opens (or creates) the database of `inbox` in `directory`. One that SQLite cannot read is moved aside as
    /// `state.sqlite.corrupt-<time>` and replaced; one kept for another inbox is emptied (its paths would name
    /// other entries). Damage deeper in the file is looked for by `checkIntegrity()`, off the start-up path.
    package static func open(
        directory: String,
        inbox: String,
        policy: RestorePolicy = RestorePolicy(),
        threadPool: NIOThreadPool = .singleton,
        logger: Logger
    ) throws -> StateDatabase {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/" + Self.fileName
        let database = try Self.connect(path: path, inbox: inbox, threadPool: threadPool, logger: logger)
        return StateDatabase(
            path: path, inbox: inbox, policy: policy, threadPool: threadPool, database: database, logger: logger)
    }

    private init(
        path: String, inbox: String, policy: RestorePolicy, threadPool: NIOThreadPool, database: DatabasePool,
        logger: Logger
    ) {
        self.path = path
        self.inbox = inbox
        self.policy = policy
        self.threadPool = threadPool
        self.connection = Mutex(database)
        self.logger = logger
    }

    /// SQLite's `quick_check` over the whole file (about 30 ms at 50,000 entries, so not at start-up): a damaged
    /// database is moved aside with a warning and replaced, and the memory is filled again from the files at the
    /// next listing. Returns whether it was sound.
    @discardableResult
    package func checkIntegrity() -> Bool {
        let failure: DatabaseError
        do {
            let check = try self.pool.read { db in try String.fetchOne(db, sql: "PRAGMA quick_check") }
            guard check != "ok" else { return true }
            failure = DatabaseError(resultCode: .SQLITE_CORRUPT, message: check ?? "integrity check failed")
        } catch let error as DatabaseError where error.isDamage {
            failure = error
        } catch {
            self.logger.warning("cannot check the state database", metadata: ["error": "\(error)"])
            return true
        }
        do {
            Self.movedAside(to: try DatabasePool.moveAside(self.path), failure, logger: self.logger)
            let replacement = try Self.connect(
                path: self.path, inbox: self.inbox, threadPool: self.threadPool, logger: self.logger)
            self.connection.withLock { $0 = replacement }
        } catch {
            self.logger.error(
                "cannot replace the damaged state database; stamping goes on without its memory",
                metadata: ["error": "\(error)"])
        }
        return false
    }

    private static func movedAside(to aside: String, _ error: DatabaseError, logger: Logger) {
        logger.warning(
            """
            the state database was unreadable; moved it aside and started a new one (only the memory of \
            earlier stamps is lost, the entries are not)
            """,
            metadata: ["moved_to": "\(aside)", "error": "\(error.message ?? "\(error.resultCode)")"])
    }

    private static func connect(
        path: String, inbox: String, threadPool: NIOThreadPool, logger: Logger
    ) throws -> DatabasePool {
        // One reader beside the writer: a batch's lookups before its exchanges never wait behind another batch's
        // write or a WAL checkpoint. A 1 MiB page cache each rather than SQLite's 2 holds the 50,000-entry index's
        // hot pages.
        let database = try DatabasePool.open(
            path: path, readers: 1, migrator: Self.migrator, threadPool: threadPool
        ) { aside, error in Self.movedAside(to: aside, error, logger: logger) }
        // Read first: a start for the same inbox, the usual one, writes nothing (a write transaction here was a WAL
        // frame and its lock dance on every start).
        let kept = try database.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'inbox'")
        }
        guard kept != inbox else { return database }
        try database.write { db in
            let kept = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'inbox'")
            if let kept, kept != inbox {
                logger.notice(
                    "the state database was kept for another inbox; starting its memory anew",
                    metadata: ["was": "\(kept)", "inbox": "\(inbox)"])
                try db.execute(sql: "DELETE FROM entry")
                try DiaryTables.clearIndex(db)
            }
            try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('inbox', ?)", arguments: [inbox])
        }
        return database
    }

    /// One write transaction; a failure is logged, and stamping goes on without it.
    func write(_ what: String, _ body: (Database) throws -> Void) {
        do {
            try self.pool.write { db in try body(db) }
        } catch {
            self.writeFailed(what, error)
        }
    }

    /// The same, from async code: the pool's asynchronous write, on the thread pool.
    func write(_ what: String, _ body: @escaping @Sendable (Database) throws -> Void) async {
        do {
            try await self.pool.write { db in try body(db) }
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

/// The memory of stamps and the diary index together, as a batch uses them: its blocks and its index rows go in one
/// transaction (`SQLiteStampMemory.remember`).
package struct SQLiteEntryStore: EntryStore {
    package let memory: SQLiteStampMemory
    package let diary: SQLiteDiaryStore

    package var policy: RestorePolicy { self.memory.policy }
    @discardableResult
    package func checkIntegrity() -> Bool { self.memory.checkIntegrity() }
    package func blocksToRestore(_ paths: [String], now: Date) -> [String: [String]] {
        self.memory.blocksToRestore(paths, now: now)
    }
    package func remember(_ records: [StampRecord], index: [DiaryIndexItem], at now: Date) {
        self.memory.remember(records, index: index, at: now)
    }
    package func apply(_ changes: [PathChange], at now: Date) { self.memory.apply(changes, at: now) }
    package func reconcile(present: Set<String>, at now: Date, keeping: (String) -> Bool) {
        self.memory.reconcile(present: present, at: now, keeping: keeping)
    }
    package func remembered(_ path: String) throws -> RememberedStamp? { try self.memory.remembered(path) }
    package func provenance(of block: [String], at path: String) -> BlockProvenance {
        self.memory.provenance(of: block, at: path)
    }
    package func withdraw(_ path: String, at now: Date) { self.memory.withdraw(path, at: now) }
    package func indexedVersions(_ paths: [String]) -> [String: String] { self.diary.indexedVersions(paths) }
    package func mergeText() -> Bool { self.diary.mergeText() }
    /// Both in one read transaction: for an entry dropped alone, each transaction is its locks and page reads
    /// (4–5 system calls) on the way to its stamp.
    package func recall(_ paths: [String], restoring: Bool, now: Date) -> EntryRecall {
        guard !paths.isEmpty else { return EntryRecall() }
        do {
            return try self.memory.database.pool.read { db in
                EntryRecall(
                    blocks: restoring ? try self.memory.blocksToRestore(db, paths, now: now) : [:],
                    indexed: try self.diary.indexedVersions(db, paths))
            }
        } catch {
            self.memory.database.logger.warning(
                "cannot read the state database; entries get new weather", metadata: ["error": "\(error)"])
            return EntryRecall()
        }
    }
    package func notice(_ paths: [String], inbox: String, at now: Date) {
        self.diary.notice(paths, inbox: inbox, at: now)
    }
    package func entries(_ query: EntryQuery) throws -> (entries: [IndexedEntry], next: EntryQuery.Cursor?) {
        try self.diary.entries(query)
    }
    package func entry(_ path: String) throws -> IndexedEntry? { try self.diary.entry(path) }
    package func laneCounts() throws -> [Lane: Int] { try self.diary.laneCounts() }
}
