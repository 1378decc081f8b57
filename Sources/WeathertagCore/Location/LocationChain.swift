import FoundationEssentials
import Synchronization

/// What one provider did most recently, for `/v1/status` and `weathertag check`.
package struct ProviderStatus: Sendable, Equatable {
    package var type: String
    package var lastPosition: Position?
    package var lastSuccessAt: Date?
    package var lastError: String?
    package var lastErrorAt: Date?
    package var attempts: Int = 0
    package var failures: Int = 0
    /// After failures that cost their timeout, the provider is passed over until then (never the last one).
    package var skippedUntil: Date?
    /// Its position was the one taken the last time the chain answered.
    package var won = false
    var slowFailures = Backoff(base: .seconds(5), ceiling: .seconds(300))

    package init(type: String) {
        self.type = type
    }

    /// Its last attempt gave a position.
    package var isHealthy: Bool {
        guard let lastSuccessAt else { return false }
        return (self.lastErrorAt ?? .distantPast) <= lastSuccessAt
    }
}

/// How the chain picks a position when several providers could give one (`location.strategy`).
package enum LocationStrategy: String, Sendable, CaseIterable {
    /// Providers in order; the first valid position wins (a later one is not asked).
    case first
    /// Every provider at once, each within its timeout; the smallest `accuracy_m` wins, ties to the earlier one.
    case mostAccurate = "most_accurate"

    /// What a position without an accuracy counts as: city level, as IP geolocation is.
    package static let assumedAccuracy = 5000.0

    /// The accuracy a position is ranked by.
    package static func rank(_ position: Position) -> Double {
        position.accuracyMeters ?? Self.assumedAccuracy
    }

    /// The index of the best of `answers` (in provider order, nil where a provider had none): the most accurate,
    /// the earlier on a tie.
    package static func best(_ answers: [Position?]) -> Int? {
        var best: (index: Int, rank: Double)?
        for (index, answer) in answers.enumerated() {
            guard let answer else { continue }
            let rank = Self.rank(answer)
            if rank < best?.rank ?? .infinity { best = (index, rank) }
        }
        return best?.index
    }
}

