import FoundationEssentials
import Glibc
import Synchronization

/// Counters shown by `/v1/status`. Shared by the services; every update takes a short lock.
package final class DaemonStatistics: Sendable {
    package struct Counters: Sendable {
        package var startedAt = Date()
        /// Every weather service's calls, by source type (`open-meteo`, `openweather`, `met-norway`, …).
        package var calls: [String: Calls] = [:]
        package var iconDownloads = 0
        package var cacheHits = 0
        package var cacheMisses = 0
        package var entriesStamped = 0
        /// Came back without their block and got the remembered one back.
        package var entriesRestored = 0
        package var entriesAlreadyStamped = 0
        package var entriesSkipped = 0
        /// Left alone because they were written before what current weather can speak for.
        package var entriesBackdated = 0
        package var entriesWaiting = 0
        /// Of those, back-dated entries waiting for the weather of their time.
        package var entriesWaitingForHistory = 0
        /// When the inbox was last listed whole (at start, after a reload, on each poll).
        package var lastScanAt: Date?
        package var lastError: String?
        package var lastErrorAt: Date?
    }

    /// One source's calls: since start, and since local midnight with the day they count for (`2026-11-22`).
    package struct Calls: Sendable, Equatable {
        package var total = 0
        package var today = 0
        package var day = ""
    }

    private let counters = Mutex(Counters())

    package init() {}

    package var snapshot: Counters { self.counters.withLock { $0 } }

    package func update(_ body: (inout Counters) -> Void) {
        self.counters.withLock { body(&$0) }
    }

    /// The inbox's entries waiting, and of those the ones waiting for history (after each event of its loop).
    package func inboxWaiting(_ waiting: Int, forHistory: Int) {
        self.counters.withLock { ($0.entriesWaiting, $0.entriesWaitingForHistory) = (waiting, forHistory) }
    }

    /// One call to `source`'s service, counted in all and for today (free plans' limits are per day).
    package func recordCall(source: String, now: Date = Date()) {
        let day = Self.day(now)
        self.counters.withLock {
            var calls = $0.calls[source] ?? Calls()
            calls.total += 1
            if calls.day != day {
                calls.day = day
                calls.today = 0
            }
            calls.today += 1
            $0.calls[source] = calls
        }
    }

    /// Each source's calls since start and today (zero once the day of its last call is over).
    package func calls(now: Date = Date()) -> [String: (total: Int, today: Int)] {
        let day = Self.day(now)
        return self.counters.withLock { counters in
            counters.calls.mapValues { ($0.total, $0.day == day ? $0.today : 0) }
        }
    }

    static func day(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970)
        var parts = tm()
        localtime_r(&time, &parts)
        return String(cFormat: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }

    package func recordError(_ message: String) {
        self.counters.withLock {
            $0.lastError = message
            $0.lastErrorAt = Date()
        }
    }
}
