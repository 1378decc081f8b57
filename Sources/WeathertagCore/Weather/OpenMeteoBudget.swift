import FoundationEssentials

/// Open-Meteo's free limits per IP address, as they publish them: calls a minute, an hour, a day and a month, where a
/// request counts as `weight` calls (more than ten variables or more than two weeks of hours count more).
public struct OpenMeteoLimits: Sendable, Equatable {
    public var perMinute: Double
    public var perHour: Double
    public var perDay: Double
    public var perMonth: Double

    public init(perMinute: Double, perHour: Double, perDay: Double, perMonth: Double) {
        self.perMinute = perMinute
        self.perHour = perHour
        self.perDay = perDay
        self.perMonth = perMonth
    }

    /// The published free tier: 600 a minute, 5,000 an hour, 10,000 a day, 300,000 a month.
    public static let free = OpenMeteoLimits(perMinute: 600, perHour: 5000, perDay: 10_000, perMonth: 300_000)

    /// What weathertag's history allows itself: half of each, so that current weather, the air, and other programs
    /// behind the same address keep the other half.
    public var share: OpenMeteoLimits {
        OpenMeteoLimits(
            perMinute: self.perMinute / 2, perHour: self.perHour / 2, perDay: self.perDay / 2,
            perMonth: self.perMonth / 2)
    }

    /// What one request counts as, the way Open-Meteo counts: max(variables / 10, 1) × max(days / 14, 1) ×
    /// locations (their examples: 15 variables over 14 days weigh 1.5; over 28 days, 3.0).
    public static func weight(variables: Int, days: Int, locations: Int = 1) -> Double {
        max(Double(variables) / 10, 1) * max(Double(days) / 14, 1) * Double(max(locations, 1))
    }
}

/// Open-Meteo calls spent, by weight, in rolling windows of a minute, an hour, a day and 30 days. Pure: the time is
/// given, and what earlier processes spent is handed in (the state database keeps it across restarts).
public struct OpenMeteoBudget: Sendable, Equatable {
    /// One request: when it was made and what it weighed.
    public struct Spend: Sendable, Equatable {
        public var at: Date
        public var weight: Double

        public init(at: Date, weight: Double) {
            self.at = at
            self.weight = weight
        }
    }

    public var limits: OpenMeteoLimits
    /// The requests of the last 30 days, oldest first.
    public private(set) var spent: [Spend]

    static let month: TimeInterval = 30 * 86_400

    public init(limits: OpenMeteoLimits, spent: [Spend] = []) {
        self.limits = limits
        self.spent = spent.sorted { $0.at < $1.at }
    }

    /// Spent within `window` seconds before `now`.
    public func spent(within window: TimeInterval, now: Date) -> Double {
        self.spent.reduce(0) { total, spend in
            let age = now.timeIntervalSince(spend.at)
            return age >= 0 && age < window ? total + spend.weight : total
        }
    }

    /// What is left of the tightest window at `now` (for `status`): the day's and the month's, whichever is smaller.
    public func left(now: Date) -> Double {
        max(
            0,
            min(
                self.limits.perDay - self.spent(within: 86_400, now: now),
                self.limits.perMonth - self.spent(within: Self.month, now: now)))
    }

    /// Spends `weight` at `now` and returns nil, or returns how long to wait until every window has room for it. A
    /// request heavier than a whole window's limit is let through when that window is empty: it cannot ever fit,
    /// and Open-Meteo decides.
    public mutating func admit(weight: Double, now: Date) -> Duration? {
        self.spent.removeAll { now.timeIntervalSince($0.at) >= Self.month }
        var wait: TimeInterval = 0
        for (window, limit) in [
            (60.0, self.limits.perMinute), (3600, self.limits.perHour), (86_400, self.limits.perDay),
            (Self.month, self.limits.perMonth),
        ] {
            let used = self.spent(within: window, now: now)
            guard used > 0, used + weight > limit else { continue }
            // Room comes back as the oldest spends of the window age out of it.
            // (A request heavier than the limit waits until the window is empty.)
            var freed = 0.0
            for spend in self.spent where now.timeIntervalSince(spend.at) < window {
                freed += spend.weight
                if used - freed + weight <= limit || freed >= used {
                    wait = max(wait, spend.at.addingTimeInterval(window).timeIntervalSince(now))
                    if used - freed + weight <= limit { break }
                }
            }
        }
        guard wait <= 0 else { return .milliseconds(Int64((wait * 1000).rounded(.up)) + 1) }
        self.spent.append(Spend(at: now, weight: weight))
        return nil
    }

    /// Gives back what `admit` spent at `at`: the request failed, and Open-Meteo counts no call it did not answer.
    public mutating func refund(weight: Double, at: Date) {
        if let index = self.spent.lastIndex(where: { $0.at == at && $0.weight == weight }) {
            self.spent.remove(at: index)
        }
    }
}
