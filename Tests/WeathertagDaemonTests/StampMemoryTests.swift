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
}
