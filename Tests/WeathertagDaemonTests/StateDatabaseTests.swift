import Foundation
import Glibc
import Logging
import Testing
import WeathertagCore
import WeathertagTestSupport

@testable import WeathertagDaemon

/// The memory of stamps on a real SQLite database, and the batch that consults and tells it.
@Suite("the state database")
final class StateDatabaseTests {
    let directory: TemporaryDirectory
    let block = ["weather:", "  condition: Rain", "  observed_at: 2026-11-23T09:00:00Z"]
    let now = Date(timeIntervalSince1970: 1_795_431_600)

    init() throws {
        self.directory = try TemporaryDirectory()
        signal(SIGIO, SIG_IGN)
    }

    deinit {
        self.directory.remove()
    }

    var stateDirectory: String { self.directory.file("state") }

    func open(inbox: String = "/diary", forgetAfter: TimeInterval = 600) throws -> StateDatabase {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return try StateDatabase.open(
            directory: self.stateDirectory, inbox: inbox, policy: RestorePolicy(forgetAfter: forgetAfter),
            logger: logger)
    }

    @Test func stampsAreRememberedFollowRenamesAndAreForgottenAfterTheirGrace() throws {
        let database = try self.open()
        database.memory.remember(
            [
                .init(path: "a.md", block: self.block, origin: .stamped),
                .init(path: "2026/11/23.md", block: self.block, origin: .found),
            ], at: self.now)
        #expect(try database.memory.remembered("a.md") == RememberedStamp(block: self.block))
        #expect(database.memory.blockToRestore("a.md", now: self.now) == self.block)
        #expect(database.memory.blockToRestore("b.md", now: self.now) == nil)

        // A file renamed; a folder renamed with what is below it; a temp file renamed over an entry changes nothing.
        database.memory.apply(
            [
                .renamed(from: "a.md", to: "b.md"), .renamed(from: "2026", to: "2027"),
                .renamed(from: ".b.md.Xy12", to: "b.md"),
            ], at: self.now)
        #expect(try database.memory.remembered("a.md") == nil)
        #expect(try database.memory.remembered("b.md")?.block == self.block)
        #expect(try database.memory.remembered("2027/11/23.md")?.block == self.block)
        #expect(try database.memory.count() == 2)

        // Removed: still given back within the grace time (git and tar write a file again right away), not after.
        database.memory.apply([.removed("2027")], at: self.now)
        #expect(database.memory.blockToRestore("2027/11/23.md", now: self.now.addingTimeInterval(599)) == self.block)
        #expect(database.memory.blockToRestore("2027/11/23.md", now: self.now.addingTimeInterval(600)) == nil)
        // Written again within it: present again, removal cleared.
        database.memory.remember([.init(path: "2027/11/23.md", block: self.block, origin: .restored)], at: self.now)
        #expect(try database.memory.remembered("2027/11/23.md")?.removedAt == nil)

        // A listing that does not find an entry starts its grace; one past the grace is deleted.
        database.memory.reconcile(present: ["2027/11/23.md"], at: self.now)
        #expect(try database.memory.remembered("b.md")?.removedAt == self.now)
        database.memory.reconcile(present: ["2027/11/23.md"], at: self.now.addingTimeInterval(601))
        #expect(try database.memory.remembered("b.md") == nil)
        #expect(try database.memory.count() == 1)
    }

    @Test func theMemorySurvivesReopeningAndIsKeptPerInbox() throws {
        do {
            let database = try self.open()
            database.memory.remember([.init(path: "a.md", block: self.block, origin: .stamped)], at: self.now)
        }
        #expect(try self.open().memory.remembered("a.md")?.block == self.block)
        // Another inbox's paths would name other entries.
        #expect(try self.open(inbox: "/elsewhere").memory.remembered("a.md") == nil)
    }

    @Test(arguments: ["not a database at all, just text", String(repeating: "\u{0}", count: 8192)])
    func anUnreadableDatabaseIsMovedAsideAndReplaced(_ garbage: String) throws {
        try FileManager.default.createDirectory(atPath: self.stateDirectory, withIntermediateDirectories: true)
        try Data(garbage.utf8).write(to: URL(fileURLWithPath: self.stateDirectory + "/state.sqlite"))
        let database = try self.open()
        database.memory.remember([.init(path: "a.md", block: self.block, origin: .stamped)], at: self.now)
        #expect(try database.memory.remembered("a.md")?.block == self.block)
        let aside = try FileManager.default.contentsOfDirectory(atPath: self.stateDirectory).filter {
            $0.hasPrefix("state.sqlite.corrupt-")
        }
        #expect(aside.count == 1)
    }

