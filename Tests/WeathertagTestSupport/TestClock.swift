import Synchronization

/// A `Clock` whose time moves only when the test says: for state machines that read `now` and shells that sleep.
/// Sleepers wake when `advance` passes their deadline.
package final class TestClock: Clock, Sendable {
    package struct Instant: InstantProtocol, Sendable {
        /// Time since the clock was made.
        package var offset: Duration

        package func advanced(by duration: Duration) -> Instant { Instant(offset: self.offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - self.offset }
        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [(deadline: Instant, wake: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    package init() {}

    package var now: Instant { self.state.withLock { $0.now } }
    package var minimumResolution: Duration { .zero }

    package func advance(by duration: Duration) {
        let due = self.state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.wake.resume() }
    }

    package func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        await withCheckedContinuation { wake in
            let now = self.state.withLock { state in
                if deadline > state.now { state.sleepers.append((deadline, wake)) }
                return state.now
            }
            if deadline <= now { wake.resume() }
        }
        try Task.checkCancellation()
    }
}
