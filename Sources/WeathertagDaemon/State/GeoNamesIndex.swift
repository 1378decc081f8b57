import FoundationEssentials
import Glibc
import Logging
import SystemPackage
import WeathertagCore
import WeathertagSQLite

/// GeoNames' populated places in an R*Tree (`geonames.sqlite` in `state.directory`), built once from the cities
/// file in `geocoding.geonames_directory` and again only when that file, `admin1CodesASCII.txt` or
/// `alternateNamesV2.txt` (the places' names in other languages, optional) changes. A
/// position is named with no request at all: the nearest place in a box around it, the box widened until one is
/// found. Like the state database it is an index: deleted, it is built again.
package final class GeoNamesIndex: Sendable {
    package static let fileName = "geonames.sqlite"

    let database: DatabasePool
    /// The cities file it was built from.
    package let source: String
    package let places: Int

    /// Opens the index in `stateDirectory`, building it from `geonamesDirectory` when it does not match the files
    /// there. Slow the first time (seconds for cities500): call it on the thread pool.
    package static func open(stateDirectory: String, geonamesDirectory: String, logger: Logger) throws -> GeoNamesIndex
    {
        let manager = FileManager.default
        guard
            let cities = GeoNamesRecord.cityFiles.map({ geonamesDirectory + "/" + $0 }).first(where: {
                manager.isReadableFile(atPath: $0)
            })
        else {
            throw GeoNamesError(
                message: "no \(GeoNamesRecord.cityFiles.joined(separator: ", ")) in \(geonamesDirectory)")
        }
        let regions = geonamesDirectory + "/" + GeoNamesRecord.regionFile
        let names = geonamesDirectory + "/" + GeoNamesRecord.namesFile
        let signature = [cities, regions, names].map { path -> String in
            var facts = stat()
            guard stat(path, &facts) == 0 else { return "\(path):-1:-1" }
            return "\(path):\(facts.st_size):\(facts.st_mtim.tv_sec).\(facts.st_mtim.tv_nsec)"
        }.joined(separator: "|")
        try manager.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
        let path = stateDirectory + "/" + Self.fileName
        // Only an index: unreadable, it is moved aside and built again.
        let database = try DatabasePool.open(path: path, readers: 2, migrator: Self.migrator)
        let built = try database.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'source'")
        }
        if built != signature {
            let started = ContinuousClock.now
            try Self.build(database, files: (cities, regions, names), signature: signature)
            logger.info(
                "indexed GeoNames' places",
                metadata: ["file": "\(cities)", "took": "\(ContinuousClock.now - started)"])
        }
        let places = try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM place") ?? 0 }
        return GeoNamesIndex(database: database, source: cities, places: places)
    }

    private init(database: DatabasePool, source: String, places: Int) {
        self.database = database
        self.source = source
        self.places = places
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: places and their boxes") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
                    CREATE TABLE place (
                        id INTEGER PRIMARY KEY, name TEXT NOT NULL, region TEXT, country TEXT NOT NULL,
                        latitude REAL NOT NULL, longitude REAL NOT NULL
                    );
                    CREATE VIRTUAL TABLE place_box USING rtree(id, min_lat, max_lat, min_lon, max_lon);
                    """)
        }
        migrator.registerMigration("v2: each place's zone") { db in
            // Filled by the next build, which forgetting the source makes happen.
            try db.execute(sql: "ALTER TABLE place ADD COLUMN zone TEXT; DELETE FROM meta")
        }
        migrator.registerMigration("v3: places' names in other languages") { db in
            try db.execute(
                sql: """
                    CREATE TABLE place_name (
                        id INTEGER NOT NULL, language TEXT NOT NULL, name TEXT NOT NULL, rank INTEGER NOT NULL,
                        PRIMARY KEY (id, language)
                    ) WITHOUT ROWID;
                    DELETE FROM meta;
                    """)
        }
        return migrator
    }

    /// Reads the files a megabyte at a time and writes every place, and its names in other languages, in one
    /// transaction.
    private static func build(
        _ database: DatabasePool, files: (cities: String, regions: String, names: String), signature: String
    ) throws {
        let (cities, regions) = (files.cities, files.regions)
        var regionNames: [String: String] = [:]
        try Self.lines(of: regions) { line in
            if let region = GeoNamesRecord.region(line: line) { regionNames[region.code] = region.name }
        }
        try database.write { db in
            try db.execute(sql: "DELETE FROM place; DELETE FROM place_box; DELETE FROM meta")
            let place = try db.makeStatement(
                sql:
                    "INSERT OR REPLACE INTO place (id, name, region, country, latitude, longitude, zone) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?)"
            )
            let box = try db.makeStatement(
                sql: "INSERT OR REPLACE INTO place_box (id, min_lat, max_lat, min_lon, max_lon) VALUES (?, ?, ?, ?, ?)")
            var failure: (any Error)?
            try Self.lines(of: cities) { line in
                guard failure == nil, let record = GeoNamesRecord(line: line) else { return }
                do {
                    let region = regionNames[record.country + "." + record.admin1]
                    try place.execute(
                        arguments: [
                            record.id, record.name, region, record.country, record.latitude, record.longitude,
                            record.zone,
                        ])
                    try box.execute(
                        arguments: [record.id, record.latitude, record.latitude, record.longitude, record.longitude])
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            try Self.addNames(db, from: files.names)
            try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('source', ?)", arguments: [signature])
        }
    }

    /// The names in other languages of the places indexed (GeoNames' whole file names millions of other places,
    /// skipped): one per place and language, the best ranked, the first of equals.
    private static func addNames(_ db: Database, from path: String) throws {
        try db.execute(sql: "DELETE FROM place_name")
        let name = try db.makeStatement(
            sql: """
                INSERT INTO place_name (id, language, name, rank)
                SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM place WHERE id = ?1)
                ON CONFLICT (id, language) DO UPDATE SET name = excluded.name, rank = excluded.rank
                WHERE excluded.rank > place_name.rank
                """)
        var failure: (any Error)?
        try Self.lines(of: path) { line in
            guard failure == nil, let local = GeoNamesRecord.localName(line: line) else { return }
            do {
                try name.execute(arguments: [local.id, local.language, local.name, local.rank])
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// A GeoNames line is a few hundred bytes (its alternate names the most); a longer one is not GeoNames': skipped.
    static let longestLine = 64 << 10

    /// Calls `body` with each line of the file at `path` (a missing file has none), reading a megabyte at a time.
    /// Lines are split as bytes and decoded whole (a chunk's edge may fall inside a character); a line longer than
    /// `longestLine` is skipped, so a file without line ends cannot grow memory to its size.
    static func lines(of path: String, _ body: (Substring) -> Void) throws {
        guard let handle = try? FileDescriptor.open(path, .readOnly) else { return }
        defer { try? handle.close() }
        var pending: [UInt8] = []
        var overlong = false
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        func emit(_ line: ArraySlice<UInt8>) {
            let text = String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self)
            if !text.isEmpty { body(Substring(text)) }
        }
        while case let count = try buffer.withUnsafeMutableBytes({ try handle.read(into: $0) }), count > 0 {
            var start = 0
            for index in 0..<count where buffer[index] == 10 {
                if overlong || pending.count + index - start > Self.longestLine {
                    overlong = false
                } else if pending.isEmpty {
                    emit(buffer[start..<index])
                } else {
                    pending += buffer[start..<index]
                    emit(pending[...])
                }
                pending.removeAll(keepingCapacity: true)
                start = index + 1
            }
            guard start < count, !overlong else { continue }
            if pending.count + count - start > Self.longestLine {
                overlong = true
                pending.removeAll()
            } else {
                pending += buffer[start..<count]
            }
        }
        if !pending.isEmpty, !overlong { emit(pending[...]) }
    }

    /// The populated place nearest the position, searched in a box of about 5 km widened up to about 500 km: its
    /// name within `PlaceName.townReach`, else its region's.
    package func place(near latitude: Double, _ longitude: Double) async -> PlaceName? {
        do {
            return try await self.database.read { db -> PlaceName? in
                /// The places in the square of half-side `half` degrees around the position.
                func around(_ half: Double) throws -> [Row] {
                    try Row.fetchAll(
                        db,
                        sql: """
                            SELECT place.name, place.region, place.country, place.latitude, place.longitude, place.zone,
                                place.id
                            FROM place_box JOIN place ON place.id = place_box.id
                            WHERE min_lat >= ? AND max_lat <= ? AND min_lon >= ? AND max_lon <= ?
                            """,
                        arguments: [latitude - half, latitude + half, longitude - half, longitude + half])
                }
                for half in [0.05, 0.25, 1.0, 5.0] {
                    guard try !around(half).isEmpty else { continue }
                    // The nearest may lie just outside the square, within its circle: one more look, wider.
                    let nearest = try around(half * 1.42).min { a, b in
                        Position.distance(latitude, longitude, a[3], a[4])
                            < Position.distance(latitude, longitude, b[3], b[4])
                    }
                    guard let nearest else { return nil }
                    let localNames = try Row.fetchAll(
                        db, sql: "SELECT language, name FROM place_name WHERE id = ?", arguments: [nearest[6] as Int64]
                    ).reduce(into: [String: String]()) { $0[$1[0]] = $1[1] }
                    return PlaceName.near(
                        PlaceName(
                            name: nearest[0], localNames: localNames, region: nearest[1], country: nearest[2],
                            zone: nearest[5]),
                        distance: Position.distance(latitude, longitude, nearest[3], nearest[4]))
                }
                return nil
            }
        } catch {
            return nil
        }
    }
}

package struct GeoNamesError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package var description: String { self.message }
}
