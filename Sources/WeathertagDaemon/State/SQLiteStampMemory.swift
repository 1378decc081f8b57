import FoundationEssentials
import WeathertagCore
import WeathertagSQLite

/// The memory of stamps in the state database (table `entry`): the weather block of every entry stamped or found
/// stamped, by path relative to the inbox, so that an entry coming back without its block gets the same one back.
/// A batch's blocks and its index rows are written in one transaction (`DiaryTables.index`). Every method is
/// synchronous and is called from pool threads or the watcher's thread, never from the event loop.
package struct SQLiteStampMemory: StampMemory {
    let database: StateDatabase

    package var policy: RestorePolicy { self.database.policy }

    @discardableResult
    package func checkIntegrity() -> Bool { self.database.checkIntegrity() }

    /// The block to write back into `path`, which has none; nil for new weather.
    package func blockToRestore(_ path: String, now: Date = Date()) -> [String]? {
        self.blocksToRestore([path], now: now)[path]
    }

    /// The blocks to write back into any of `paths` that has none, in one query (a batch asks once).
    package func blocksToRestore(_ paths: [String], now: Date = Date()) -> [String: [String]] {
        guard !paths.isEmpty else { return [:] }
        do {
            return try self.database.pool.read { db in try self.blocksToRestore(db, paths, now: now) }
        } catch {
            self.database.logger.warning(
                "cannot read the state database; entries get new weather", metadata: ["error": "\(error)"])
            return [:]
        }
    }

    /// The same, in a transaction of the caller's.
    func blocksToRestore(_ db: Database, _ paths: [String], now: Date) throws -> [String: [String]] {
        guard !paths.isEmpty else { return [:] }
        // (A block taken out on request is never given back.)
        let rows = try Row.fetchAll(
            db, select: "SELECT path, block, removed_at, withdrawn_at IS NOT NULL AS withdrawn FROM entry WHERE path",
            in: paths)
        var blocks: [String: [String]] = [:]
        for row in rows where !(row["withdrawn"] as Bool) {
            let removedAt: Double? = row["removed_at"]
            let remembered = RememberedStamp(
                block: Self.lines(row["block"]), removedAt: removedAt.map(Date.init(timeIntervalSince1970:)))
            if let block = self.database.policy.block(for: remembered, now: now) { blocks[row["path"]] = block }
        }
        return blocks
    }

    private static func lines(_ block: String) -> [String] {
        block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// What is remembered of `path`.
    package func remembered(_ path: String) throws -> RememberedStamp? {
        try self.database.pool.read { db in
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
    package func count() throws -> Int {
        try self.database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") ?? 0 }
    }

    // MARK: Writing (each call one transaction)

    /// Remembers a batch's blocks and indexes what it read, in one transaction.
    package func remember(_ records: [StampRecord], index: [DiaryIndexItem] = [], at now: Date = Date()) {
        guard !records.isEmpty || !index.isEmpty else { return }
        let time = now.timeIntervalSince1970
        self.database.write("remember stamps") { db in
            // A batch's entries share its one block (the same tag's lines): its fingerprint made once.
            var last: (block: [String], fingerprint: Int64)?
            for record in records {
                let block = Self.text(record.block)
                let fingerprint: Int64
                if let last, last.block == record.block {
                    fingerprint = last.fingerprint
                } else {
                    fingerprint = StampFacts.fingerprint(record.block)
                    last = (record.block, fingerprint)
                }
                switch record.origin {
                case .stamped:
                    try db.cachedStatement(Self.rememberStamped).execute(
                        arguments: [record.path, block, time, fingerprint])
                case .restored:
                    try db.cachedStatement(Self.rememberRestored).execute(
                        arguments: [record.path, block, time, fingerprint])
                case .found:
                    try db.cachedStatement(Self.rememberFound).execute(arguments: [record.path, block, fingerprint])
                }
            }
            // Last: its text is the transaction's last statements (`DiaryTables.index`).
            try DiaryTables.index(db, index, at: now)
        }
    }

    private static let rememberStamped = StatementText(
        """
        INSERT INTO entry (path, block, stamped_at, fingerprint) VALUES (?, ?, ?, ?)
        ON CONFLICT (path) DO UPDATE SET
            block = excluded.block, stamped_at = excluded.stamped_at, removed_at = NULL,
            fingerprint = excluded.fingerprint, withdrawn_at = NULL
        """)
    private static let rememberRestored = StatementText(
        """
        INSERT INTO entry (path, block, restored_at, restores, fingerprint) VALUES (?, ?, ?, 1, ?)
        ON CONFLICT (path) DO UPDATE SET
            block = excluded.block, restored_at = excluded.restored_at,
            restores = restores + 1, removed_at = NULL, fingerprint = excluded.fingerprint, withdrawn_at = NULL
        """)
    /// Most listings find what is remembered already: only what differs is written. A block found where another
    /// was remembered is weathertag's writing only when it is the same stamp (its fingerprint: the same properties
    /// written again in another order); otherwise the memory says it was found there.
    private static let rememberFound = StatementText(
        """
        INSERT INTO entry (path, block, fingerprint) VALUES (?, ?, ?)
        ON CONFLICT (path) DO UPDATE SET
            block = excluded.block, removed_at = NULL, fingerprint = excluded.fingerprint, withdrawn_at = NULL,
            stamped_at = CASE WHEN fingerprint IS excluded.fingerprint THEN stamped_at END,
            restored_at = CASE WHEN fingerprint IS excluded.fingerprint THEN restored_at END,
            restores = CASE WHEN fingerprint IS excluded.fingerprint THEN restores ELSE 0 END
        WHERE block IS NOT excluded.block OR removed_at IS NOT NULL OR withdrawn_at IS NOT NULL
        """)

    /// A block's lines as one text, as the memory keeps it (`joinedLines`: a block is joined for every entry
    /// remembered).
    static func text(_ lines: [String]) -> String {
        lines.joinedLines()
    }

    /// Follows renames and removals the watcher saw. A rename moves the memory of the file, or of everything
    /// below the folder, to the new path (a file renamed over an entry, as rsync and editors do, leaves the
    /// entry's memory as it is when the file had none of its own); a removal starts the grace time after which it
    /// is forgotten.
    package func apply(_ changes: [PathChange], at now: Date = Date()) {
        guard !changes.isEmpty else { return }
        let time = now.timeIntervalSince1970
        self.database.write("follow renames") { db in
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
                    try DiaryTables.moveIndexed(db, from: from, to: to)
                case .removed(let path):
                    try db.execute(
                        sql: """
                            UPDATE entry SET removed_at = ?2
                            WHERE (path = ?1 OR substr(path, 1, length(?1) + 1) = ?1 || '/') AND removed_at IS NULL
                            """,
                        arguments: [path, time])
                    try DiaryTables.forgetIndexed(db, under: path)
                }
            }
        }
    }

    /// After a full listing: entries remembered but not found have left the inbox (while the daemon was not
    /// running, say) and start their grace time, unless `keeping` says the file is still there (a note that is no
    /// entry now); those past it are forgotten.
    package func reconcile(present: Set<String>, at now: Date = Date(), keeping: (String) -> Bool = { _ in false }) {
        let time = now.timeIntervalSince1970
        let forgotten = self.database.policy.forgottenBefore(now).timeIntervalSince1970
        self.database.write("reconcile with the inbox") { db in
            let remembered = try String.fetchAll(db, sql: "SELECT path FROM entry WHERE removed_at IS NULL")
            for path in remembered where !present.contains(path) && !keeping(path) {
                try db.execute(sql: "UPDATE entry SET removed_at = ? WHERE path = ?", arguments: [time, path])
            }
            try db.execute(sql: "DELETE FROM entry WHERE removed_at < ?", arguments: [forgotten])
            try DiaryTables.reconcileIndex(db, present: present)
        }
    }

    /// What is remembered of `block` found at `path`: the rows of its fingerprint (`StampFacts`). Another entry
    /// counts only while it is in the inbox (a rename the watcher missed has its old path removed by the listing
    /// before the new one is read) and when weathertag wrote the block there (stamped or given back); the earliest
    /// such write is named.
    package func provenance(of block: [String], at path: String) -> BlockProvenance {
        let fingerprint = StampFacts.fingerprint(block)
        do {
            return try self.database.pool.read { db in
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT path, coalesce(stamped_at, restored_at) AS at, restores, removed_at FROM entry
                        WHERE fingerprint = ? ORDER BY path = ? DESC, at IS NULL, at LIMIT 64
                        """,
                    arguments: [fingerprint, path])
                var elsewhere: BlockProvenance?
                for row in rows {
                    let at: Double? = row["at"]
                    let restores: Int = row["restores"]
                    let written = at != nil || restores > 0
                    let when = at.map(Date.init(timeIntervalSince1970:))
                    if (row["path"] as String) == path { return written ? .writtenHere(at: when) : .foundHere }
                    if elsewhere == nil, written, (row["removed_at"] as Double?) == nil {
                        elsewhere = .writtenInto(row["path"], at: when)
                    }
                }
                return elsewhere ?? .unknown
            }
        } catch {
            self.database.logger.warning(
                "cannot read the state database; a block found is taken for its entry's own",
                metadata: ["error": "\(error)"])
            return .unknown
        }
    }

    /// The block of `path` was taken out on request: never given back, still known as weathertag's writing there.
    package func withdraw(_ path: String, at now: Date = Date()) {
        let time = now.timeIntervalSince1970
        self.database.write("withdraw a block") { db in
            try db.execute(sql: "UPDATE entry SET withdrawn_at = ? WHERE path = ?", arguments: [time, path])
        }
    }

    /// The paths weathertag wrote a block into that are remembered as there and not taken out, with when it wrote
    /// it: for `check`, which names those that are no entries now.
    package func written() throws -> [(path: String, at: Date?)] {
        try self.database.pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT path, coalesce(stamped_at, restored_at) AS at FROM entry
                    WHERE removed_at IS NULL AND withdrawn_at IS NULL AND (stamped_at IS NOT NULL OR restores > 0)
                    ORDER BY path
                    """
            ).map { (path: $0["path"], at: ($0["at"] as Double?).map(Date.init(timeIntervalSince1970:))) }
        }
    }

    /// Forgets everything (a test's way to lose the memory without deleting the file).
    func forgetAll() throws {
        try self.database.pool.write { db in try db.execute(sql: "DELETE FROM entry") }
    }
}
