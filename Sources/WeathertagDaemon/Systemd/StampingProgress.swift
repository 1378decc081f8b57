import Synchronization

/// Whether the stamping loop makes progress, for the watchdog: work in hand with no entry finished for a while
/// means the loop is wedged (a hung filesystem, say), and systemd should stop hearing that all is well.
package final class StampingProgress: Sendable {
    private struct State {
        var batchesInHand = 0
        var lastProgress = ContinuousClock.now
    }

    private let state = Mutex(State())

    package init() {}

    /// A batch starts on a pool thread.
    func begin() {
        self.state.withLock { state in
            if state.batchesInHand == 0 { state.lastProgress = .now }
            state.batchesInHand += 1
        }
    }

    /// An entry is done.
    func advance() {
        self.state.withLock { $0.lastProgress = .now }
    }

    /// The batch is done.
    func end() {
        self.state.withLock { state in
            state.batchesInHand -= 1
            state.lastProgress = .now
        }
    }

    /// How long the loop has had work in hand without finishing an entry; nil when it has none.
    package var stalledFor: Duration? {
        self.state.withLock { $0.batchesInHand > 0 ? ContinuousClock.now - $0.lastProgress : nil }
    }
}
