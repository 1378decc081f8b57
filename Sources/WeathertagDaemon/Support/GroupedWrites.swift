import NIOCore
import Synchronization

/// Writes one at a time, and what arrives while one runs goes together in the next (a group commit). Each caller
/// returns once its own item is written; none of those waiting holds a thread.
///
/// The inbox's batches tell the state database what they did (`InboxFiles.stamp`). SQLite writes one transaction
/// at a time: a batch that found the writer busy used to wait its turn and write its own transaction after it. Now
/// the batches that wait are written in one, by the first of them: one `BEGIN`, one commit and one FTS5 segment for
/// all of them, where each cost its own (docs/PERFORMANCE.md, ninth session of issue 39).
///
/// Written here rather than taken from a library: the mirror's packages have locks that block a thread (`Mutex`,
/// `NIOLock`) and no queue of suspended tasks. A write is not given up on cancellation: the one waiting is a batch
/// whose files are stamped already, and its memory must be told; the write ahead of it ends.
package final class GroupedWrites<Item: Sendable>: Sendable {
    /// What a waiting caller is woken for.
    private enum Wake {
        /// Its item was written in another caller's group.
        case written
        /// It writes next: itself and all that wait then.
        case writes
    }

    private struct Waiting {
        var item: Item
        var wake: CheckedContinuation<Wake, Never>
    }

    private struct State {
        var writing = false
        var waiting = CircularBuffer<Waiting>()
    }

    private let state = Mutex(State())

    package init() {}

    /// Returns once `item` is written by `write`: at once when no write runs (alone, or with those that came
    /// meanwhile), else with the others that wait once the running write ends. `write` gets the items in the order
    /// they came; every caller passes the same one.
    package func write(_ item: Item, with write: ([Item]) async -> Void) async {
        let wake = await withCheckedContinuation { (wake: CheckedContinuation<Wake, Never>) in
            let now = self.state.withLock { state in
                guard state.writing else {
                    state.writing = true
                    return true
                }
                state.waiting.append(Waiting(item: item, wake: wake))
                return false
            }
            if now { wake.resume(returning: .writes) }
        }
        guard case .writes = wake else { return }
        // The writer: its item, then all that wait now (the writer came first: it was the first in line, or none
        // waited when it came).
        let group = self.state.withLock { state in
            defer { state.waiting.removeAll() }
            return Array(state.waiting)
        }
        await write([item] + group.map(\.item))
        for waiting in group { waiting.wake.resume(returning: .written) }
        // The first that came meanwhile writes next: `writing` stays set, so none can slip in between.
        let next = self.state.withLock { state in
            guard let next = state.waiting.popFirst() else {
                state.writing = false
                return nil as Waiting?
            }
            return next
        }
        next?.wake.resume(returning: .writes)
    }

    /// How many wait (for tests).
    package var waiting: Int { self.state.withLock { $0.waiting.count } }
}
