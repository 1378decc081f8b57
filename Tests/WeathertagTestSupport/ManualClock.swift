import Foundation
import Synchronization

/// Wall-clock time the test moves by hand.
public final class ManualClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date) {
        self.current = Mutex(start)
    }

    public var now: @Sendable () -> Date {
        { self.current.withLock { $0 } }
    }

    public func advance(by seconds: TimeInterval) {
        self.current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
