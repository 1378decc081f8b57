import Synchronization
import Testing

@testable import WeathertagDaemon

/// The batches' turns at the state database (`Turns`): one at a time, in the order they came, and those waiting
/// hold no thread.
@Suite("turns")
struct TurnsTests {
    /// What the turns did, in order.
    final class Trace: Sendable {
        let events = Mutex<[String]>([])
        func note(_ event: String) { self.events.withLock { $0.append(event) } }
    }

    /// Waits (yielding) until `count` tasks wait for their turn.
    static func until(_ turns: Turns, waiting count: Int) async {
        while turns.waiting < count { await Task.yield() }
    }

    /// While one task has the turn, the others wait; each then has it alone, in the order it asked, and suspends
    /// inside it without another slipping in.
    @Test func oneAtATimeInTheOrderTheyCame() async {
        let turns = Turns()
        let trace = Trace()
        let (release, held) = AsyncStream.makeStream(of: Void.self)
        let first = Task {
            await turns.inTurn {
                trace.note("0 in")
                for await _ in release { break }
                trace.note("0 out")
            }
        }
        while trace.events.withLock({ $0.isEmpty }) { await Task.yield() }
        var tasks: [Task<Void, Never>] = []
        for index in 1...5 {
            tasks.append(
                Task {
                    await turns.inTurn {
                        trace.note("\(index) in")
                        await Task.yield()
                        trace.note("\(index) out")
                    }
                })
            await Self.until(turns, waiting: index)
        }
        held.yield()
        await first.value
        for task in tasks { await task.value }
        #expect(trace.events.withLock { $0 } == (0...5).flatMap { ["\($0) in", "\($0) out"] })
        #expect(turns.waiting == 0)
    }

    /// Sixteen tasks waiting for their turn leave the cooperative pool's threads free (this machine has two;
    /// waiting that blocked a thread would hang here, and the time limit fails it): another task runs to its end
    /// meanwhile, and once the holder lets go they all pass. (The limit is generous: under `.ci/run`, with the other
    /// suites running beside it on the same two threads, this test with a hundred waiters once took 110 s.)
    @Test(.timeLimit(.minutes(10))) func thoseWaitingHoldNoThread() async {
        let turns = Turns()
        let (release, held) = AsyncStream.makeStream(of: Void.self)
        let trace = Trace()
        let holder = Task {
            await turns.inTurn {
                trace.note("holding")
                for await _ in release { break }
            }
        }
        while trace.events.withLock({ $0.isEmpty }) { await Task.yield() }
        var waiters: [Task<Void, Never>] = []
        for _ in 1...16 { waiters.append(Task { await turns.inTurn { trace.note("passed") } }) }
        await Self.until(turns, waiting: 16)
        let other = await Task.detached { (1...1_000).reduce(0, +) }.value
        #expect(other == 500_500)
        #expect(trace.events.withLock { $0 } == ["holding"], "none passed while the turn was held")
        held.yield()
        await holder.value
        for waiter in waiters { await waiter.value }
        #expect(trace.events.withLock { $0.count { $0 == "passed" } } == 16)
        #expect(turns.waiting == 0)
    }
}
