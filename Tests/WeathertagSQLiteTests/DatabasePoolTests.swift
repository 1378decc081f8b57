import CSQLite
import Foundation
import Glibc
import NIOPosix
import Synchronization
import Testing
import WeathertagSQLite

/// The SQLite layer every database of weathertag's goes through (state, tracks, GeoNames), on real files: values
/// in and out, transactions, locks between connections, the async path, closing, damage and migrations.
@Suite("the SQLite layer")
final class DatabasePoolTests {
    let folder: String

    init() throws {
        var template = Array((FileManager.default.temporaryDirectory.path + "/wt-sqlite-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        self.folder = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: self.folder)
    }

    static var table: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: values") { db in
            try db.execute(sql: "CREATE TABLE value (i INTEGER, r REAL, t TEXT, b BLOB, n INTEGER, f INTEGER)")
        }
        return migrator
    }

    func open(_ name: String = "test.sqlite", busyTimeout: Duration = .seconds(5)) throws -> DatabasePool {
        try DatabasePool.open(
            path: self.folder + "/" + name, readers: 2, migrator: Self.table, busyTimeout: busyTimeout)
    }

    /// Every kind of value is bound and read back as it was, NULL included, by name and by position.
    @Test func valuesAreBoundAndReadBackAsTheyWere() throws {
        let pool = try self.open()
        let blob = Data([0, 1, 0xFF, 0x80])
        try pool.write { db in
            try db.execute(
                sql: "INSERT INTO value VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [Int64.max, -0.5, "ünïcode 漢字 '; DROP", blob, nil as Int?, true])
        }
        let row = try #require(try pool.read { db in try Row.fetchOne(db, sql: "SELECT * FROM value") })
        #expect(row["i"] as Int64 == .max)
        #expect(row["r"] as Double == -0.5)
        #expect(row["t"] as String == "ünïcode 漢字 '; DROP")
        #expect(row["b"] as Data == blob)
        #expect(row["n"] as Int? == nil)
        #expect(row[5] as Bool == true)
    }

    /// No bytes are an empty blob, not NULL. SQLite binds a null pointer as NULL; a Swift array, empty ones too, gives
    /// `withUnsafeBytes` an address (the empty-array singleton's), so `csqlite_bind_blob` needs no case of its own.
    @Test func anEmptyBlobIsABlobNotNull() throws {
        let pool = try self.open()
        try pool.write { db in
            try db.execute(sql: "INSERT INTO value (i, b) VALUES (?, ?)", arguments: [1, Data()])
            try db.cachedStatement(sql: "INSERT INTO value (i, b) VALUES (?, ?)")
                .execute(arguments: StatementArguments(values: [.integer(2), .blob([])]))
        }
        let kinds = try pool.read { db in try String.fetchAll(db, sql: "SELECT typeof(b) FROM value ORDER BY i") }
        #expect(kinds == ["blob", "blob"])
        let row = try #require(try pool.read { db in try Row.fetchOne(db, sql: "SELECT b FROM value WHERE i = 1") })
        #expect(row["b"] as Data == Data())
    }

    /// A statement made once (`StatementText`) is prepared once per connection and found again by its identity;
    /// values made beforehand (`StatementArguments(values:)`) bind as the literal's do.
    @Test func aStatementTextIsPreparedOnceAndFoundAgain() throws {
        let insert = StatementText("INSERT INTO value (i, t) VALUES (?, ?)")
        let pool = try self.open()
        try pool.write { db in
            let first = try db.cachedStatement(insert)
            #expect(try db.cachedStatement(insert) === first)
            #expect(try db.cachedStatement(sql: insert.sql) === first, "the same statement as the cache by SQL's")
            try first.execute(arguments: StatementArguments(values: [.integer(7), .text("seven")]))
            try db.cachedStatement(insert).execute(arguments: [8, "eight"])
        }
        let rows = try pool.read { db in try Row.fetchAll(db, sql: "SELECT i, t FROM value ORDER BY i") }
        #expect(rows.map { $0["i"] as Int } == [7, 8])
        #expect(rows.map { $0["t"] as String } == ["seven", "eight"])
    }

    /// A statement run again binds what it is given: every value replaces the last run's, an empty text is '' (not
    /// NULL), a long one and one with a NUL inside keep every byte, and parameters given no value are NULL again
    /// rather than the last run's (the bindings are cleared only then).
    @Test func aStatementRunAgainBindsWhatItIsGiven() throws {
        let insert = StatementText("INSERT INTO value (i, t, n) VALUES (?, ?, ?)")
        let long = String(repeating: "한글 and ASCII ", count: 500)
        let pool = try self.open()
        try pool.write { db in
            let statement = try db.cachedStatement(insert)
            try statement.execute(arguments: [1, "one", 11])
            try statement.execute(arguments: [2, "", 22])
            try statement.execute(arguments: [3, long, 33])
            try statement.execute(arguments: [4, "nul\u{0}inside"])
            try statement.execute(arguments: [5])
        }
        let rows = try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT i, t, typeof(t) AS kind, n FROM value ORDER BY i")
        }
        #expect(rows.map { $0["i"] as Int } == [1, 2, 3, 4, 5])
        #expect(rows.map { $0["t"] as String? } == ["one", "", long, "nul\u{0}inside", nil])
        #expect(rows.map { $0["kind"] as String } == ["text", "text", "text", "text", "null"])
        #expect(rows.map { $0["n"] as Int? } == [11, 22, 33, nil, nil])
    }

