import NIOCore
import Synchronization

/// One task at a time, in the order they came, and none of those waiting holds a thread.
///
/// The inbox's batches take turns to tell the state database what they did (`InboxFiles.stamp`). SQLite writes one
/// transaction at a time, and a batch that waited for the writer's lock on a pool thread held one of the two threads
/// that read the next batch: a 50,000-entry rebuild spent 0.65 s of its 2.8 s with a thread parked on that lock
/// (docs/PERFORMANCE.md). A turn is waited for as a suspended task instead, and the write takes a pool thread only
/// once it can run.
///
/// Written here rather than taken from a library: the mirror's packages have locks that block a thread (`Mutex`,
/// `NIOLock`) and no queue of suspended tasks. Turns are not given up on cancellation: the one waiting is a batch
/// whose files are stamped already, and its memory must be told; the turns ahead of it are writes that end.
package final class Turns: Sendable {
    private struct State {
        var taken = false
        var waiting = CircularBuffer<CheckedContinuation<Void, Never>>()
    }

    private let state = Mutex(State())

    package init() {}

    /// Runs `body` once the turns before it have ended; the next turn begins when it returns or throws.
    package func inTurn<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        await self.take()
        defer { self.give() }
        return try await body()
    }

    /// How many wait for their turn (for tests).
    package var waiting: Int { self.state.withLock { $0.waiting.count } }

    private func take() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = self.state.withLock { state in
                guard state.taken else {
                    state.taken = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    private func give() {
        let next = self.state.withLock { state in
            // The turn passes straight to the next in line: `taken` stays set, so none can slip in between.
            guard let next = state.waiting.popFirst() else {
                state.taken = false
                return nil as CheckedContinuation<Void, Never>?
            }
            return next
        }
        next?.resume()
    }
}
