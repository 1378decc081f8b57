import Foundation
import Synchronization

/// Wall-clock time the test moves by hand.
package final class ManualClock: Sendable {
    private let current: Mutex<Date>

    package init(_ start: Date) {
        self.current = Mutex(start)
    }

    package var now: @Sendable () -> Date {
        { self.current.withLock { $0 } }
    }

    package func advance(by seconds: TimeInterval) {
        self.current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
