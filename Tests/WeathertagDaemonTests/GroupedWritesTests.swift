import Synchronization
import Testing

@testable import WeathertagDaemon

/// The batches' writes to the state database (`GroupedWrites`): one at a time, what comes meanwhile together in the
/// next, in the order it came, each caller back once its own item is written, and those waiting hold no thread.
@Suite("grouped writes")
struct GroupedWritesTests {
    /// What the writes and their callers did, in order.
    final class Trace: Sendable {
        let events = Mutex<[String]>([])
        func note(_ event: String) { self.events.withLock { $0.append(event) } }
        var count: Int { self.events.withLock { $0.count } }
    }

    /// A write that notes its group, then waits until the test lets it end.
    struct HeldWrite: Sendable {
        let trace = Trace()
        let releases: AsyncStream<Void>
        let release: AsyncStream<Void>.Continuation

        init() {
            (self.releases, self.release) = AsyncStream.makeStream(of: Void.self)
        }

        func callAsFunction(_ items: [Int]) async {
            let group = items.map(String.init).joined(separator: ",")
            self.trace.note("write \(group)")
            for await _ in self.releases { break }
            self.trace.note("written \(group)")
        }

        /// Waits (yielding) until the trace holds `count` events.
        func until(_ count: Int) async {
            while self.trace.count < count { await Task.yield() }
        }
    }

    static func until(_ writes: GroupedWrites<Int>, waiting count: Int) async {
        while writes.waiting < count { await Task.yield() }
    }

    /// While 0 is written, 1 and 2 come and wait; they are written together next, then 3, which came during that
    /// write. Each caller returns after its own write, never before.
    @Test func whatComesWhileOneWritesIsWrittenTogetherNext() async throws {
        let writes = GroupedWrites<Int>()
        let write = HeldWrite()
        func caller(_ item: Int) -> Task<Void, Never> {
            Task {
                await writes.write(item) { await write($0) }
                write.trace.note("\(item) back")
            }
        }
        let zero = caller(0)
        await write.until(1)
        let one = caller(1)
        await Self.until(writes, waiting: 1)
        let two = caller(2)
        await Self.until(writes, waiting: 2)
        write.release.yield()
        await zero.value
        // 1 writes for both; 3 comes while it does.
        await write.until(4)
        let three = caller(3)
        await Self.until(writes, waiting: 1)
        // Every write passes from now on (one that waited for a release of its own would hang here).
        for _ in 0..<8 { write.release.yield() }
        for task in [one, two, three] { await task.value }
        let events = write.trace.events.withLock { $0 }
        #expect(events.filter { $0.hasPrefix("write ") } == ["write 0", "write 1,2", "write 3"])
        for (item, group) in [(0, "0"), (1, "1,2"), (2, "1,2"), (3, "3")] {
            let back = try #require(events.firstIndex(of: "\(item) back"))
            let written = try #require(events.firstIndex(of: "written \(group)"))
            #expect(written < back, "\(item) came back after its write ended")
        }
        #expect(writes.waiting == 0)
    }

    /// Sixteen callers waiting for the writer leave the cooperative pool's threads free (this machine has two;
    /// waiting that blocked a thread would hang here, and the time limit fails it): another task runs to its end
    /// meanwhile, and once the write ends they are all written, in one write. (The limit is generous: under
    /// `.ci/run`, with the other suites running beside it on the same two threads, such a test once took 110 s.)
    @Test(.timeLimit(.minutes(10))) func thoseWaitingHoldNoThread() async {
        let writes = GroupedWrites<Int>()
        let write = HeldWrite()
        let holder = Task { await writes.write(0) { await write($0) } }
        await write.until(1)
        var waiters: [Task<Void, Never>] = []
        for item in 1...16 { waiters.append(Task { await writes.write(item) { await write($0) } }) }
        await Self.until(writes, waiting: 16)
        let other = await Task.detached { (1...1_000).reduce(0, +) }.value
        #expect(other == 500_500)
        #expect(write.trace.events.withLock { $0 } == ["write 0"], "nothing written while the write was held")
        for _ in 0..<32 { write.release.yield() }
        await holder.value
        for waiter in waiters { await waiter.value }
        let events = write.trace.events.withLock { $0 }
        #expect(events.count == 4)
        let group = events[2].dropFirst("write ".count).split(separator: ",").compactMap { Int($0) }
        #expect(group.sorted() == Array(1...16), "the sixteen written together, once each")
        #expect(writes.waiting == 0)
    }
}
