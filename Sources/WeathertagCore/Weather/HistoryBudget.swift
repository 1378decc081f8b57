import FoundationEssentials

/// The timemachine's calls of a local day (`history.max_calls_per_day`). Pure: the time and the calendar are given,
/// and what earlier processes counted for a day comes from `countedBefore` (the state database).
public struct HistoryBudget: Sendable, Equatable {
    public var maximumPerDay: Int
    public private(set) var day = ""
    public private(set) var used = 0

    public init(maximumPerDay: Int) {
        self.maximumPerDay = maximumPerDay
    }

    /// `2026-11-23`: the local day a call counts for.
    public static func day(of date: Date, calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(cFormat: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// Counts a call at `now` and returns nil, or returns how long to wait when the day's calls are spent: until
    /// a minute into the next local day.
    public mutating func admit(now: Date, calendar: Calendar, countedBefore: (String) -> Int) -> Duration? {
        let today = Self.day(of: now, calendar: calendar)
        if today != self.day {
            self.day = today
            self.used = countedBefore(today)
        }
        guard self.used < self.maximumPerDay else {
            let tomorrow = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: now)) ?? now
            return .seconds(max(60, tomorrow.timeIntervalSince(now) + 60))
        }
        self.used += 1
        return nil
    }
}