/// Asks the providers for a position, as `strategy` says: in order until one answers, or all at once for the most
/// accurate. Each is given its own timeout.
///
/// A provider whose failure took at least half its timeout (a hung command, an unreachable service) is passed over
/// for a while, with exponential backoff, so it does not cost its timeout on every lookup. Fast failures (gpsd
/// without a fix) are tried every time: the provider is used again the moment it has a position.
package final class LocationChain: Sendable {
    package let providers: [any LocationProvider]
    package let strategy: LocationStrategy
    private let statuses: Mutex<[ProviderStatus]>
    private let now: @Sendable () -> Date

    package init(
        providers: [any LocationProvider],
        strategy: LocationStrategy = .first,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.providers = providers
        self.strategy = strategy
        self.statuses = Mutex(providers.map { ProviderStatus(type: $0.type) })
        self.now = now
    }

    package var status: [ProviderStatus] {
        self.statuses.withLock { $0 }
    }

    /// The position as the strategy picks it, or every provider's reason for having none.
    package func locate() async throws(LocationChainError) -> Position {
        switch self.strategy {
        case .first: try await self.first()
        case .mostAccurate: try await self.mostAccurate()
        }
    }

    private func first() async throws(LocationChainError) -> Position {
        var failures: [LocationError] = []
        for index in self.providers.indices {
            switch await self.ask(index) {
            case .success(let position):
                self.crown(index)
                return position
            case .failure(let failure):
                if Task.isCancelled { throw LocationChainError(failures: failures, cancelled: true) }
                failures.append(failure)
            }
        }
        throw LocationChainError(failures: failures, cancelled: false)
    }

    private func mostAccurate() async throws(LocationChainError) -> Position {
        let answers = await withTaskGroup(of: (Int, Result<Position, LocationError>).self) { group in
            for index in self.providers.indices {
                group.addTask { (index, await self.ask(index)) }
            }
            var answers = [Result<Position, LocationError>](
                repeating: .failure(LocationError(source: "", message: "not asked")), count: self.providers.count)
            for await (index, answer) in group { answers[index] = answer }
            return answers
        }
        if Task.isCancelled { throw LocationChainError(failures: [], cancelled: true) }
        let positions = answers.map { try? $0.get() }
        guard let winner = LocationStrategy.best(positions), let position = positions[winner] else {
            throw LocationChainError(
                failures: answers.compactMap { if case .failure(let failure) = $0 { failure } else { nil } },
                cancelled: false)
        }
        self.crown(winner)
        return position
    }

    /// One provider's answer within its timeout, recorded in its status.
    private func ask(_ index: Int) async -> Result<Position, LocationError> {
        let provider = self.providers[index]
        if index < self.providers.count - 1 || self.strategy == .mostAccurate,
            let skipped = self.statuses.withLock({ $0[index] }).skippedUntil, self.now() < skipped
        {
            return .failure(
                LocationError(source: provider.type, message: "passed over until \(skipped.iso8601) after timeouts"))
        }
        let started = ContinuousClock.now
        do {
            let position = try await Self.within(provider.timeout) { try await provider.locate() }
            guard let position else {
                throw LocationError(source: provider.type, message: "no position within \(provider.timeout)")
            }
            guard position.isValid else {
                throw LocationError(source: provider.type, message: "returned coordinates off the globe")
            }
            self.record(index) {
                $0.lastPosition = position
                $0.lastSuccessAt = self.now()
                $0.skippedUntil = nil
                $0.slowFailures.reset()
            }
            return .success(position)
        } catch {
            let failure = (error as? LocationError) ?? LocationError(source: provider.type, message: "\(error)")
            if Task.isCancelled { return .failure(failure) }
            let slow = ContinuousClock.now - started >= provider.timeout / 2
            self.record(index) {
                $0.failures += 1
                $0.lastError = failure.message
                $0.lastErrorAt = self.now()
                if slow { $0.skippedUntil = self.now().addingTimeInterval($0.slowFailures.next().seconds) }
            }
            return .failure(failure)
        }
    }

    /// Where the machine was at `time`, for a back-dated entry: from the providers that know the past (tracks,
    /// OwnTracks, Home Assistant, a `command` with `{time}`, a fixed place), in order or the most accurate as the
    /// strategy says; nil when none knows.
    /// `followingTheAuthor`: only the providers that know where the author was (`followsTheAuthor`).
    package func locate(at time: Date, followingTheAuthor: Bool = false) async -> Position? {
        let providers = self.providers.filter { !followingTheAuthor || $0.followsTheAuthor }
        switch self.strategy {
        case .first:
            for provider in providers {
                let answer = try? await Self.within(provider.pastTimeout) { try await provider.locate(at: time) }
                if let position = answer.flatMap({ $0 }).flatMap({ $0 }), position.isValid { return position }
            }
            return nil
        case .mostAccurate:
            let answers = await withTaskGroup(of: (Int, Position?).self) { group in
                for (index, provider) in providers.enumerated() {
                    group.addTask {
                        let answer = try? await Self.within(provider.pastTimeout) {
                            try await provider.locate(at: time)
                        }
                        return (index, answer.flatMap { $0 }.flatMap { $0 }.flatMap { $0.isValid ? $0 : nil })
                    }
                }
                var answers = [Position?](repeating: nil, count: providers.count)
                for await (index, answer) in group { answers[index] = answer }
                return answers
            }
            return LocationStrategy.best(answers).flatMap { answers[$0] }
        }
    }

    /// Marks the provider whose position was taken, for `/v1/status`.
    private func crown(_ winner: Int) {
        self.statuses.withLock { statuses in
            for index in statuses.indices { statuses[index].won = index == winner }
        }
    }

    private func record(_ index: Int, _ update: (inout ProviderStatus) -> Void) {
        self.statuses.withLock {
            $0[index].attempts += 1
            update(&$0[index])
        }
    }

    /// Races `body` against `timeout`; the loser is cancelled. Nil when the time ran out.
    private static func within<T: Sendable>(
        _ timeout: Duration, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T? {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }
}

/// No provider had a position.
package struct LocationChainError: Error, Sendable, CustomStringConvertible {
    package var failures: [LocationError]
    package var cancelled: Bool

    package var description: String {
        if self.failures.isEmpty { return "no location provider is configured" }
        return "no position: " + self.failures.map(\.description).joined(separator: "; ")
    }
}