    /// A database made when weathertag used GRDB (version 0.1.0 before issue 21; `Fixtures/grdb-state.sqlite`, three
    /// stamped entries) opens as it is: its migrations are found in GRDB's table and not run again, and what it
    /// remembers is there.
    @Test func aDatabaseMadeThroughGRDBOpensAsItIs() throws {
        try FileManager.default.createDirectory(atPath: self.stateDirectory, withIntermediateDirectories: true)
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/grdb-state.sqlite").path
        try FileManager.default.copyItem(atPath: fixture, toPath: self.stateDirectory + "/state.sqlite")
        let database = try self.open(inbox: "/diary/inbox")
        #expect(try database.memory.count() == 3)
        #expect(try database.memory.remembered("e000001.md")?.block.first == "weather:")
        #expect(
            try Self.textSettings(database) == ["automerge": 0, "usermerge": 16, "crisismerge": 256],
            "the text index of an older database is merged when idle too")
        #expect(database.checkIntegrity())
        #expect(
            !(try FileManager.default.contentsOfDirectory(atPath: self.stateDirectory)).contains {
                $0.contains("corrupt")
            })
    }

    /// The text index merges nothing in a batch's transaction (FTS5's `automerge` 0), but when the inbox is idle
    /// (`mergeText`, a step at a time): 20 batches leave 20 segments, the idle merge leaves one, and searches find
    /// what they found before, with FTS5's own check content.
    @Test func theTextIndexIsMergedWhenIdleNotInTheBatches() async throws {
        let database = try self.open()
        #expect(try Self.textSettings(database) == ["automerge": 0, "usermerge": 16, "crisismerge": 256])
        let entries = database.entries
        for batch in 0..<20 {
            let items = (0..<5).map { index in
                self.indexItem(
                    "\(batch)-\(index).md", "2020-01-\(10 + batch)T1\(index):00:00Z", "word\(batch) common")
            }
            entries.remember([], index: items, at: self.now)
        }
        #expect(try Self.segments(database) == 20, "one a batch, none merged in their commits")
        var steps = 0
        while entries.mergeText() { steps += 1 }
        #expect(steps >= 1)
        #expect(try Self.segments(database) == 1)
        #expect(!entries.mergeText(), "nothing left to merge")
        let index = DiaryIndex(database: entries)
        #expect(try await index.list(EntryQuery(text: "common", limit: 1000)).entries.count == 100)
        #expect(
            try await index.list(EntryQuery(text: "word7")).entries.map(\.path).sorted() == (0..<5).map { "7-\($0).md" }
        )
        try await database.pool.write { db in
            try db.execute(sql: "INSERT INTO diary_text (diary_text, rank) VALUES ('integrity-check', 1)")
        }
    }

    static func textSettings(_ database: StateDatabase) throws -> [String: Int] {
        try database.pool.read { db in
            try ["automerge", "usermerge", "crisismerge"].reduce(into: [:]) { settings, key in
                settings[key] = try Int.fetchOne(
                    db, sql: "SELECT v FROM diary_text_config WHERE k = ?", arguments: [key])
            }
        }
    }

    /// The text index's segments: each has its rows in `diary_text_idx`.
    static func segments(_ database: StateDatabase) throws -> Int? {
        try database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(DISTINCT segid) FROM diary_text_idx") }
    }

    func indexItem(_ path: String, _ date: String, _ words: String) -> DiaryIndexItem {
        let text = "---\ndate: \(date)\n---\n\(words)\n"
        let entry = DiaryEntry.read(Array(text.utf8), fileName: path, modified: self.now, timeZone: .utc)
        return DiaryIndexItem(
            path: path,
            version: FileVersion(
                device: 1, inode: 7, size: Int64(text.utf8.count), modifiedSeconds: 0,
                modifiedNanoseconds: 0),
            entry: entry, lane: LaneState(.stamped, .stamped), placeholderTime: entry.time)
    }

    /// Damage past the header is found by the deep check the daemon runs after start-up.
    @Test func aDamagedPageIsFoundByTheIntegrityCheck() throws {
        do {
            let database = try self.open()
            database.memory.remember(
                (0..<2000).map { .init(path: "entry-\($0).md", block: self.block, origin: .stamped) }, at: self.now)
        }
        // Scribble over the middle of the file, where the table's pages are (its header stays valid).
        let path = self.stateDirectory + "/state.sqlite"
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 8192))
        try handle.close()
        let database = try self.open()
        #expect(!database.checkIntegrity())
        #expect(try database.memory.count() == 0)
        #expect(database.checkIntegrity(), "the new one is sound")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: self.stateDirectory).contains {
                $0.hasPrefix("state.sqlite.corrupt-")
            })
    }

    /// The batch asks the memory for an entry without a block, writes back the remembered one, and tells the
    /// memory every block it saw, in one transaction.
    @Test func aBatchRestoresRemembersAndFreshAsksForNewWeather() throws {
        let database = try self.open()
        let memory = EntryBatch.Memory(database: database.entries)
        let inbox = try self.directory.makeDirectory("inbox")
        let original = "---\ntitle: Monday\n---\nDear diary\n"
        try Data(original.utf8).write(to: URL(fileURLWithPath: inbox + "/a.md"))
        let first = Fixtures.tag.stampLines
        var outcome = EntryBatch.stampFiles(
            ["a.md"], in: inbox, lines: first, options: StampOptions(maximumSize: 1 << 20), memory: memory
        ).remembered()
        #expect(outcome.results.map(\.1).allSatisfy { if case .stamped = $0 { true } else { false } })
        let stamped = try String(contentsOfFile: inbox + "/a.md", encoding: .utf8)
        #expect(try database.memory.remembered("a.md")?.block == first)

        // The unstamped version written again: the same block comes back, not the weather of now.
        let other = ["weather:", "  condition: Snow"]
        try Data(original.utf8).write(to: URL(fileURLWithPath: inbox + "/a.md"))
        outcome = EntryBatch.stampFiles(
            ["a.md"], in: inbox, lines: other, options: StampOptions(maximumSize: 1 << 20), memory: memory
        ).remembered()
        #expect(outcome.results.map(\.1).allSatisfy { if case .restored = $0 { true } else { false } })
        #expect(try String(contentsOfFile: inbox + "/a.md", encoding: .utf8) == stamped)

        // Even when it looks written long ago (rsync -a keeps the old time): it was stamped when it was new.
        try Data(original.utf8).write(to: URL(fileURLWithPath: inbox + "/a.md"))
        var old = [timespec(tv_sec: 1_556_668_800, tv_nsec: 0), timespec(tv_sec: 1_556_668_800, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, inbox + "/a.md", &old, 0) == 0)
        outcome = EntryBatch.stampFiles(
            ["a.md"], in: inbox, lines: other,
            options: StampOptions(maximumSize: 1 << 20, backdating: BackdatingPolicy()), memory: memory
        ).remembered()
        #expect(outcome.results.map(\.1).allSatisfy { if case .restored = $0 { true } else { false } })

        // Fresh: new weather on purpose, over the block that is there; remembered from now on.
        outcome = EntryBatch.stampFiles(
            ["a.md"], in: inbox, lines: other, options: StampOptions(maximumSize: 1 << 20, replacing: true),
            memory: memory
        ).remembered()
        #expect(outcome.results.map(\.1).allSatisfy { if case .stamped = $0 { true } else { false } })
        #expect(try String(contentsOfFile: inbox + "/a.md", encoding: .utf8).contains("condition: Snow"))
        #expect(try database.memory.remembered("a.md")?.block == other)

        // A block edited by hand is what is remembered next.
        let edited = "---\ntitle: Monday\nweather:\n  condition: Fog\n---\nDear diary\n"
        try Data(edited.utf8).write(to: URL(fileURLWithPath: inbox + "/a.md"))
        outcome = EntryBatch.stampFiles(
            ["a.md"], in: inbox, lines: other, options: StampOptions(maximumSize: 1 << 20), memory: memory
        ).remembered()
        #expect(try database.memory.remembered("a.md")?.block == ["weather:", "  condition: Fog"])
    }

    /// A block's lines become the memory's text as `joined(separator: "\n")` makes it, and come back as they were.
    @Test func aBlocksTextIsItsLinesJoined() throws {
        let blocks: [[String]] = [
            [], [""], ["weather:"], ["weather:", "  condition: Rain", ""],
            ["wëather:", "  place: Zürich 漢字", "  x: 🌧"],
        ]
        for lines in blocks {
            #expect(SQLiteStampMemory.text(lines) == lines.joined(separator: "\n"))
        }
        let database = try self.open()
        database.memory.remember([.init(path: "a.md", block: blocks[4], origin: .stamped)], at: self.now)
        #expect(try database.memory.remembered("a.md")?.block == blocks[4])
    }

    /// 50,000 entries: remembered in batches of 32 as the daemon writes them, looked up, reconciled.
    @Test func fiftyThousandEntries() throws {
        let database = try self.open()
        let count = 50_000
        for start in stride(from: 0, to: count, by: 32) {
            database.memory.remember(
                (start..<min(start + 32, count)).map {
                    .init(path: "\($0 / 1000)/\($0).md", block: self.block, origin: .stamped)
                }, at: self.now)
        }
        #expect(try database.memory.count() == count)
        #expect(database.memory.blockToRestore("49/49999.md", now: self.now) == self.block)
        database.memory.reconcile(present: Set((0..<count).map { "\($0 / 1000)/\($0).md" }), at: self.now)
        #expect(try database.memory.remembered("0/0.md")?.removedAt == nil)
        database.memory.apply([.removed("3")], at: self.now)
        database.memory.reconcile(present: [], at: self.now.addingTimeInterval(700))
        #expect(try database.memory.count() == count - 1000, "the removed folder's 1,000 forgotten, the rest in grace")
    }

    /// An index written before excerpts were words (migration v7) is read again from the files: its rows go, the
    /// stamp memory stays.
    @Test func anIndexOfRawMarkdownIsReadAgain() throws {
        let inbox = self.directory.file("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        try Data("# Dinner\n\n![](dayone-moment://8D0C6)\n\n**Prawns**.\n".utf8)
            .write(to: URL(fileURLWithPath: inbox + "/dinner.md"))
        do {
            let database = try self.open()
            let memory = EntryBatch.Memory(database: database.entries)
            _ = EntryBatch.stampFiles(
                ["dinner.md"], in: inbox, lines: self.block, options: StampOptions(maximumSize: 1 << 20), memory: memory
            ).remembered()
            #expect(try database.entries.entries(EntryQuery()).entries.first?.excerpt == "Prawns.")
            // As an index of the version before: its excerpt raw, migration v7 not yet run.
            try database.pool.write { db in
                try db.execute(sql: "UPDATE diary SET excerpt = '![](dayone-moment://8D0C6) **Prawns**.'")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v7:%'")
                try db.execute(sql: "ALTER TABLE diary DROP COLUMN utc_offset")
            }
        }
        let database = try self.open()
        #expect(try database.entries.entries(EntryQuery()).entries.isEmpty, "to be read again")
        #expect(try database.memory.remembered("dinner.md")?.block == self.block)
    }

    // MARK: The diary index

    /// A batch indexes what it reads: titles, text, weather, lanes; searched, filtered and paged; renames and
    /// removals follow; a file read again in the same version is not parsed again.
    @Test func theIndexIsWrittenByBatchesSearchedAndKeptInStep() async throws {
        try await self.indexContract(try self.open().entries)
    }

    /// The same contract from the in-memory store, the tests' double.
    /// An entry read again replaces its text, whether its time stays or moves, across batches and twice in one
    /// batch: search finds only what the file says now, and FTS5's own check finds its text and the rows in step.
    /// (The text is written after a batch's rows, not beside each: `DiaryTables.index`.)
    @Test func anEntryReadAgainReplacesItsText() async throws {
        let database = try self.open()
        var size: Int64 = 0
        func item(_ path: String, _ date: String, _ words: String) -> DiaryIndexItem {
            size += 1
            let text = "---\ndate: \(date)\n---\n\(words)\n"
            let entry = DiaryEntry.read(Array(text.utf8), fileName: path, modified: self.now, timeZone: .utc)
            return DiaryIndexItem(
                path: path,
                version: FileVersion(device: 1, inode: 7, size: size, modifiedSeconds: 0, modifiedNanoseconds: 0),
                entry: entry, lane: LaneState(.stamped, .stamped), placeholderTime: entry.time)
        }
        let entries = database.entries
        entries.remember([], index: [item("a.md", "2020-01-01T10:00:00Z", "alpha")], at: self.now)
        entries.remember(
            [], index: [item("a.md", "2020-01-01T10:00:00Z", "bravo"), item("b.md", "2020-01-01T10:00:00Z", "bravo")],
            at: self.now)
        entries.remember(
            [],
            index: [item("a.md", "2021-06-01T10:00:00Z", "charlie"), item("a.md", "2022-06-01T10:00:00Z", "delta")],
            at: self.now)
        let index = DiaryIndex(database: entries)
        for gone in ["alpha", "charlie"] { #expect(try await index.list(EntryQuery(text: gone)).entries.isEmpty) }
        #expect(try await index.list(EntryQuery(text: "bravo")).entries.map(\.path) == ["b.md"])
        #expect(try await index.list(EntryQuery(text: "delta")).entries.map(\.path) == ["a.md"])
        #expect(try await index.entry("a.md")?.time.hasPrefix("2022-06-01") == true)
        try await database.pool.write { db in
            try db.execute(sql: "INSERT INTO diary_text (diary_text, rank) VALUES ('integrity-check', 1)")
        }
        let rows = try await database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM diary d JOIN diary_text t ON t.rowid = d.id")
        }
        #expect(rows == 2)
    }

    @Test func theInMemoryIndexKeepsTheSameContract() async throws {
        try await self.indexContract(InMemoryEntryStore(policy: RestorePolicy(forgetAfter: 600)))
    }

    func indexContract(_ database: any EntryStore) async throws {
        let inbox = self.directory.file("inbox")
        try FileManager.default.createDirectory(atPath: inbox + "/2026", withIntermediateDirectories: true)
        let files = [
            "a.md": "---\ntitle: Snow day\n---\nWe built a snowman.\n",
            "2026/b.md": "# Tea\n\nGreen tea by the window.\n",
            "c.md": "---\nweather: [1\n---\nBroken.\n",
        ]
        for (name, text) in files {
            try Data(text.utf8).write(to: URL(fileURLWithPath: inbox + "/" + name))
            // Written at the test's own moment, not today's: their times come from it (on 29 February, "on this
            // day" of 02-29 would find them).
            try FileManager.default.setAttributes([.modificationDate: self.now], ofItemAtPath: inbox + "/" + name)
        }
        let memory = EntryBatch.Memory(database: database)
        _ = EntryBatch.stampFiles(
            files.keys.sorted(), in: inbox, lines: self.block, options: StampOptions(maximumSize: 1 << 20),
            memory: memory
        ).remembered()

        let index = DiaryIndex(database: database)
        let all = try await index.list(EntryQuery()).entries
        #expect(Set(all.map(\.path)) == ["a.md", "2026/b.md", "c.md"])
        #expect(all.first { $0.path == "2026/b.md" }?.title == "Tea")
        #expect(all.first { $0.path == "a.md" }?.weather?.condition == "Rain")
        #expect(all.first { $0.path == "c.md" }?.lane == "left_alone")
        #expect(all.first { $0.path == "c.md" }?.why.contains("not running") == false)
        #expect(try await index.list(EntryQuery(text: "snowm")).entries.map(\.path) == ["a.md"])
        #expect(try await index.list(EntryQuery(text: "window tea")).entries.map(\.path) == ["2026/b.md"])
        #expect(try await index.list(EntryQuery(condition: "rain")).entries.count == 2)
        #expect(try await index.list(EntryQuery(lane: .leftAlone)).entries.map(\.path) == ["c.md"])
        let first = try await index.list(EntryQuery(limit: 2))
        let second = try await index.list(
            EntryQuery(limit: 2, cursor: first.nextCursor.flatMap(EntryQuery.Cursor.init)))
        #expect(first.entries.count == 2 && second.entries.count == 1 && second.nextCursor == nil)
        #expect(Set((first.entries + second.entries).map(\.path)).count == 3)
        #expect(try await index.entry("a.md")?.history?.stampedAt != nil)
        #expect(try await index.entry("a.md")?.block == self.block)

        // Read again in the same version (a start-up's listing): not parsed again, and still "stamped".
        let versions = database.indexedVersions(["a.md", "2026/b.md"])
        #expect(versions.count == 2)
        // Asked in one look, as a batch asks: the same answers; no blocks for a batch that replaces them.
        let recalled = database.recall(["a.md", "2026/b.md"], restoring: true, now: self.now)
        #expect(recalled.indexed == versions)
        #expect(
            !recalled.blocks.isEmpty
                && recalled.blocks == database.blocksToRestore(["a.md", "2026/b.md"], now: self.now))
        #expect(database.recall(["a.md"], restoring: false, now: self.now).blocks.isEmpty)
        _ = EntryBatch.stampFiles(
            ["a.md"], in: inbox, lines: self.block, options: StampOptions(maximumSize: 1 << 20), memory: memory
        ).remembered()
        #expect(try await index.entry("a.md")?.reason == "stamped")
        #expect(database.indexedVersions(["a.md"]) == ["a.md": versions["a.md"]])

        // Renames (a folder with what is below it) and removals follow; a listing drops what is gone.
        database.apply([.renamed(from: "2026", to: "2027"), .removed("c.md")], at: self.now)
        #expect(try await index.list(EntryQuery()).entries.map(\.path).sorted() == ["2027/b.md", "a.md"])
        #expect(try await index.list(EntryQuery(text: "tea")).entries.map(\.path) == ["2027/b.md"])
        database.reconcile(present: ["a.md"], at: self.now)
        #expect(try await index.list(EntryQuery(text: "tea")).entries.isEmpty)
        #expect(try database.laneCounts() == [.stamped: 1])

        // Seen and not read yet: listed under its name, waiting; the daemon not running says so.
        try Data("x\n".utf8).write(to: URL(fileURLWithPath: inbox + "/2026-11-20 new.md"))
        database.notice(["2026-11-20 new.md", "gone.md"], inbox: inbox, at: self.now)
        let waiting = try #require(try await index.list(EntryQuery(lane: .waiting)).entries.first)
        #expect(waiting.title == "2026-11-20 new" && waiting.timeSource == "file_name")
        #expect(waiting.reason == "not_running")
        #expect(try database.laneCounts()[.waiting] == 1)

        // On this day: the month and day on each entry's own clock, any year, newest first. 00:30 in Berlin is the
        // day before in UTC; 23:30 in Chicago is the next day in UTC: neither is read in UTC.
        let days = [
            "may-2019.md": "---\ndate: 2019-05-01T23:30:00+09:00\n---\nSeoul\n",
            "may-2020.md": "---\ndate: 2020-05-01T00:30:00+02:00\n---\nBerlin\n",
            "april-2021.md": "---\ndate: 2021-04-30T23:30:00-05:00\n---\nChicago\n",
        ]
        for (name, text) in days { try Data(text.utf8).write(to: URL(fileURLWithPath: inbox + "/" + name)) }
        _ = EntryBatch.stampFiles(
            days.keys.sorted(), in: inbox, lines: self.block, options: StampOptions(maximumSize: 1 << 20),
            memory: memory
        ).remembered()
        let mayDay = try #require(MonthDay("05-01"))
        #expect(
            try await index.list(EntryQuery(onThisDay: mayDay)).entries.map(\.path) == ["may-2020.md", "may-2019.md"])
        #expect(try await index.list(EntryQuery(onThisDay: MonthDay("04-30"))).entries.map(\.path) == ["april-2021.md"])
        #expect(try await index.list(EntryQuery(onThisDay: MonthDay("02-29"))).entries.isEmpty)

        // Days asked for are each entry's own: Berlin's 1 May 2020 at 00:30 is 30 April in UTC, and listed as 1 May.
        func between(_ since: String, _ until: String) async throws -> [String] {
            var query = EntryQuery()
            try query.bound(since: since, timeZone: .utc)
            try query.bound(until: until, timeZone: .utc)
            return try await index.list(query).entries.map(\.path)
        }
        #expect(try await between("2020-05-01", "2020-05-01") == ["may-2020.md"])
        #expect(try await between("2020-04-30", "2020-04-30") == [])
        #expect(try await between("2021-04-30", "2021-04-30") == ["april-2021.md"])
        #expect(try await between("2019-05-01", "2021-04-29") == ["may-2020.md", "may-2019.md"])
    }
}
