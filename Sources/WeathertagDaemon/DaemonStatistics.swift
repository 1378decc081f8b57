import FoundationEssentials
import Glibc
import Synchronization

/// Counters shown by `/v1/status`. Shared by the services; every update takes a short lock.
public final class DaemonStatistics: Sendable {
    public struct Counters: Sendable {
        public var startedAt = Date()
        public var openWeatherCalls = 0
        /// Calls since local midnight, and the day they count for (`2026-11-22`).
        public var openWeatherCallsToday = 0
        public var openWeatherCallsDay = ""
        public var iconDownloads = 0
        public var cacheHits = 0
        public var cacheMisses = 0
        public var entriesStamped = 0
        /// Came back without their block and got the remembered one back.
        public var entriesRestored = 0
        public var entriesAlreadyStamped = 0
        public var entriesSkipped = 0
        /// Left alone because they were written before what current weather can speak for.
        public var entriesBackdated = 0
        public var entriesWaiting = 0
        /// Of those, back-dated entries waiting for the weather of their time.
        public var entriesWaitingForHistory = 0
        /// When the inbox was last listed whole (at start, after a reload, on each poll).
        public var lastScanAt: Date?
        public var lastError: String?
        public var lastErrorAt: Date?
    }

    private let counters = Mutex(Counters())

    public init() {}

    public var snapshot: Counters { self.counters.withLock { $0 } }

    public func update(_ body: (inout Counters) -> Void) {
        self.counters.withLock { body(&$0) }
    }

    /// One OpenWeather call, counted in all and for today (the free plan's limit is per day).
    public func recordCall(now: Date = Date()) {
        let day = Self.day(now)
        self.counters.withLock {
            $0.openWeatherCalls += 1
            if $0.openWeatherCallsDay != day {
                $0.openWeatherCallsDay = day
                $0.openWeatherCallsToday = 0
            }
            $0.openWeatherCallsToday += 1
        }
    }

    /// Today's calls: zero once the day of the last call is over.
    public func callsToday(now: Date = Date()) -> Int {
        self.counters.withLock { $0.openWeatherCallsDay == Self.day(now) ? $0.openWeatherCallsToday : 0 }
    }

    static func day(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970)
        var parts = tm()
        localtime_r(&time, &parts)
        return String(cFormat: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }

    public func recordError(_ message: String) {
        self.counters.withLock {
            $0.lastError = message
            $0.lastErrorAt = Date()
        }
    }
}
