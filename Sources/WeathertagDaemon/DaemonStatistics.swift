import Foundation
import Synchronization

/// Counters shown by `/v1/status`. Shared by the services; every update takes a short lock.
public final class DaemonStatistics: Sendable {
    public struct Counters: Sendable {
        public var startedAt = Date()
        public var openWeatherCalls = 0
        public var iconDownloads = 0
        public var cacheHits = 0
        public var cacheMisses = 0
        public var entriesStamped = 0
        public var entriesAlreadyStamped = 0
        public var entriesSkipped = 0
        public var entriesWaiting = 0
        public var lastError: String?
        public var lastErrorAt: Date?
    }

    private let counters = Mutex(Counters())

    public init() {}

    public var snapshot: Counters { self.counters.withLock { $0 } }

    public func update(_ body: (inout Counters) -> Void) {
        self.counters.withLock { body(&$0) }
    }

    public func recordError(_ message: String) {
        self.counters.withLock {
            $0.lastError = message
            $0.lastErrorAt = Date()
        }
    }
}
