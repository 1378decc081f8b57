import FoundationEssentials
import Synchronization
import WeathertagCore

/// What the weather of back-dated entries keeps: each answer by place cell and hour (so one place and hour is asked
/// once), and the calls made per local day (the budget holds across restarts).
///
/// Asynchronous, so that an actor asking it never blocks the cooperative pool while SQLite works. Nothing here may
/// hold a stamp back: an adapter that cannot read or write logs it and answers as if nothing were kept.
public protocol HistoryStore: Sendable {
    /// The answer kept for `cell` (`46.20,6.14`) and `hour` (Unix time / 3600), as it came.
    func answer(cell: String, hour: Int) async -> [UInt8]?
    /// Keeps an answer: the same place and hour is never asked again.
    func keep(_ body: [UInt8], cell: String, hour: Int) async
    /// The calls counted on `day` (`2026-11-23`, local).
    func calls(day: String) async -> Int
    /// Counts one call on `day`; the counts of other days are dropped.
    func countCall(day: String) async
    /// The spans of hours kept for `cell` (Open-Meteo's bulk answers), without their bodies.
    func spans(cell: String) async -> [ClosedRange<Int>]
    /// The hours kept for `cell` whose span holds `hour` (an encoded `HourlySeries`).
    func period(cell: String, hour: Int) async -> [UInt8]?
    /// Keeps a bulk answer holding the hours of `span`.
    func keep(period body: [UInt8], cell: String, span: ClosedRange<Int>) async
    /// Open-Meteo's requests made since `date`, for its budget across restarts.
    func spends(since date: Date) async -> [OpenMeteoBudget.Spend]
    /// Records a request; records older than 30 days are dropped.
    func record(_ spend: OpenMeteoBudget.Spend) async
}

/// History kept in the process only (`state.enabled` false), and the tests' double: a real implementation.
public final class InMemoryHistoryStore: HistoryStore {
    private struct Kept {
        var answers: [String: [UInt8]] = [:]
        var calls: (day: String, count: Int) = ("", 0)
        var periods: [(cell: String, span: ClosedRange<Int>, body: [UInt8])] = []
        var spends: [OpenMeteoBudget.Spend] = []
    }

    private let kept = Mutex(Kept())

    public init() {}

    public func answer(cell: String, hour: Int) async -> [UInt8]? {
        self.kept.withLock { $0.answers["\(cell)@\(hour)"] }
    }

    public func keep(_ body: [UInt8], cell: String, hour: Int) async {
        self.kept.withLock { $0.answers["\(cell)@\(hour)"] = body }
    }

    public func calls(day: String) async -> Int {
        self.kept.withLock { $0.calls.day == day ? $0.calls.count : 0 }
    }

    public func countCall(day: String) async {
        self.kept.withLock { kept in
            kept.calls = (day, kept.calls.day == day ? kept.calls.count + 1 : 1)
        }
    }

    public func spans(cell: String) async -> [ClosedRange<Int>] {
        self.kept.withLock { $0.periods.filter { $0.cell == cell }.map(\.span) }
    }

    public func period(cell: String, hour: Int) async -> [UInt8]? {
        self.kept.withLock { $0.periods.last { $0.cell == cell && $0.span.contains(hour) }?.body }
    }

    public func keep(period body: [UInt8], cell: String, span: ClosedRange<Int>) async {
        self.kept.withLock { kept in
            kept.periods.removeAll { $0.cell == cell && $0.span == span }
            kept.periods.append((cell, span, body))
        }
    }

    public func spends(since date: Date) async -> [OpenMeteoBudget.Spend] {
        self.kept.withLock { $0.spends.filter { $0.at >= date } }
    }

    public func record(_ spend: OpenMeteoBudget.Spend) async {
        self.kept.withLock { kept in
            kept.spends.removeAll { spend.at.timeIntervalSince($0.at) >= 30 * 86_400 }
            kept.spends.append(spend)
        }
    }
}
