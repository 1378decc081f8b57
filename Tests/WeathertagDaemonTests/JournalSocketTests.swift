import Foundation
import Glibc
import Testing
import WeathertagTestSupport

@testable import WeathertagDaemon

/// journald's socket holds few unread entries (`net.unix.max_dgram_qlen`): an entry waits a moment for room, once
/// per outage, and goes to stderr (`false`) when there is none.
struct JournalSocketTests {
    @Test func anEntryWaitsForRoomOncePerOutage() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let hung = try DatagramSocket(path: directory.file("journal.sock"), reading: false)
        let journal = try #require(JournalSocket(environment: ["WEATHERTAG_JOURNAL_SOCKET": hung.path]))
        func entry(_ index: Int) -> [(name: String, value: String)] {
            [("PRIORITY", "6"), ("MESSAGE", "line \(index)")]
        }

        // Until the queue is full every entry is taken; the first it cannot take waited its patience in vain.
        var taken = 0
        var waited = Duration.zero
        while taken < 10_000 {
            let start = ContinuousClock.now
            guard journal.send(entry(taken)) else {
                waited = ContinuousClock.now - start
                break
            }
            taken += 1
        }
        #expect(taken > 0 && taken < 10_000, "the queue holds a few: \(taken)")
        #expect(waited >= JournalSocket.patience, "the first entry with no room waited: \(waited)")
        #expect(journal.isBehind)
        // Behind, the next is refused (it does not wait: the state says so).
        #expect(!journal.send(entry(taken)))
        #expect(journal.isBehind)

        // journald reads again: it has every entry it took, in order, and takes the next, no longer behind.
        let read = hung.drain()
        #expect(read.count == taken)
        #expect(read.first == "PRIORITY=6\nMESSAGE=line 0\n")
        #expect(read.last == "PRIORITY=6\nMESSAGE=line \(taken - 1)\n")
        #expect(journal.send(entry(taken)))
        #expect(!journal.isBehind)
        #expect(hung.drain() == ["PRIORITY=6\nMESSAGE=line \(taken)\n"])
    }
}
