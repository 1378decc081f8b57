import FoundationEssentials

/// Whether an entry is about the present: one written earlier than `stamp.backdated_after_seconds` ago (for a day
/// without a time: any day before today) is back-dated and never gets current weather. With `history.enabled` it
/// asks for the weather of its own time; otherwise it is left alone with the reason.
public struct BackdatingPolicy: Sendable {
    /// How old an entry's time may be for current weather.
    public var threshold: Duration
    public var timeZone: Zone
    /// Back-dated entries ask for the weather of their time (`history.enabled`) instead of being left alone.
    public var asksHistory: Bool
    /// The time given for the entries (`stamp --at`), instead of what each entry says.
    public var explicitTime: EntryTime?
    public var now: @Sendable () -> Date

    public init(
        threshold: Duration = .seconds(10_800), timeZone: Zone = .current, asksHistory: Bool = false,
        explicitTime: EntryTime? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.threshold = threshold
        self.timeZone = timeZone
        self.asksHistory = asksHistory
        self.explicitTime = explicitTime
        self.now = now
    }

    /// The entry's time: the one given, else what the entry says.
    public func time(frontMatter fields: [String: String], fileName: String, modified: Date) -> EntryTime {
        self.explicitTime
            ?? EntryTime.of(fields: fields, fileName: fileName, modified: modified, timeZone: self.timeZone)
    }

    /// Why an entry with these facts must not get current weather; nil when it may.
    public func leaveAlone(frontMatter fields: [String: String], fileName: String, modified: Date) -> LeftAloneReason? {
        let time = self.time(frontMatter: fields, fileName: fileName, modified: modified)
        return self.isBackdated(time) ? .backdated(time) : nil
    }

    public func isBackdated(_ time: EntryTime) -> Bool {
        let now = self.now()
        if time.dayOnly {
            return time.date < time.timeZone.calendar(at: now).startOfDay(for: now)
        }
        return now.timeIntervalSince(time.date) > self.threshold.seconds
    }
}
