import FoundationEssentials

/// What a source lets be asked of it: calls a minute, an hour, a day (any 24 hours) and a month (any 30 days), where a
/// request may count as more than one call (its `weight`). Infinity where the source sets no limit.
package struct CallLimits: Sendable, Equatable {
    package var perMinute: Double
    package var perHour: Double
    package var perDay: Double
    package var perMonth: Double

    package init(perMinute: Double, perHour: Double, perDay: Double, perMonth: Double) {
        self.perMinute = perMinute
        self.perHour = perHour
        self.perDay = perDay
        self.perMonth = perMonth
    }

    /// Only so many calls in any 24 hours (OpenWeather's timemachine: `history.max_calls_per_day`).
    package static func perDay(_ calls: Double) -> CallLimits {
        CallLimits(perMinute: .infinity, perHour: .infinity, perDay: calls, perMonth: .infinity)
    }

    /// Half of each: what weathertag's history allows itself of a service's free limits, so that current weather,
    /// the air, and other programs behind the same address keep the other half.
    package var share: CallLimits {
        CallLimits(
            perMinute: self.perMinute / 2, perHour: self.perHour / 2, perDay: self.perDay / 2,
            perMonth: self.perMonth / 2)
    }

    /// No window allows more than the day.
    package var clampedToTheDay: CallLimits {
        CallLimits(
            perMinute: min(self.perMinute, self.perDay), perHour: min(self.perHour, self.perDay), perDay: self.perDay,
            perMonth: self.perMonth)
    }
}

/// Calls spent, by weight, in rolling windows of a minute, an hour, a day and 30 days: every history source's budget.
/// Pure: the time is given, and what earlier processes spent is handed in (the state database keeps it across
/// restarts). Rolling windows never allow more in a calendar day than the day's limit, however the service counts
/// its days.
package struct CallBudget: Sendable, Equatable {
    /// One request: when it was made and what it weighed.
    package struct Spend: Sendable, Equatable {
        package var at: Date
        package var weight: Double

        package init(at: Date, weight: Double) {
            self.at = at
            self.weight = weight
        }
    }

    package var limits: CallLimits
    /// The requests of the last 30 days, oldest first.
    package private(set) var spent: [Spend]

    static let month: TimeInterval = 30 * 86_400

    package init(limits: CallLimits, spent: [Spend] = []) {
        self.limits = limits
        self.spent = spent.sorted { $0.at < $1.at }
    }

    /// Spent within `window` seconds before `now`.
    package func spent(within window: TimeInterval, now: Date) -> Double {
        self.spent.reduce(0) { total, spend in
            let age = now.timeIntervalSince(spend.at)
            return age >= 0 && age < window ? total + spend.weight : total
        }
    }

    /// What is left of the tightest window at `now` (for `status`): the day's and the month's, whichever is smaller.
    package func left(now: Date) -> Double {
        max(
            0,
            min(
                self.limits.perDay - self.spent(within: 86_400, now: now),
                self.limits.perMonth - self.spent(within: Self.month, now: now)))
    }

    /// Spends `weight` at `now` and returns nil, or returns how long to wait until every window has room for it. A
    /// request heavier than a whole window's limit is let through when that window is empty: it cannot ever fit,
    /// and the service decides.
    package mutating func admit(weight: Double, now: Date) -> Duration? {
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

    /// Gives back what `admit` spent at `at`: the request failed, and a service counts no call it did not answer.
    package mutating func refund(weight: Double, at: Date) {
        if let index = self.spent.lastIndex(where: { $0.at == at && $0.weight == weight }) {
            self.spent.remove(at: index)
        }
    }
}
