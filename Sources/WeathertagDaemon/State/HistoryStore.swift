import FoundationEssentials
import Synchronization
import WeathertagCore

/// What the weather of back-dated entries keeps, for every history source alike: each answer's hours by source,
/// place cell and span of hours (so a place and hour is asked once), and each request's weight (so the budget holds
/// across restarts).
///
/// Asynchronous, so that an actor asking it never blocks the cooperative pool while SQLite works. Nothing here may
/// hold a stamp back: an adapter that cannot read or write logs it and answers as if nothing were kept.
package protocol HistoryStore: Sendable {
    /// The spans of hours `source` kept for `cell` (`46.20,6.14`), without their bodies.
    func spans(source: String, cell: String) async -> [ClosedRange<Int>]
    /// The hours `source` kept for `cell` whose span holds `hour` (Unix time / 3600), as kept (`HistoryHours.encoded`).
    func hours(source: String, cell: String, hour: Int) async -> [UInt8]?
    /// Keeps an answer's hours: the same place and hour is never asked again.
    func keep(hours body: [UInt8], source: String, cell: String, span: ClosedRange<Int>) async
    /// The requests `source` made since `date`.
    func spends(source: String, since date: Date) async -> [CallBudget.Spend]
    /// Records a request; records older than 30 days are dropped.
    func record(_ spend: CallBudget.Spend, source: String) async
}

/// History kept in the process only (`state.enabled` false), and the tests' double: a real implementation.
package final class InMemoryHistoryStore: HistoryStore {
    private struct Kept {
        var hours: [(source: String, cell: String, span: ClosedRange<Int>, body: [UInt8])] = []
        var spends: [(source: String, spend: CallBudget.Spend)] = []
    }

    private let kept = Mutex(Kept())

    package init() {}

    package func spans(source: String, cell: String) async -> [ClosedRange<Int>] {
        self.kept.withLock { $0.hours.filter { $0.source == source && $0.cell == cell }.map(\.span) }
    }

    package func hours(source: String, cell: String, hour: Int) async -> [UInt8]? {
        self.kept.withLock { kept in
            kept.hours.filter { $0.source == source && $0.cell == cell && $0.span.contains(hour) }
                .max { $0.span.upperBound < $1.span.upperBound }?.body
        }
    }

    package func keep(hours body: [UInt8], source: String, cell: String, span: ClosedRange<Int>) async {
        self.kept.withLock { kept in
            kept.hours.removeAll { $0.source == source && $0.cell == cell && $0.span == span }
            kept.hours.append((source, cell, span, body))
        }
    }

    package func spends(source: String, since date: Date) async -> [CallBudget.Spend] {
        self.kept.withLock { $0.spends.filter { $0.source == source && $0.spend.at >= date }.map(\.spend) }
    }

    package func record(_ spend: CallBudget.Spend, source: String) async {
        self.kept.withLock { kept in
            kept.spends.removeAll { spend.at.timeIntervalSince($0.spend.at) >= 30 * 86_400 }
            kept.spends.append((source, spend))
        }
    }
}
