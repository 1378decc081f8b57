import Testing
import WeathertagTestSupport

@testable import WeathertagCore

/// What the machine keeps once a burst is stamped: its map and its queue give back the room the burst took (a
/// dictionary and an array keep their capacity as they empty).
@Suite("inbox state machine's memory")
struct InboxStateMachineMemoryTests {
    @Test func aBurstStampedLeavesNoRoomBehind() throws {
        var machine = InboxStateMachine(configuration: .init(), clock: TestClock())
        _ = machine.receive(.start)
        let names = (0..<20_000).map { "burst-\($0).md" }
        var inFlight = machine.receive(.listed(candidates: names, present: nil)).batches
        inFlight += machine.receive(.weatherArrived(Fixtures.tag)).batches
        #expect(machine.entries.count == machine.configuration.intakeLimit, "the burst is held up to the limit")
        #expect(machine.waiting == names.count, "the rest waits as names")
        var stamped = 0
        while let batch = inFlight.first {
            inFlight.removeFirst()
            stamped += batch.names.count
            let outcome = BatchOutcome(results: batch.names.map { ($0, .stamped(Self.version)) })
            inFlight += machine.receive(.batchFinished(batch, outcome, arrivedMeanwhile: [])).batches
        }
        #expect(stamped == names.count && machine.isIdle)
        #expect(machine.entries.isEmpty)
        #expect(machine.entries.capacity <= 1536, "\(machine.entries.capacity) slots kept")
        #expect(machine.queue.capacity <= 2048, "\(machine.queue.capacity) places kept")
    }

    /// The heap keeps what a burst freed: once 1,000 entries went through and nothing is held or in flight, the
    /// shell is told to give it back, once; fewer, or while batches are still out, it is not.
    @Test func aBurstOverGivesItsMemoryBackOnce() throws {
        var machine = InboxStateMachine(configuration: .init(), clock: TestClock())
        _ = machine.receive(.start)
        _ = machine.receive(.weatherArrived(Fixtures.tag))
        var given = 0
        func finish(_ batches: [InboxStateMachine<TestClock>.Batch]) {
            given += Self.finishAll(batches, of: &machine) { if case .giveBackMemory = $0 { true } else { false } }
        }
        finish(machine.receive(.arrived((0..<600).map { "a-\($0).md" })).batches)
        #expect(given == 0, "600 entries: not a burst yet")
        finish(machine.receive(.arrived((0..<600).map { "b-\($0).md" })).batches)
        #expect(given == 1, "1,200 since the start")
        finish(machine.receive(.arrived(["c.md"])).batches)
        #expect(given == 1, "counted anew from there")
    }

    /// The index's text is merged once 16 batches went through and nothing is held or in flight, not in a batch's
    /// transaction: a burst asks once at its end, whatever its size; entries dropped one at a time ask every 16th.
    @Test func theIndexIsMergedWhenBatchesAreOverNotBetweenThem() throws {
        var machine = InboxStateMachine(configuration: .init(), clock: TestClock())
        _ = machine.receive(.start)
        _ = machine.receive(.weatherArrived(Fixtures.tag))
        var merges = 0
        var batches = 0
        func finish(_ first: [InboxStateMachine<TestClock>.Batch]) {
            merges += Self.finishAll(first, of: &machine, counting: &batches) {
                if case .mergeIndex = $0 { true } else { false }
            }
        }
        finish(machine.receive(.arrived((0..<2_000).map { "burst-\($0).md" })).batches)
        #expect(batches >= 16 && merges == 1, "\(batches) batches, one merge at the end")
        for index in 0..<15 { finish(machine.receive(.arrived(["lone-\(index).md"])).batches) }
        #expect(merges == 1, "15 lone entries since")
        finish(machine.receive(.arrived(["lone-15.md"])).batches)
        #expect(merges == 2, "the 16th")
    }

    /// Finishes `batches` and those their ends start, each stamped, until none is out: how many asked for `action`,
    /// each only once nothing was out.
    static func finishAll(
        _ batches: [InboxStateMachine<TestClock>.Batch], of machine: inout InboxStateMachine<TestClock>,
        counting finished: inout Int, action: (InboxStateMachine<TestClock>.Action) -> Bool
    ) -> Int {
        var asked = 0
        var inFlight = batches
        while let batch = inFlight.first {
            inFlight.removeFirst()
            finished += 1
            let outcome = BatchOutcome(results: batch.names.map { ($0, .stamped(Self.version)) })
            let actions = machine.receive(.batchFinished(batch, outcome, arrivedMeanwhile: []))
            if actions.contains(where: action) {
                #expect(machine.isIdle && inFlight.isEmpty, "only once nothing is out")
                asked += 1
            }
            inFlight += actions.batches
        }
        return asked
    }

    static func finishAll(
        _ batches: [InboxStateMachine<TestClock>.Batch], of machine: inout InboxStateMachine<TestClock>,
        action: (InboxStateMachine<TestClock>.Action) -> Bool
    ) -> Int {
        var finished = 0
        return Self.finishAll(batches, of: &machine, counting: &finished, action: action)
    }

    static let version = FileVersion(device: 1, inode: 2, size: 3, modifiedSeconds: 4, modifiedNanoseconds: 5)
}
