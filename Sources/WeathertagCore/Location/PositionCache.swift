import FoundationEssentials
import Synchronization

/// Remembers a provider's last position for a while, so that frequent callers (a status bar asking every few
/// seconds) do not run a program or spend an IP service's rate limit each time.
package final class PositionCache: Sendable {
    package let duration: Duration
    private let now: @Sendable () -> Date
    private let position = Mutex<Position?>(nil)

    package init(duration: Duration, now: @escaping @Sendable () -> Date) {
        self.duration = duration
        self.now = now
    }

    /// The cached position while it is younger than `duration`, otherwise a new one from `fetch`.
    package func get(_ fetch: () async throws -> Position) async throws -> Position {
        let now = self.now()
        if let cached = self.position.withLock({ $0 }) {
            let age = now.timeIntervalSince(cached.takenAt)
            if age >= 0 && age < self.duration.seconds { return cached }
        }
        let fresh = try await fetch()
        self.position.withLock { $0 = fresh }
        return fresh
    }
}
