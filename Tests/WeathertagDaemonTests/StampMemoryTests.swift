import Foundation
import Logging
import Testing
import WeathertagCore
import WeathertagTestSupport

@testable import WeathertagDaemon

/// The memory of stamps as a contract: the state database and the in-memory store give the same answers.
@Suite("the memory of stamps, either store")
final class StampMemoryTests {
    let directory: TemporaryDirectory
    let block = ["weather:", "  condition: Rain"]
    let start = Date(timeIntervalSince1970: 1_795_431_600)

    init() throws {
        self.directory = try TemporaryDirectory()
    }

    deinit {
        self.directory.remove()
    }

    func stores() throws -> [any StampMemory] {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let policy = RestorePolicy(forgetAfter: 600)
        return [
            InMemoryEntryStore(policy: policy),
            try StateDatabase.open(
                directory: self.directory.file("state"), inbox: "/diary", policy: policy, logger: logger
            ).entries,
        ]
    }

    @Test func blocksFollowRenamesAndAreForgottenAfterTheirGrace() throws {
        for memory in try self.stores() {
            let kind = "\(type(of: memory))"
            let other = ["weather:", "  condition: Snow"]
            memory.remember(
                [
                    .init(path: "a.md", block: self.block, origin: .stamped),
                    .init(path: "trip/b.md", block: other, origin: .found),
                ], index: [], at: self.start)
            #expect(memory.blockToRestore("a.md", now: self.start) == self.block, "\(kind)")
            #expect(try memory.remembered("trip/b.md")?.block == other, "\(kind)")
            #expect(memory.blockToRestore("c.md", now: self.start) == nil, "\(kind)")

            // A file renamed, and a folder.
            memory.apply([.renamed(from: "a.md", to: "c.md"), .renamed(from: "trip", to: "2026/trip")], at: self.start)
            #expect(
                memory.blocksToRestore(["a.md", "c.md", "2026/trip/b.md"], now: self.start)
                    == ["c.md": self.block, "2026/trip/b.md": other], "\(kind)")

            // Removed: given back within the grace time (git and tar delete and write again), forgotten after it.
            memory.apply([.removed("c.md")], at: self.start)
            #expect(memory.blockToRestore("c.md", now: self.start + 599) == self.block, "\(kind)")
            #expect(memory.blockToRestore("c.md", now: self.start + 601) == nil, "\(kind)")

            // A listing that does not find an entry starts its grace; one past it forgets.
            memory.reconcile(present: [], at: self.start + 10)
            #expect(try memory.remembered("2026/trip/b.md")?.removedAt == self.start + 10, "\(kind)")
            memory.reconcile(present: [], at: self.start + 609)
            #expect(try memory.remembered("c.md") == nil, "\(kind)")
            #expect(try memory.remembered("2026/trip/b.md") != nil, "\(kind): still in its grace")
            memory.reconcile(present: [], at: self.start + 611)
            #expect(try memory.remembered("2026/trip/b.md") == nil, "\(kind)")

            // Stamped again: remembered anew, whatever was there.
            memory.remember([.init(path: "c.md", block: other, origin: .restored)], index: [], at: self.start + 800)
            #expect(memory.blockToRestore("c.md", now: self.start + 800) == other, "\(kind)")
        }
    }

    /// A memory written before blocks had fingerprints (migration v12 not run): each block gets its fingerprint at
    /// the next start, and a copy of a template stamped then is known as weathertag's writing.
    @Test func aMemoryFromBeforeFingerprintsIsFingerprinted() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let open = {
            try StateDatabase.open(directory: self.directory.file("old"), inbox: "/diary", logger: logger)
        }
        do {
            let database = try open()
            database.memory.remember([.init(path: "Templates/Daily.md", block: self.block, origin: .stamped)])
            try await database.pool.write { db in
                try db.execute(
                    sql: """
                        DROP INDEX entry_fingerprint;
                        ALTER TABLE entry DROP COLUMN fingerprint;
                        ALTER TABLE entry DROP COLUMN withdrawn_at;
                        DELETE FROM grdb_migrations WHERE identifier LIKE 'v12:%';
                        """)
            }
        }
        let database = try open()
        #expect(
            database.memory.provenance(of: self.block, at: "Journal/2026-12-07.md")
                == .writtenInto("Templates/Daily.md", at: try #require(try database.memory.written().first?.at)))
    }

    /// Who wrote a block, by its fingerprint: weathertag into this entry, into another still there (a template an
    /// older version stamped, last week's note), or nobody it knows; a block taken out is never given back and still
    /// known; a note that is no entry now keeps its memory while it is there.
    @Test func theMemorySaysWhoWroteABlock() throws {
        for memory in try self.stores() {
            let kind = "\(type(of: memory))"
            let template = ["weather:", "  condition: Rain", "  local_time: 2025-11-03T10:41:00+01:00"]
            let found = ["weather:", "  condition: Snow"]
            memory.remember(
                [
                    .init(path: "Templates/Daily.md", block: template, origin: .stamped),
                    .init(path: "found.md", block: found, origin: .found),
                ], index: [], at: self.start)
            #expect(
                memory.provenance(of: template, at: "Templates/Daily.md") == .writtenHere(at: self.start), "\(kind)")
            #expect(
                memory.provenance(of: template, at: "Journal/2026-12-07.md")
                    == .writtenInto("Templates/Daily.md", at: self.start), "\(kind)")
            // Found, not written: another entry holding it is not told it is weathertag's.
            #expect(memory.provenance(of: found, at: "found.md") == .foundHere, "\(kind)")
            #expect(memory.provenance(of: found, at: "copy.md") == .unknown, "\(kind)")
            #expect(memory.provenance(of: ["weather:", "  condition: Fog"], at: "x.md") == .unknown, "\(kind)")
            // The same properties in another order and quoting are the same block.
            let properties = ["weather_condition: Rain", "weather_utc_offset: \"+01:00\""]
            memory.remember([.init(path: "p.md", block: properties, origin: .stamped)], index: [], at: self.start)
            #expect(
                memory.provenance(of: ["weather_utc_offset: '+01:00'", "weather_condition: Rain"], at: "q.md")
                    == .writtenInto("p.md", at: self.start), "\(kind)")
            // Found again with another block there: weathertag did not write that one.
            memory.remember([.init(path: "p.md", block: found, origin: .found)], index: [], at: self.start + 1)
            #expect(memory.provenance(of: found, at: "p.md") == .foundHere, "\(kind)")

            // Taken out on request: never given back, still known as weathertag's writing there.
            memory.withdraw("Templates/Daily.md", at: self.start + 2)
            #expect(memory.blockToRestore("Templates/Daily.md", now: self.start + 3) == nil, "\(kind)")
            #expect(
                memory.provenance(of: template, at: "Journal/2026-12-07.md")
                    == .writtenInto("Templates/Daily.md", at: self.start), "\(kind)")

            // A note no longer listed but still there keeps its memory; one gone starts its grace.
            let gone = ["weather:", "  condition: Mist"]
            memory.remember([.init(path: "gone.md", block: gone, origin: .stamped)], index: [], at: self.start + 3)
            #expect(memory.provenance(of: gone, at: "moved.md") == .writtenInto("gone.md", at: self.start + 3))
            memory.reconcile(present: [], at: self.start + 4) { $0 == "Templates/Daily.md" }
            #expect(try memory.remembered("Templates/Daily.md")?.removedAt == nil, "\(kind)")
            #expect(try memory.remembered("gone.md")?.removedAt == self.start + 4, "\(kind)")
            // A removed entry is no other entry: its block moved with it (a rename nobody saw).
            #expect(memory.provenance(of: gone, at: "moved.md") == .unknown, "\(kind)")
        }
    }
}
