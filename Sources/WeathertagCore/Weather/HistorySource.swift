import FoundationEssentials

/// A weather source that can also say what the weather was (`history.source`): a second face of the same plugin, in
/// the same registry (its `WeatherSourcePlugin` builds it with `makePast:`, so the type says so). `HistoryService` does the rest for every
/// source alike: where the entry was, what `privacy` lets leave, what is kept (by source, place cell and span of
/// hours), one request at a time, one gate per outage, one `CallBudget`, gaps asked again later. A new source that
/// can answer for the past is one file: this, besides its current weather.
package protocol HistorySource: WeatherSource {
    /// Its name in messages ("Open-Meteo").
    var name: String { get }
    /// What its history may spend; `maximumPerDay` is `history.max_calls_per_day` when set.
    func historyLimits(maximumPerDay: Int?) -> HistoryLimits
    /// Why `hour` (Unix time / 3600) can never be had from it (before its archive begins); nil when it can, or may
    /// once past.
    func unavailable(hour: Int) -> String?
    /// What to ask so that `hour` (of an entry written at `moment`) is answered, given the spans of hours already
    /// kept for the place; nil for an hour not yet past.
    func plan(hour: Int, moment: Date, now: Date, kept: [ClosedRange<Int>]) -> (any HistoryFetch)?
    /// What to ask again for a gap at `hour` in what was kept (the day around it); nil when nothing would help.
    func planAgain(hour: Int, now: Date) -> (any HistoryFetch)?
    /// Asks: the hours answered, to be kept; nil when the answer holds no past hour. A request the service refused
    /// for a reason of its own is `.requestRefused` (final for the entry), a refused key `.unauthorized`.
    func history(
        _ fetch: any HistoryFetch, at position: RequestPosition, now: Date
    ) async throws(WeatherError) -> (any HistoryHours)?
    /// Hours it kept, read back; nil when the bytes are not its.
    func hours(kept: [UInt8]) -> (any HistoryHours)?
}

/// What a source's history may spend, and how to name it when it is spent ("Open-Meteo's free limits (history's half
/// of them)").
package struct HistoryLimits: Sendable, Equatable {
    package var calls: CallLimits
    package var name: String

    package init(calls: CallLimits, name: String) {
        self.calls = calls
        self.name = name
    }
}

/// One request for the past, as its source plans it (a service and a span of days, a moment), and what it counts
/// as against the source's limits.
package protocol HistoryFetch: Sendable, CustomStringConvertible {
    var weight: Double { get }
}

/// Hours of the past as a source answered them: kept as bytes, read back, asked hour by hour.
package protocol HistoryHours: Sendable {
    /// The hours it holds (Unix time / 3600).
    var span: ClosedRange<Int> { get }
    /// As kept; its source's `hours(kept:)` reads it back.
    var encoded: [UInt8] { get }
    /// The weather of `hour`; nil where it has none (a gap, or a variable the answer lacks).
    func weather(hour: Int, units: Units, lang: String) -> Weather?
}
