import Foundation
import Glibc
import NIOPosix
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
