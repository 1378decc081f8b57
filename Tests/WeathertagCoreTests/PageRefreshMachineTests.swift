import Testing
import WeathertagCore
import WeathertagTestSupport

/// The timeline page kept current (`timeline.output`): written once changes settle, at most once a minute, never
/// while a batch is written; a failure tried again.
@Suite("timeline page: when it is written again")
struct PageRefreshMachineTests {
    typealias Machine = PageRefreshMachine<TestClock>
    let clock = TestClock()

    /// The instant `seconds` after the test's clock started (it starts at zero).
    let start: TestClock.Instant

    init() {
        self.start = self.clock.now
    }

    func at(_ seconds: Int) -> TestClock.Instant { self.start.advanced(by: .seconds(seconds)) }

    /// Moves the clock to `seconds` and tells the machine a wake-up came.
    func wake(_ machine: inout Machine, at seconds: Int) -> [Machine.Action] {
        self.clock.advance(by: self.clock.now.duration(to: self.at(seconds)))
        return machine.receive(.wokeUp)
    }

    @Test func theFirstPageIsWrittenOnceTheStartHasSettled() {
        var machine = Machine(clock: self.clock)
        #expect(machine.receive(.changed) == [.wakeUp(at: self.at(2))])
        #expect(self.wake(&machine, at: 1) == [])
        #expect(self.wake(&machine, at: 2) == [.write])
        #expect(machine.isStale)
        #expect(machine.receive(.written) == [])
        #expect(!machine.isStale)
    }

    @Test func aBurstOfChangesIsOneWriteAfterTheLast() {
        var machine = Machine(clock: self.clock)
        var actions = machine.receive(.changed)
        for _ in 1...5 {
            self.clock.advance(by: .seconds(1))
            actions += machine.receive(.changed)
        }
        // One wake-up asked for (the first); when it comes, the next is asked for the burst's end.
        #expect(actions == [.wakeUp(at: self.at(2))])
        #expect(self.wake(&machine, at: 2) == [.wakeUp(at: self.at(7))])
        #expect(self.wake(&machine, at: 7) == [.write])
    }

    @Test func atMostOnceAMinute() {
        var machine = Machine(clock: self.clock)
        _ = machine.receive(.changed)
        #expect(self.wake(&machine, at: 2) == [.write])
        #expect(machine.receive(.written) == [])
        self.clock.advance(by: .seconds(3))
        // Settled at 7, but the last write started at 2: not before 62.
        #expect(machine.receive(.changed) == [.wakeUp(at: self.at(62))])
        #expect(self.wake(&machine, at: 30) == [])
        #expect(self.wake(&machine, at: 62) == [.write])
    }

    @Test func neverWhileABatchIsWritten() {
        var machine = Machine(clock: self.clock)
        #expect(machine.receive(.batchStarted) == [])
        #expect(machine.receive(.changed) == [])
        #expect(self.wake(&machine, at: 10) == [])
        #expect(machine.receive(.batchStarted) == [])
        #expect(machine.receive(.batchFinished) == [])
        #expect(machine.receive(.batchFinished) == [.write])
    }

    @Test func aChangeWhileWritingIsWrittenNext() {
        var machine = Machine(clock: self.clock)
        _ = machine.receive(.changed)
        #expect(self.wake(&machine, at: 2) == [.write])
        self.clock.advance(by: .seconds(1))
        #expect(machine.receive(.changed) == [])
        #expect(machine.receive(.written) == [.wakeUp(at: self.at(62))])
        #expect(machine.isStale)
        #expect(self.wake(&machine, at: 62) == [.write])
    }

    @Test func aFailedWriteIsTriedAgainAfterTheInterval() {
        var machine = Machine(clock: self.clock)
        _ = machine.receive(.changed)
        #expect(self.wake(&machine, at: 2) == [.write])
        #expect(machine.receive(.failed) == [.wakeUp(at: self.at(62))])
        #expect(self.wake(&machine, at: 62) == [.write])
        #expect(machine.receive(.written) == [])
        #expect(!machine.isStale)
    }
}
