import Testing
@testable import WeathertagCore
import WeathertagTestSupport

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
        #expect(machine.entries.capacity >= names.count, "the burst is held while it waits")
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

    static let version = FileVersion(device: 1, inode: 2, size: 3, modifiedSeconds: 4, modifiedNanoseconds: 5)
}
