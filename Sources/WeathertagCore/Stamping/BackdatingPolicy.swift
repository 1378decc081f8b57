import FoundationEssentials

/// Whether an entry is about the present: one written earlier than `stamp.backdated_after_seconds` ago (for a day
/// without a time: any day before today) is back-dated and never gets current weather. With `history.enabled` it
/// asks for the weather of its own time; otherwise it is left alone with the reason.
package struct BackdatingPolicy: Sendable {
    /// How old an entry's time may be for current weather.
    package var threshold: Duration
    package var timeZone: Zone
    /// Back-dated entries ask for the weather of their time (`history.enabled`) instead of being left alone.
    package var asksHistory: Bool
    /// The time given for the entries (`stamp --at`), instead of what each entry says.
    package var explicitTime: EntryTime?
    /// Where current weather is from (its place's name and zone, when known): a current entry whose own clock
    /// contradicts both it and the machine's is not given it (`BorrowedPlace`). Nil: not asked.
    package var currentPlace: (name: String?, zone: Zone?)?
    package var now: @Sendable () -> Date

    package init(
        threshold: Duration = .seconds(10_800), timeZone: Zone = .current, asksHistory: Bool = false,
        explicitTime: EntryTime? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.threshold = threshold
        self.timeZone = timeZone
        self.asksHistory = asksHistory
        self.explicitTime = explicitTime
        self.now = now
    }

    /// The entry's time: the one given, else what the entry says (a field that cannot be read passed over).
    package func time(frontMatter fields: [String: String], fileName: String, modified: Date) -> EntryTime {
        self.explicitTime
            ?? EntryTime.of(fields: fields, fileName: fileName, modified: modified, timeZone: self.timeZone)
    }

    /// What an entry's time means for its stamp.
    package enum Verdict: Sendable, Equatable {
        /// Written now: current weather.
        case current(EntryTime)
        /// Written earlier than current weather can speak for.
        case backdated(EntryTime)
        /// Dated later than now, by less than a day: it may be today somewhere east of here (or a clock a little
        /// ahead); it waits this long, then it is current.
        case ahead(EntryTime, wait: Duration)
        /// Its time cannot be read, or lies further ahead than any zone's today: left alone, never guessed.
        case leftAlone(LeftAloneReason)
    }

    /// How far ahead a written time may be and still be now: clocks a little apart.
    package static let clockSkew: Duration = .seconds(300)
    /// How far ahead it may be and wait: a day written in the zone furthest east (+14:00) is at most this far ahead
    /// of the one furthest west (-12:00).
    package static let widestZoneGap: Duration = .seconds(26 * 3600)

    package func verdict(frontMatter fields: [String: String], fileName: String, modified: Date) -> Verdict {
        let time: EntryTime
        if let explicitTime {
            time = explicitTime
        } else {
            switch EntryTime.read(fields: fields, fileName: fileName, modified: modified, timeZone: self.timeZone) {
            case .success(let read): time = read
            case .failure(let unreadable): return .leftAlone(.unreadableTime(unreadable))
            }
        }
        if self.isBackdated(time) { return .backdated(time) }
        // A modification time ahead is the machine's clock, not the author's word.
        guard time.source != .modificationTime else { return .current(time) }
        let now = self.now()
        let start = time.dayOnly ? time.date : time.date.addingTimeInterval(-Self.clockSkew.seconds)
        guard start > now else { return self.here(time) }
        let ahead = time.date.timeIntervalSince(now)
        guard ahead <= Self.widestZoneGap.seconds else { return .leftAlone(.future(time)) }
        return .ahead(time, wait: .milliseconds(Int64((ahead * 1000).rounded(.up))))
    }

    /// A current entry, unless its own clock contradicts the place current weather is from and the machine's
    /// (`BorrowedPlace`): then the providers that know where its author was are asked (as for a back-dated entry,
    /// with `history.enabled`), or it is left alone with both clocks named.
    func here(_ time: EntryTime) -> Verdict {
        guard let (name, zone) = self.currentPlace,
            let elsewhere = BorrowedPlace.contradiction(time, machineZone: self.timeZone, place: name, placeZone: zone)
        else { return .current(time) }
        return self.asksHistory ? .backdated(time) : .leftAlone(.backdated(time, .elsewhere(elsewhere)))
    }

    /// Why an entry with these facts must not get current weather; nil when it may.
    package func leaveAlone(frontMatter fields: [String: String], fileName: String, modified: Date) -> LeftAloneReason?
    {
        switch self.verdict(frontMatter: fields, fileName: fileName, modified: modified) {
        case .current, .ahead: return nil
        case .backdated(let time): return .backdated(time)
        case .leftAlone(let reason): return reason
        }
    }

    package func isBackdated(_ time: EntryTime) -> Bool {
        let now = self.now()
        if time.dayOnly {
            return time.date < time.timeZone.calendar(at: now).startOfDay(for: now)
        }
        return now.timeIntervalSince(time.date) > self.threshold.seconds
    }
}
