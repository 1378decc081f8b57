import WeathertagSQLite

/// How the diary index's text (`diary_text`, FTS5) merges its segments: each batch's text is one, and they are
/// merged when the inbox is idle.
extension DiaryTables {
    /// FTS5 merges a level's segments once `automerge` of them are there (4 by default): a batch's text is a segment
    /// of its own, and a rebuild of 50,000 entries merged them again and again. At 16, the most FTS5 takes, a
    /// rebuild's text costs about a quarter less CPU (Python's sqlite3, the same library: 1.15 → 0.84 s for 50,000
    /// entries in batches of 460) and a search reads a few more segments (40 searches 59 → 61 ms). Kept in the
    /// table's own settings (`diary_text_config`). Replaced by `mergeTextWhenIdle`; kept as the migration it was.
    static func tuneTextMerges(_ db: Database) throws {
        try db.execute(sql: "INSERT INTO diary_text (diary_text, rank) VALUES ('automerge', 16)")
    }

    /// The text index's segments are merged when the inbox is idle (`mergeText`, after `.mergeIndex`), never inside
    /// a batch's transaction: the batches' writer is the one part of a rebuild that runs on one thread at a time,
    /// and FTS5's merges in its commits were a fifth of it (a 50,000-entry rebuild replayed through Python's
    /// sqlite3, the same library: 1.16 s, 0.93 s without them; then 0.23 s of merging once idle, which leaves one
    /// segment where the merges along the way left several).
    ///
    /// - `automerge` 0: a commit merges nothing.
    /// - `usermerge` 16 (`textMergeFanIn`): an idle merge takes a level once 16 segments are on it, as `automerge`
    ///   16 did in the commits.
    /// - `crisismerge` 256 (`textCrisisMerge`): should the inbox never be idle, a commit merges a level of 256
    ///   segments (131,072 entries in batches of 512), so that searches never walk more. A search over the 108
    ///   segments of a 50,000-entry rebuild took 0.9 ms, against 0.06 once merged.
    static func mergeTextWhenIdle(_ db: Database) throws {
        try db.execute(sql: "INSERT INTO diary_text (diary_text, rank) VALUES ('automerge', 0)")
        try db.execute(
            sql: "INSERT INTO diary_text (diary_text, rank) VALUES ('usermerge', ?)", arguments: [Self.textMergeFanIn])
        try db.execute(
            sql: "INSERT INTO diary_text (diary_text, rank) VALUES ('crisismerge', ?)",
            arguments: [Self.textCrisisMerge])
    }

    static let textMergeFanIn = 16
    static let textCrisisMerge = 256
    /// Pages one merge step writes at most: about 15 ms of the writer, which a batch that comes meanwhile waits.
    static let textMergeStep = 500

    /// One step of the text index's merge (`mergeTextWhenIdle`): whether it merged anything (FTS5 changes two rows
    /// or more when it does); once it merges nothing, nothing is left to merge.
    static func mergeText(_ db: Database, pages: Int = Self.textMergeStep) throws -> Bool {
        let before = db.totalChanges
        try db.cachedStatement(sql: "INSERT INTO diary_text (diary_text, rank) VALUES ('merge', ?)")
            .execute(arguments: [pages])
        return db.totalChanges - before >= 2
    }
}
