import FoundationEssentials
import Glibc
import WeathertagCore
import WeathertagSQLite

/// The points of the `track` provider's files, keyed by time, in SQLite: "where was I at T" is two lookups on the
/// key (the last point at or before T, the first at or after), a fraction of a millisecond at 3 million points, and
/// nothing is parsed per question.
///
/// Kept in `state.directory` as `tracks.sqlite`, a file of its own beside `state.sqlite`: indexing a year of points
/// writes for seconds, and in the same file that write lock would hold the inbox's batches back. Like the state
/// database it is an index, not a truth: deleted, it is rebuilt from the track files; unreadable, it is moved aside
/// and rebuilt.
package final class TrackIndex: Sendable {
    package static let fileName = "tracks.sqlite"

    package let path: String
    let database: DatabasePool

    /// What the index holds of one file, and where a read of it goes on when it grows.
    package struct IndexedFile: Sendable, Equatable {
        package var id: Int64
        package var path: String
        package var version: FileVersion
        package var resume: TrackResume
        package var points: Int
        package var firstMilliseconds: Int64?
        package var lastMilliseconds: Int64?
        package var problems: Int
    }

    package static func open(directory: String) throws -> TrackIndex {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/" + Self.fileName
        // Only an index: unreadable, it is moved aside and rebuilt from the files. Two readers: `most_accurate` may
        // ask about now and a past moment at once while the writer indexes.
        return TrackIndex(
            path: path, database: try DatabasePool.open(path: path, readers: 2, migrator: Self.migrator))
    }

    private init(path: String, database: DatabasePool) {
        self.path = path
        self.database = database
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: track files and points") { db in
            try db.execute(
                sql: """
                    CREATE TABLE track_file (
                        id INTEGER PRIMARY KEY,
                        path TEXT UNIQUE NOT NULL,
                        device INTEGER NOT NULL, inode INTEGER NOT NULL, size INTEGER NOT NULL,
                        mtime_s INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
                        resume_offset INTEGER NOT NULL, resume_line INTEGER NOT NULL,
                        points INTEGER NOT NULL, first_t INTEGER, last_t INTEGER,
                        problems INTEGER NOT NULL
                    );
                    CREATE TABLE track_point (
                        t INTEGER NOT NULL,    -- milliseconds since 1970, UTC
                        file INTEGER NOT NULL, -- track_file.id
                        lat REAL NOT NULL, lon REAL NOT NULL,
                        acc REAL,              -- metres, when the recorder gave one
                        PRIMARY KEY (t, file)
                    ) WITHOUT ROWID;
                    """)
        }
        return migrator
    }

    // MARK: Files

    package func files() throws -> [IndexedFile] {
        try self.database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM track_file ORDER BY path").map(Self.file)
        }
    }

    private static func file(_ row: Row) -> IndexedFile {
        IndexedFile(
            id: row["id"],
            path: row["path"],
            version: FileVersion(
                device: UInt64(bitPattern: row["device"]), inode: UInt64(bitPattern: row["inode"]),
                size: row["size"], modifiedSeconds: row["mtime_s"], modifiedNanoseconds: row["mtime_ns"]),
            resume: TrackResume(offset: row["resume_offset"], line: row["resume_line"]),
            points: row["points"],
            firstMilliseconds: row["first_t"],
            lastMilliseconds: row["last_t"],
            problems: row["problems"]
        )
    }

    /// Starts a file anew (first seen, or rewritten): its old points go. Returns its id.
    package func restart(_ path: String, version: FileVersion) throws -> IndexedFile {
        try self.database.write { db in
            if let old = try Row.fetchOne(db, sql: "SELECT * FROM track_file WHERE path = ?", arguments: [path]) {
                try Self.deletePoints(of: Self.file(old), db)
                try db.execute(sql: "DELETE FROM track_file WHERE id = ?", arguments: [old["id"] as Int64])
            }
            try db.execute(
                sql: """
                    INSERT INTO track_file (path, device, inode, size, mtime_s, mtime_ns, resume_offset,
                        resume_line, points, problems)
                    VALUES (?, ?, ?, 0, 0, 0, 0, 1, 0, 0)
                    """,
                arguments: [path, Int64(bitPattern: version.device), Int64(bitPattern: version.inode)])
            return IndexedFile(
                id: db.lastInsertedRowID, path: path,
                version: FileVersion(
                    device: version.device, inode: version.inode, size: 0, modifiedSeconds: 0,
                    modifiedNanoseconds: 0),
                resume: TrackResume(), points: 0, firstMilliseconds: nil, lastMilliseconds: nil, problems: 0)
        }
    }

    /// Adds points read from a file, and where its read stands, in one transaction.
    package func add(_ points: [TrackPoint], to file: inout IndexedFile, problems: Int) throws {
        let updated = try self.database.write { db -> IndexedFile in
            var file = file
            let insert = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO track_point (t, file, lat, lon, acc) VALUES (?, ?, ?, ?, ?)")
            for point in points {
                try insert.execute(arguments: [
                    point.milliseconds, file.id, point.latitude, point.longitude, point.accuracyMeters,
                ])
                file.firstMilliseconds = min(file.firstMilliseconds ?? point.milliseconds, point.milliseconds)
                file.lastMilliseconds = max(file.lastMilliseconds ?? point.milliseconds, point.milliseconds)
            }
            file.points += points.count
            file.problems += problems
            try db.execute(
                sql: """
                    UPDATE track_file SET size = ?, mtime_s = ?, mtime_ns = ?, resume_offset = ?, resume_line = ?,
                        points = ?, first_t = ?, last_t = ?, problems = ?
                    WHERE id = ?
                    """,
                arguments: [
                    file.version.size, file.version.modifiedSeconds, file.version.modifiedNanoseconds,
                    file.resume.offset, file.resume.line, file.points, file.firstMilliseconds, file.lastMilliseconds,
                    file.problems, file.id,
                ])
            return file
        }
        file = updated
    }

    /// A file that left the folder: its points go too.
    package func forget(_ file: IndexedFile) throws {
        try self.database.write { db in
            try Self.deletePoints(of: file, db)
            try db.execute(sql: "DELETE FROM track_file WHERE id = ?", arguments: [file.id])
        }
    }

    private static func deletePoints(of file: IndexedFile, _ db: Database) throws {
        guard let first = file.firstMilliseconds, let last = file.lastMilliseconds else { return }
        // Through the key's time range, not a scan of every point.
        try db.execute(
            sql: "DELETE FROM track_point WHERE t BETWEEN ? AND ? AND file = ?", arguments: [first, last, file.id])
    }

    // MARK: Questions

    /// The last point at or before `milliseconds` and the first at or after it. Asynchronous (the pool's own reader
    /// queue): a provider asked from async code never blocks the cooperative pool on SQLite.
    package func around(_ milliseconds: Int64) async throws -> (before: TrackPoint?, after: TrackPoint?) {
        try await self.database.read { db in
            let before = try Row.fetchOne(
                db, sql: "SELECT t, lat, lon, acc FROM track_point WHERE t <= ? ORDER BY t DESC LIMIT 1",
                arguments: [milliseconds])
            let after = try Row.fetchOne(
                db, sql: "SELECT t, lat, lon, acc FROM track_point WHERE t >= ? ORDER BY t ASC LIMIT 1",
                arguments: [milliseconds])
            return (before.map(Self.point), after.map(Self.point))
        }
    }

    /// How many points it holds, over every file.
    package func pointCount() throws -> Int {
        try self.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM track_point") ?? 0 }
    }

    /// The newest point of all, from the indexing thread.
    package func latest() throws -> TrackPoint? {
        try self.database.read { db in try Self.latest(db) }
    }

    /// The newest point of all, from async code (the pool's own threads, not the cooperative pool).
    package func latest() async throws -> TrackPoint? {
        try await self.database.read { db in try Self.latest(db) }
    }

    private static func latest(_ db: Database) throws -> TrackPoint? {
        try Row.fetchOne(db, sql: "SELECT t, lat, lon, acc FROM track_point ORDER BY t DESC LIMIT 1").map(Self.point)
    }

    private static func point(_ row: Row) -> TrackPoint {
        TrackPoint(milliseconds: row["t"], latitude: row["lat"], longitude: row["lon"], accuracyMeters: row["acc"])
    }
}
