import Foundation
import Synchronization

/// What one provider did most recently, for `/v1/status` and `weathertag check`.
public struct ProviderStatus: Sendable, Equatable {
    public var type: String
    public var lastPosition: Position?
    public var lastSuccessAt: Date?
    public var lastError: String?
    public var lastErrorAt: Date?
    public var attempts: Int = 0
    public var failures: Int = 0
    /// After failures that cost their timeout, the provider is passed over until then (never the last one).
    public var skippedUntil: Date?
    var slowFailures = Backoff(base: .seconds(5), ceiling: .seconds(300))

    public init(type: String) {
        self.type = type
    }

    /// Its last attempt gave a position.
    public var isHealthy: Bool {
        guard let lastSuccessAt else { return false }
        return (self.lastErrorAt ?? .distantPast) <= lastSuccessAt
    }
}

/// Tries providers in order, each within its own timeout; the first valid position wins.
///
/// A provider whose failure took at least half its timeout (a hung command, an unreachable service) is passed over
/// for a while, with exponential backoff, so it does not cost its timeout on every lookup. Fast failures (gpsd
/// without a fix) are tried every time: the provider is used again the moment it has a position.
public final class LocationChain: Sendable {
    public let providers: [any LocationProvider]
    private let statuses: Mutex<[ProviderStatus]>
    private let now: @Sendable () -> Date

    public init(providers: [any LocationProvider], now: @escaping @Sendable () -> Date = { Date() }) {
        self.providers = providers
        self.statuses = Mutex(providers.map { ProviderStatus(type: $0.type) })
        self.now = now
    }

    public var status: [ProviderStatus] {
        self.statuses.withLock { $0 }
    }

    /// The first valid position, or every provider's reason for having none.
    public func locate() async throws(LocationChainError) -> Position {
        var failures: [LocationError] = []
        for (index, provider) in self.providers.enumerated() {
            let now = self.now()
            if index < self.providers.count - 1,
                let skipped = self.statuses.withLock({ $0[index] }).skippedUntil, now < skipped
            {
                failures.append(
                    LocationError(source: provider.type, message: "passed over until \(skipped.iso8601) after timeouts")
                )
                continue
            }
            let started = ContinuousClock.now
            do {
                let position = try await Self.locate(with: provider)
                guard position.isValid else {
                    throw LocationError(source: provider.type, message: "returned coordinates off the globe")
                }
                self.record(index) {
                    $0.lastPosition = position
                    $0.lastSuccessAt = self.now()
                    $0.skippedUntil = nil
                    $0.slowFailures.reset()
                }
                return position
            } catch {
                if Task.isCancelled { throw LocationChainError(failures: failures, cancelled: true) }
                let failure =
                    (error as? LocationError) ?? LocationError(source: provider.type, message: "\(error)")
                failures.append(failure)
                let slow = ContinuousClock.now - started >= provider.timeout / 2
                self.record(index) {
                    $0.failures += 1
                    $0.lastError = failure.message
                    $0.lastErrorAt = self.now()
                    if slow { $0.skippedUntil = self.now().addingTimeInterval($0.slowFailures.next().seconds) }
                }
            }
        }
        throw LocationChainError(failures: failures, cancelled: false)
    }

    private func record(_ index: Int, _ update: (inout ProviderStatus) -> Void) {
        self.statuses.withLock {
            $0[index].attempts += 1
            update(&$0[index])
        }
    }

    /// Races the provider against its timeout; the loser is cancelled.
    private static func locate(with provider: any LocationProvider) async throws -> Position {
        try await withThrowingTaskGroup(of: Position?.self) { group in
            group.addTask { try await provider.locate() }
            group.addTask {
                try await Task.sleep(for: provider.timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let position = first else {
                throw LocationError(source: provider.type, message: "no position within \(provider.timeout)")
            }
            return position
        }
    }
}

/// No provider had a position.
public struct LocationChainError: Error, Sendable, CustomStringConvertible {
    public var failures: [LocationError]
    public var cancelled: Bool

    public var description: String {
        if self.failures.isEmpty { return "no location provider is configured" }
        return "no position: " + self.failures.map(\.description).joined(separator: "; ")
    }
}
