import CSQLite
import Dispatch
import NIOPosix
import Synchronization

/// A writer and readers on one database in WAL mode: reads see a snapshot and never wait for the writer; writes
/// are one at a time, each in a transaction. Synchronous calls run on the caller's thread; the `async` ones on the
/// NIO thread pool it was given, never on the cooperative pool.
package final class DatabasePool: Sendable {
    package let path: String
    private let writer: Exclusive
    private let readers: [Exclusive]
    private let free: Mutex<[Int]>
    private let available: DispatchSemaphore
    /// Where the `async` calls wait for a connection and run (SQLite blocks): the process's blocking pool.
    private let threadPool: NIOThreadPool

    /// Copies the WAL into the database beside the writer (`Checkpoints`).
    private let checkpoints: Checkpoints
    /// Where the checkpoints run.
    private let checkpointThread: CheckpointThread

    /// Pages waiting in the WAL that start a checkpoint.
    package static let walCheckpointPages = 4000

    /// Opens (creating it if needed) the database at `path` with one writer and `readers` readers. Each statement
    /// waits up to `busyTimeout` for another process's lock; `prepare` runs on every connection once. Checkpoints
    /// start once `checkpointPages` pages wait in the WAL, on a thread of their own (`CheckpointThread`) unless
    /// `scheduleCheckpoint` runs them.
    package init(
        path: String, readers: Int = 1, busyTimeout: Duration = .seconds(5), threadPool: NIOThreadPool = .singleton,
        checkpointPages: Int = DatabasePool.walCheckpointPages,
        scheduleCheckpoint: (@Sendable (_ job: @escaping @Sendable (_ runs: Bool) -> Void) -> Void)? = nil,
        prepare: (Database) throws -> Void = { _ in }
    ) throws {
        self.path = path
        self.threadPool = threadPool
        let writer = try Database(path: path, readOnly: false, busyTimeout: busyTimeout)
        // WAL: the daemon and the `stamp` command read and write side by side. Synchronous NORMAL: a commit survives
        // the process being killed; only a power cut can lose the last ones.
        try writer.execute(sql: "PRAGMA journal_mode = WAL")
        try writer.execute(sql: "PRAGMA synchronous = NORMAL")
        // The WAL is copied into the database every `walCheckpointPages` pages, not SQLite's 1,000: a page written by
        // many transactions between two checkpoints is copied once. A 50,000-entry index rebuild read 684 MB and
        // wrote 579 MB through system calls with 1,000 (and 256-entry batches), 644 and 531 MB with 4,000 (and
        // 512-entry batches), and took a tenth less CPU. The WAL file grows to about 16 MiB and is written over from
        // its start after each checkpoint, which runs beside the writer, not in its commit (`Checkpoints`).
        let checkpointThread = CheckpointThread()
        self.checkpointThread = checkpointThread
        let checkpoints = Checkpoints(
            path: path, busyTimeout: busyTimeout, pages: checkpointPages,
            schedule: scheduleCheckpoint ?? { job in checkpointThread.submit(job) })
        checkpoints.watch(writer)
        self.checkpoints = checkpoints
        try prepare(writer)
        self.writer = Exclusive(writer)
        self.readers = try (0..<max(1, readers)).map { _ in
            let reader = try Database(path: path, readOnly: true, busyTimeout: busyTimeout)
            try prepare(reader)
            return Exclusive(reader)
        }
        self.free = Mutex(Array(self.readers.indices))
        self.available = DispatchSemaphore(value: self.readers.count)
    }

    /// Readers first, then the writer: the last to close folds the WAL into the database file, and only the writer
    /// can.
    deinit {
        for reader in self.readers { reader.close() }
        self.checkpoints.close()
        self.writer.close()
        self.checkpointThread.stop()
    }

    /// Returns once the checkpoints handed off before have run (for tests; the daemon never waits for them).
    package func waitForCheckpoints() {
        self.checkpointThread.waitForSubmitted()
    }

    /// Runs `body` in a read transaction: one snapshot for all its statements.
    package func read<T>(_ body: (Database) throws -> T) throws -> T {
        self.available.wait()
        let index = self.free.withLock { $0.removeLast() }
        defer {
            self.free.withLock { $0.append(index) }
            self.available.signal()
        }
        return try self.readers[index].run { db in try Self.transaction(db, "BEGIN DEFERRED", body) }
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`), committed when it returns, rolled back when it throws.
    package func write<T>(_ body: (Database) throws -> T) throws -> T {
        try self.writer.run { db in try Self.transaction(db, "BEGIN IMMEDIATE", body) }
    }

    /// `read` on the thread pool.
    package func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await self.threadPool.runIfActive { try self.read(body) }
    }

    /// `write` on the thread pool.
    package func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await self.threadPool.runIfActive { try self.write(body) }
    }

    /// `BEGIN` and `COMMIT` prepared once for each connection: parsed again for each transaction, they were 4 % of
    /// the pool threads' samples for entries dropped one at a time, whose batches make two each (`perf record`).
    private static func transaction<T>(_ db: Database, _ begin: String, _ body: (Database) throws -> T) throws -> T {
        try db.cachedStatement(sql: begin).execute()
        do {
            let result = try body(db)
            try db.cachedStatement(sql: "COMMIT").execute()
            return result
        } catch {
            try? db.execute(sql: "ROLLBACK")
            throw error
        }
    }
}

/// A connection and the lock that gives it to one thread at a time.
///
/// `@unchecked Sendable`: the connection is reached only through `run`, under the lock.
final class Exclusive: @unchecked Sendable {
    private let lock = Mutex(())
    private let database: Database

    init(_ database: Database) { self.database = database }

    func run<T>(_ body: (Database) throws -> T) throws -> T {
        try self.lock.withLock { _ in try body(self.database) }
    }

    func close() { self.lock.withLock { _ in self.database.close() } }
}

/// Migrations, each applied once and in order, recorded in GRDB's table (`grdb_migrations`) so that databases made
/// when weathertag used GRDB carry on as they are.
package struct DatabaseMigrator {
    private var migrations: [(identifier: String, body: (Database) throws -> Void)] = []

    package init() {}

    package mutating func registerMigration(_ identifier: String, migrate: @escaping (Database) throws -> Void) {
        self.migrations.append((identifier, migrate))
    }

    package func migrate(_ pool: DatabasePool) throws {
        // Read first: a database that has every migration, as at every start but the first after an upgrade, takes
        // no write lock. (A new file has no table yet, which reads as none applied.)
        let applied = try? pool.read { db in
            Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
        }
        if let applied, self.migrations.allSatisfy({ applied.contains($0.identifier) }) { return }
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            let applied = Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
            for migration in self.migrations where !applied.contains(migration.identifier) {
                try migration.body(db)
                try db.execute(
                    sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [migration.identifier])
            }
        }
    }
}

/// The checkpoints' own thread, started at the first checkpoint (most databases never need one: the `stamp`
/// command's, the tests').
///
/// Not the process's thread pool: a checkpoint spends most of its time waiting for the disk (its `fsync`s), and on
/// the pool it held one of the two threads that stamp entries and read a rebuild's files. In a 50,000-entry rebuild
/// the pool's threads waited for the disk 429 times, 357 of them in a checkpoint; on this thread, 71 and 8
/// (`perf record` of `sched_switch`). The rebuild's time did not change beyond its noise (2.2–2.4 s either way).
final class CheckpointThread: Sendable {
    private let pool = Mutex<NIOThreadPool?>(nil)
    private let stopped = Atomic<Bool>(false)

    deinit { self.stop() }

    /// Runs `job(true)` on the thread, or `job(false)` once stopped.
    func submit(_ job: @escaping @Sendable (_ runs: Bool) -> Void) {
        let pool = self.pool.withLock { pool -> NIOThreadPool? in
            if pool == nil, !self.stopped.load(ordering: .acquiring) {
                let started = NIOThreadPool(numberOfThreads: 1)
                started.start()
                pool = started
            }
            return pool
        }
        guard let pool else { return job(false) }
        pool.submit { state in
            guard case .active = state else { return job(false) }
            job(true)
        }
    }

    /// Returns once the checkpoints submitted before have run (at once when none ever was).
    func waitForSubmitted() {
        guard let pool = self.pool.withLock({ $0 }) else { return }
        let done = DispatchSemaphore(value: 0)
        // One thread: what was submitted before runs before this.
        pool.submit { _ in done.signal() }
        done.wait()
    }

    /// Lets a running checkpoint finish and drops what waits; the thread ends.
    func stop() {
        self.stopped.store(true, ordering: .releasing)
        self.pool.withLock { $0 }?.shutdownGracefully { _ in }
    }
}