    /// A write that throws is rolled back whole, and the pool goes on.
    @Test func aWriteThatThrowsIsRolledBack() throws {
        struct Refused: Error {}
        let pool = try self.open()
        #expect(throws: Refused.self) {
            try pool.write { db in
                try db.execute(sql: "INSERT INTO value (i) VALUES (1)")
                throw Refused()
            }
        }
        try pool.write { db in try db.execute(sql: "INSERT INTO value (i) VALUES (2)") }
        #expect(try pool.read { db in try Int.fetchAll(db, sql: "SELECT i FROM value") } == [2])
    }

    /// Another process's write lock is waited out for the busy timeout, not failed at once; with the lock held past
    /// it the write fails with SQLITE_BUSY, and a write that can wait long enough goes through once the lock goes.
    @Test func anotherWritersLockIsWaitedOut() throws {
        let holder = try self.open()
        let impatient = try self.open(busyTimeout: .milliseconds(200))
        let patient = try self.open(busyTimeout: .seconds(30))
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let held = Thread {
            try? holder.write { db in
                try db.execute(sql: "INSERT INTO value (i) VALUES (1)")
                entered.signal()
                release.wait()
            }
        }
        held.start()
        entered.wait()
        let start = ContinuousClock.now
        do {
            try impatient.write { db in try db.execute(sql: "INSERT INTO value (i) VALUES (2)") }
            Issue.record("a write went through another's transaction")
        } catch let error as DatabaseError {
            #expect(error.resultCode == .SQLITE_BUSY)
            #expect(ContinuousClock.now - start >= .milliseconds(200), "it waited for the busy timeout")
        }
        let done = DispatchSemaphore(value: 0)
        let waiting = Thread {
            try? patient.write { db in try db.execute(sql: "INSERT INTO value (i) VALUES (3)") }
            done.signal()
        }
        waiting.start()
        release.signal()
        done.wait()
        #expect(try patient.read { db in try Int.fetchAll(db, sql: "SELECT i FROM value ORDER BY i") } == [1, 3])
    }

    /// A lock is tried again after 100 µs, then twice as long each time up to 10 ms (SQLite's own waits 1, 2, 5,
    /// 10 ms…); the time waited before each try is the pauses before it added up.
    @Test func aLockIsTriedAgainSoonThenLessOften() {
        #expect((0..<9).map(BusyWait.pause) == [100, 200, 400, 800, 1_600, 3_200, 6_400, 10_000, 10_000])
        var waited = 0
        for tries in 0..<40 {
            #expect(BusyWait.waited(before: tries) == waited)
            waited += BusyWait.pause(tries)
        }
    }

    /// The async reads and writes run on the NIO thread pool's threads, never on the cooperative pool.
    @Test func theAsyncPathRunsOnTheThreadPool() async throws {
        let pool = try self.open()
        // The thread's name, as the kernel has it.
        let name = try await pool.write { _ -> String in
            (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        }
        #expect(name.contains("TP-#"), "a NIOThreadPool thread, not \(name)")
        try await pool.write { db in try db.execute(sql: "INSERT INTO value (i) VALUES (7)") }
        #expect(try await pool.read { db in try Int.fetchAll(db, sql: "SELECT i FROM value") } == [7])
    }

    /// Closing closes the readers before the writer, so the writer, last, folds the WAL into the file and removes
    /// it: nothing is left beside the database.
    /// The WAL is copied into the database every `walCheckpointPages` pages, not SQLite's 1,000: after 2,000 commits
    /// of a page each it still holds them all (with 1,000 it would have been written over from its start).
    @Test func theWALHoldsItsPagesUntilTheCheckpointBound() throws {
        #expect(DatabasePool.walCheckpointPages >= 2_500)
        let pool = try self.open()
        let page = Data(repeating: 0x5A, count: 3_000)
        for index in 0..<2_000 {
            try pool.write { db in
                try db.execute(sql: "INSERT INTO value (i, b) VALUES (?, ?)", arguments: [index, page])
            }
        }
        let size = try #require(try? FileManager.default.attributesOfItem(atPath: pool.path + "-wal")[.size] as? Int)
        #expect(size > 2_000 * 4_096, "\(size) bytes of WAL")
        let count = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM value") }
        #expect(count == 2_000)
    }

    /// A pool whose checkpoints start at `pages` pages of WAL and are handed to the test rather than run.
    func openWithHeldCheckpoints(_ name: String, pages: Int) throws -> (DatabasePool, HeldCheckpoints) {
        let held = HeldCheckpoints()
        let pool = try DatabasePool(
            path: self.folder + "/" + name, checkpointPages: pages, scheduleCheckpoint: { held.hold($0) })
        try pool.write { db in try db.execute(sql: "CREATE TABLE page (b BLOB)") }
        return (pool, held)
    }

    /// The size of the database file itself (what checkpoints have copied into it), not of its WAL.
    func fileSize(_ pool: DatabasePool) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: pool.path)[.size] as? Int)
    }

    /// Writes `count` transactions of about one page each.
    func writePages(_ pool: DatabasePool, _ count: Int) throws {
        for _ in 0..<count {
            try pool.write { db in
                try db.execute(sql: "INSERT INTO page (b) VALUES (?)", arguments: [Data(repeating: 0xA5, count: 3_000)])
            }
        }
    }

    /// The frames in the WAL file (its size: a checkpoint does not shrink it, the next write starts it over).
    func walFrames(_ pool: DatabasePool) throws -> Int {
        let size = try #require(try FileManager.default.attributesOfItem(atPath: pool.path + "-wal")[.size] as? Int)
        return (size - 32) / (4_096 + 24)
    }

    /// A commit that takes the WAL past the bound copies nothing into the database: it hands one checkpoint off
    /// (one at a time, however many commits follow), and that checkpoint copies the WAL into the file. The WAL then
    /// starts over, and the next checkpoint comes after the bound's worth of new pages.
    @Test func aCheckpointRunsBesideTheWriterNotInItsCommit() throws {
        let (pool, held) = try self.openWithHeldCheckpoints("beside.sqlite", pages: 40)
        let before = try self.fileSize(pool)
        var written = 0
        while held.count == 0, written < 100 {
            try self.writePages(pool, 1)
            written += 1
        }
        #expect(held.count == 1)
        #expect(try self.walFrames(pool) >= 40)
        try self.writePages(pool, 5)
        written += 5
        #expect(held.count == 1, "one checkpoint handed off, not one for each commit past the bound")
        #expect(try self.fileSize(pool) == before, "no commit copied the WAL into the database")
        held.run()
        let copied = try self.fileSize(pool)
        #expect(copied >= before + written * 4_096, "\(copied) bytes after the checkpoint, \(before) before")
        var again = 0
        while held.count == 0, again < 100 {
            try self.writePages(pool, 1)
            again += 1
        }
        #expect(held.count == 1 && again >= 10, "handed off again after \(again) commits")
        held.run()
        #expect(
            try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM page") } == written + again)
    }

    /// SQLite counts no memory: its statistics are turned off before its first connection, as with them every
    /// allocation of every connection takes one process-wide mutex (a rebuild's threads slept on it).
    @Test func theLibraryKeepsNoMemoryStatistics() throws {
        let pool = try self.open()
        try pool.write { db in
            try db.execute(sql: "INSERT INTO value (t) VALUES (?)", arguments: [String(repeating: "x", count: 100_000)])
        }
        #expect(Database.libraryConfigured)
        #expect(sqlite3_memory_used() == 0)
        #expect(sqlite3_memory_highwater(0) == 0)
    }

    /// Checkpoints run on a thread of their own, not on the thread pool the database was given (whose threads read
    /// a rebuild's files meanwhile): with that pool stopped, the WAL is still copied beside the writer.
    @Test func checkpointsTakeNoThreadOfThePool() throws {
        let threads = NIOThreadPool(numberOfThreads: 1)
        threads.start()
        try threads.syncShutdownGracefully()
        let pool = try DatabasePool(path: self.folder + "/own-thread.sqlite", threadPool: threads, checkpointPages: 40)
        try pool.write { db in try db.execute(sql: "CREATE TABLE page (b BLOB)") }
        let before = try self.fileSize(pool)
        try self.writePages(pool, 45)
        pool.waitForCheckpoints()
        // Copied by the checkpoint handed off at 40 pages: nothing else copies the WAL here (the writer copies it
        // itself only four times the bound ahead, which 45 commits do not reach). How much it copied depends on
        // when it ran: beside the last commits (a busy machine starts the thread at once), what they wrote after
        // its RESTART starts the next WAL and waits for the next checkpoint, so no more than that is asked.
        let copied = try self.fileSize(pool)
        #expect(copied > before, "\(copied) bytes after the checkpoint, \(before) before")
    }

    /// A checkpoint the pool drops (it is stopping) is handed off again at the next commit.
    @Test func aDroppedCheckpointIsHandedOffAgain() throws {
        let (pool, held) = try self.openWithHeldCheckpoints("dropped.sqlite", pages: 40)
        try self.writePages(pool, 45)
        #expect(held.count == 1)
        held.drop()
        try self.writePages(pool, 1)
        #expect(held.count == 1)
    }

    /// A reader on an older snapshot does not hold a checkpoint (nor, through it, the writer) for the busy timeout:
    /// the checkpoint gives up after `Checkpoints.patience` and leaves the rest to the next. (With the pool's two
    /// minutes it would wait them out, and the time limit fails it.)
    @Test(.timeLimit(.minutes(1))) func aLongReadDoesNotHoldTheCheckpoint() throws {
        let held = HeldCheckpoints()
        let pool = try DatabasePool(
            path: self.folder + "/reading.sqlite", readers: 2, busyTimeout: .seconds(120), checkpointPages: 20,
            scheduleCheckpoint: { held.hold($0) })
        try pool.write { db in try db.execute(sql: "CREATE TABLE page (b BLOB)") }
        try self.writePages(pool, 5)
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let reader = Thread {
            _ = try? pool.read { db in
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM page")
                entered.signal()
                release.wait()
            }
        }
        reader.start()
        entered.wait()
        while held.count == 0 { try self.writePages(pool, 1) }
        held.run()
        release.signal()
        try self.writePages(pool, 1)
        #expect(try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM page") ?? 0 } > 5)
    }

    /// A writer four times the bound ahead of its checkpoints (none ran) copies the WAL in its own commit, as
    /// SQLite would: the WAL stays bounded whatever the thread pool does.
    @Test func aWriterFarAheadCheckpointsItself() throws {
        let (pool, held) = try self.openWithHeldCheckpoints("ahead.sqlite", pages: 20)
        let before = try self.fileSize(pool)
        var written = 0
        while try self.fileSize(pool) == before, written < 200 {
            try self.writePages(pool, 1)
            written += 1
        }
        #expect(try self.fileSize(pool) > before, "the writer copied the WAL itself")
        #expect(try self.walFrames(pool) >= 80, "only once four times the bound waited")
        #expect(held.count == 1, "the one handed off is still waiting")
    }

    /// With the pool's own scheduling, the checkpoint runs on the thread pool: the file has every page once it
    /// has run, and the data reads back whole from a new pool after the first is closed.
    @Test func theThreadPoolRunsTheCheckpoints() async throws {
        let path = self.folder + "/pooled.sqlite"
        do {
            let pool = try DatabasePool(path: path, checkpointPages: 30)
            try await pool.write { db in try db.execute(sql: "CREATE TABLE page (b BLOB)") }
            let before = try self.fileSize(pool)
            try self.writePages(pool, 40)
            // Done when the file has grown: the checkpoint ran on a pool thread (nothing else copies the WAL here).
            while try self.fileSize(pool) < before + 30 * 4_096 { await Task.yield() }
        }
        let again = try DatabasePool(path: path)
        #expect(try await again.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM page") } == 40)
    }

    @Test func closingLeavesNoWriteAheadLog() throws {
        let path = self.folder + "/closed.sqlite"
        do {
            let pool = try self.open("closed.sqlite")
            try pool.write { db in try db.execute(sql: "INSERT INTO value (i) VALUES (1)") }
            _ = try pool.read { db in try Int.fetchAll(db, sql: "SELECT i FROM value") }
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(try self.open("closed.sqlite").read { db in try Int.fetchAll(db, sql: "SELECT i FROM value") } == [1])
    }

    /// A file SQLite cannot read is moved aside (with what SQLite said) and a new database made in its place; the
    /// damaged bytes are kept as they were.
    @Test func aDamagedFileIsMovedAsideAndANewOneMade() throws {
        let path = self.folder + "/damaged.sqlite"
        let garbage = Data(repeating: 0x5A, count: 8192)
        try garbage.write(to: URL(fileURLWithPath: path))
        var moved: (String, DatabaseError)?
        let pool = try DatabasePool.open(path: path, readers: 1, migrator: Self.table) { moved = ($0, $1) }
        let (aside, error) = try #require(moved)
        #expect(aside.hasPrefix(path + ".corrupt-"))
        #expect(error.isDamage)
        #expect(FileManager.default.contents(atPath: aside) == garbage)
        try pool.write { db in try db.execute(sql: "INSERT INTO value (i) VALUES (1)") }
        #expect(try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM value") } == 1)
    }

    /// Migrations run once each, in order, recorded in GRDB's table: opening again runs none.
    @Test func migrationsRunOnceInOrder() throws {
        var runs: [String] = []
        func migrator() -> DatabaseMigrator {
            var migrator = DatabaseMigrator()
            migrator.registerMigration("v1") { db in
                runs.append("v1")
                try db.execute(sql: "CREATE TABLE a (x)")
            }
            migrator.registerMigration("v2") { db in
                runs.append("v2")
                try db.execute(sql: "ALTER TABLE a ADD COLUMN y")
            }
            return migrator
        }
        let path = self.folder + "/migrated.sqlite"
        _ = try DatabasePool.open(path: path, readers: 1, migrator: migrator())
        let again = try DatabasePool.open(path: path, readers: 1, migrator: migrator())
        #expect(runs == ["v1", "v2"])
        #expect(
            try again.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
                == ["v1", "v2"])
    }
}

/// Checkpoints a pool handed off, held until the test runs or drops them.
final class HeldCheckpoints: Sendable {
    private let jobs = Mutex<[@Sendable (Bool) -> Void]>([])

    var count: Int { self.jobs.withLock { $0.count } }

    func hold(_ job: @escaping @Sendable (Bool) -> Void) { self.jobs.withLock { $0.append(job) } }

    /// Runs the checkpoints held (the pool's thread would).
    func run() { self.take().forEach { $0(true) } }

    /// Drops them (a stopping pool would).
    func drop() { self.take().forEach { $0(false) } }

    private func take() -> [@Sendable (Bool) -> Void] {
        self.jobs.withLock { jobs in
            defer { jobs = [] }
            return jobs
        }
    }
}
