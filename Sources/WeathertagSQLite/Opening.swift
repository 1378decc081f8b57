import FoundationEssentials
import Glibc
import NIOPosix

extension DatabasePool {
    /// How weathertag opens each of its databases (state, tracks, GeoNames): WAL with synchronous NORMAL, a writer and
    /// `readers` readers with a page cache of `cacheKiB` each, statements waiting up to `busyTimeout` for another
    /// process's lock (the open too: SQLite answers a connection's WAL set-up with SQLITE_BUSY at once, without the
    /// busy timeout, while another connection writes), then `migrator`'s migrations. A file SQLite cannot read is
    /// moved aside (`moveAside`) and a new one made; `movedAside` is told where, and why.
    ///
    /// Every database here is an index or a memory, never the truth: the files are. So damage costs what the
    /// database held, never an entry.
    package static func open(
        path: String, readers: Int, migrator: DatabaseMigrator, threadPool: NIOThreadPool = .singleton,
        busyTimeout: Duration = .seconds(5), cacheKiB: Int = 1024,
        movedAside: (_ to: String, _ error: DatabaseError) -> Void = { _, _ in }
    ) throws -> DatabasePool {
        do {
            return try Self.connect(
                path: path, readers: readers, migrator: migrator, threadPool: threadPool, busyTimeout: busyTimeout,
                cacheKiB: cacheKiB)
        } catch let error as DatabaseError where error.isDamage {
            movedAside(try Self.moveAside(path), error)
            return try Self.connect(
                path: path, readers: readers, migrator: migrator, threadPool: threadPool, busyTimeout: busyTimeout,
                cacheKiB: cacheKiB)
        }
    }

    private static func connect(
        path: String, readers: Int, migrator: DatabaseMigrator, threadPool: NIOThreadPool, busyTimeout: Duration,
        cacheKiB: Int
    ) throws -> DatabasePool {
        // WAL and synchronous NORMAL are the writer's (`init`): a reader asking for WAL while another process was
        // creating the file got SQLITE_BUSY without waiting.
        let prepare: (Database) throws -> Void = { db in try db.execute(sql: "PRAGMA cache_size = -\(cacheKiB)") }
        let deadline = ContinuousClock.now + busyTimeout
        while true {
            do {
                let pool = try DatabasePool(
                    path: path, readers: readers, busyTimeout: busyTimeout, threadPool: threadPool, prepare: prepare)
                try migrator.migrate(pool)
                return pool
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && ContinuousClock.now < deadline
            {
                usleep(20_000)
            }
        }
    }

    /// Moves the database at `path` and its `-wal` and `-shm` files to `<path>.corrupt-<time>`; returns that name.
    package static func moveAside(_ path: String) throws -> String {
        let aside = path + ".corrupt-" + String(Int(Date().timeIntervalSince1970))
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            guard rename(path + suffix, aside + suffix) == 0 else {
                throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "cannot move \(path + suffix) aside")
            }
        }
        return aside
    }
}

extension DatabaseError {
    /// The file is not a database SQLite can read (`SQLITE_CORRUPT`, `SQLITE_NOTADB`).
    package var isDamage: Bool { [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(self.resultCode) }
}
