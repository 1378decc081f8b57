import FoundationEssentials

/// What happened to one entry when it was stamped: the one vocabulary of a stamp's result. A batch gives it
/// (`EntryBatch`), the inbox machine tells it (`InboxStateMachine.Report.entry`), adding the results only it can
/// decide (no weather where nothing waits, a write that failed), and `weathertag stamp` reports it.
package enum EntryResult: Sendable, Equatable {
    /// Stamped; the version is the new file's, for rescans to tell it has not changed since.
    case stamped(FileVersion)
    /// It had come back without its block (an old buffer saved, a sync or checkout writing the unstamped version
    /// again) and got the remembered block back, unchanged.
    case restored(FileVersion)
    case alreadyStamped(FileVersion)
    /// Left untouched until it changes, and why.
    case leftAlone(LeftAloneReason, FileVersion?)
    /// Someone has it open for writing; their close (`IN_CLOSE_WRITE`) brings it back.
    case inUse
    /// An editor has it open (its swap or lock file is beside it); the file's going brings it back.
    case locked(EditorLock)
    /// It changed between our read and our rename; nothing was overwritten. Try again.
    case changedWhileStamping
    /// It is gone (deleted or renamed away) since the event.
    case vanished
    /// Back-dated, and the weather of its time is to be asked for (`history.enabled`).
    case wantsHistory(HistoryRequest)
    /// Current, and read in a batch without current weather: it waits for weather (nothing was written).
    case needsWeather
    /// Dated a little ahead of now (today in a zone east of here): looked at again after `wait`.
    case datedAhead(EntryTime, wait: Duration)
    /// It needs current weather and none could be had, and nothing waits for it (`weathertag stamp`); untouched.
    case noWeather(any Error)
    /// Reading or writing it failed (a full disk, a read-only filesystem, no permission to the folder); untouched.
    case failed(any Error)

    package static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.stamped(let a), .stamped(let b)), (.restored(let a), .restored(let b)),
            (.alreadyStamped(let a), .alreadyStamped(let b)):
            return a == b
        case (.leftAlone(let a, let x), .leftAlone(let b, let y)): return a == b && x == y
        case (.inUse, .inUse), (.changedWhileStamping, .changedWhileStamping), (.vanished, .vanished),
            (.needsWeather, .needsWeather):
            return true
        case (.locked(let a), .locked(let b)): return a == b
        case (.wantsHistory(let a), .wantsHistory(let b)): return a == b
        case (.datedAhead(let a, let x), .datedAhead(let b, let y)): return a == b && x == y
        // Errors are equal when they are the same failure (`FailureKind`), as the machine compares them.
        case (.noWeather(let a), .noWeather(let b)), (.failed(let a), .failed(let b)):
            return FailureKind(a) == FailureKind(b)
        default: return false
        }
    }
}

/// What a back-dated entry needs: the weather at its time, at its place (its own, from its front matter; nil: a
/// provider that knows the past must say).
package struct HistoryRequest: Sendable, Equatable {
    package var time: EntryTime
    package var position: Position?

    package init(time: EntryTime, position: Position?) {
        self.time = time
        self.position = position
    }

    /// The moment to ask about: the entry's time, or noon of its day when it gives only a day.
    package var moment: Date { self.time.moment }
}

/// Why an entry is left as it is. Rendered into words only at the edge: logs, `status`, `stamp`.
package enum LeftAloneReason: Sendable, Equatable, CustomStringConvertible {
    /// What a name can be other than a regular file.
    package enum FileKind: Sendable, Equatable {
        case symbolicLink, folder, fifo, device, socket, other
    }

    /// Not a regular file (a link is never followed).
    case notRegularFile(FileKind)
    /// It cannot be opened for reading.
    case permissionDenied
    /// Another name for the same file would keep the unstamped version.
    case hardLinks(Int)
    /// Without the owner's write bit: the author's own "do not touch".
    case readOnly
    /// Without the owner's read bit.
    case noReadPermission
    /// Larger than `inbox.max_bytes`.
    case tooLarge(limit: Int)
    /// Its content or front matter is not something a block can be added to.
    case content(StampSkipReason)
    /// Stamped by a user other than its owner, the owner would lose write access (see `OwnerLockout`).
    case ownerWouldLoseAccess(OwnerLockout)
    /// It changed under every attempt; it is tried again on its next change.
    case keepsChanging
    /// Its front matter says when it was written in words that cannot be read.
    case unreadableTime(UnreadableTime)
    /// Dated ahead of now: further than any zone's today, or (`withinADay`) by less, where nothing waits for it
    /// (`weathertag stamp`).
    case future(EntryTime, withinADay: Bool = false)
    /// The daemon crashed (a fault of its own) while stamping it: it may hold what crashes the daemon, so it is not
    /// read again until it changes (`BatchMarker`).
    case stoppedTheDaemon
    /// Written earlier than current weather can speak for (`stamp.backdated_after_seconds`), and the weather of its
    /// time cannot be had, for this reason.
    case backdated(EntryTime, WhyNoHistory = .historyDisabled)
    /// A template (`TemplateSign`): never an entry, whatever it holds. `TemplateBlock` says what of a weather block
    /// it holds.
    case template(TemplateSign, TemplateBlock = .none)
    /// Its weather block is not of its own time, and weathertag did not write it into another entry (it may be the
    /// author's own): left as it is (`BlockOwnership`).
    case anotherTime(AnotherTime)

    /// What of a weather block a template holds.
    package enum TemplateBlock: Sendable, Equatable {
        /// None.
        case none
        /// One weathertag wrote there (an older version stamped the template), at that time when it is known.
        case written(at: Date?)
        /// One weathertag has no memory of writing: it may be the author's, and stays.
        case unknown
    }

    /// Why a back-dated entry gets no weather of its time.
    package enum WhyNoHistory: Sendable, Equatable {
        /// `history.enabled` is off.
        case historyDisabled
        /// Neither the entry nor a provider that knows the past (`track`, `owntracks`, `homeassistant`, `fixed`, a
        /// `command` with `{time}`) says where it was written.
        case noPosition
        /// OpenWeather refused the history call for good (no One Call 3.0 subscription, say), with its words.
        case refused(String)
        /// Its own clock contradicts the place this machine's providers give (`BorrowedPlace`), and no provider
        /// that knows where its author was (`track`, `owntracks`, `homeassistant`, a `command` with `{time}`) does.
        case elsewhere(Elsewhere)
    }

    package var description: String { self.said.english }

    /// Why, in words a view says in its reader's language.
    package var said: Said {
        switch self {
        case .notRegularFile(.symbolicLink): return Said("it is a symbolic link")
        case .notRegularFile(.folder): return Said("it is a folder")
        case .notRegularFile(.fifo): return Said("it is a FIFO")
        case .notRegularFile(.device): return Said("it is a device")
        case .notRegularFile(.socket): return Said("it is a socket")
        case .notRegularFile(.other): return Said("it is not a regular file")
        case .permissionDenied: return Said("it cannot be read (permission denied)")
        case .hardLinks(let count): return Said("it has {count} hard links", ["count": .text(String(count))])
        case .readOnly: return Said("it is read-only")
        case .noReadPermission: return Said("it has no read permission")
        case .tooLarge(let limit):
            return Said("it is larger than inbox.max_bytes ({limit} bytes)", ["limit": .text(String(limit))])
        case .content(.empty): return Said("it is empty (it is stamped once something is written to it)")
        case .content(let reason): return reason.said
        case .ownerWouldLoseAccess(let lockout): return lockout.said
        case .keepsChanging: return Said("it keeps changing while being stamped; waiting for its next change")
        case .unreadableTime(let unreadable): return unreadable.said
        case .future(let time, withinADay: true):
            return Said(
                """
                it is dated {time}, later than now here (today east of here, or a clock ahead): it is stamped when \
                that time comes; the daemon waits for it
                """, ["time": .text(time.description)])
        case .future(let time, withinADay: false):
            return Said(
                """
                it is dated {time}, later than today anywhere on Earth: its weather cannot be known yet, and current \
                weather would be wrong (fix the date; it is looked at again when it changes)
                """, ["time": .text(time.description)])
        case .stoppedTheDaemon:
            return Said(
                """
                the daemon crashed while stamping this file (it may hold what crashes weathertag), so it is not read \
                again until it changes
                """)
        case .template(let sign, .none): return sign.said
        case .template(let sign, .written(let at)):
            guard let at else {
                return Said(
                    """
                    {sign}; it holds a weather block weathertag wrote there, before it knew templates \
                    (`weathertag stamp --remove` takes out that block and nothing else)
                    """, ["sign": .said(sign.said)])
            }
            let day = EntryTime(date: at, dayOnly: true, source: .given, timeZone: .current)
            return Said(
                """
                {sign}; it holds a weather block weathertag wrote there on {day}, before it knew templates \
                (`weathertag stamp --remove` takes out that block and nothing else)
                """, ["sign": .said(sign.said), "day": .text(day.description)])
        case .template(let sign, .unknown):
            return Said(
                "{sign}; the weather block in it is not one weathertag remembers writing, and stays as it is",
                ["sign": .said(sign.said)])
        case .anotherTime(let another): return another.said
        case .backdated(let time, let why):
            let written: KeyValuePairs<String, Said.Argument> = [
                "time": .text(time.description), "source": .said(time.source.said),
            ]
            switch why {
            case .elsewhere(let elsewhere):
                return Said(
                    """
                    written {time} (by {source}): {elsewhere}, so it was written elsewhere and the weather here would \
                    be borrowed (give the entry latitude and longitude, or add a provider that knows where you were: \
                    track, owntracks, homeassistant, or a command with {{time}})
                    """,
                    [
                        "time": .text(time.description), "source": .said(time.source.said),
                        "elsewhere": .said(elsewhere.said),
                    ])
            case .historyDisabled:
                return Said(
                    """
                    written {time} (by {source}): current weather would be wrong, and the weather then needs \
                    history.enabled (Open-Meteo's archive, no key needed)
                    """, written)
            case .noPosition:
                return Said(
                    """
                    written {time} (by {source}): current weather would be wrong, and there is no position for that \
                    time (give the entry latitude and longitude, or add a provider that knows the past: track, \
                    owntracks, homeassistant, fixed, or a command with {{time}})
                    """, written)
            case .refused(let reason):
                return Said(
                    """
                    written {time} (by {source}): current weather would be wrong, and the weather then cannot be \
                    had: {reason}
                    """,
                    ["time": .text(time.description), "source": .said(time.source.said), "reason": .text(reason)])
            }
        }
    }
}

/// Someone else's entry that a stamp would take away from its owner: the replacement belongs to the stamping user,
/// and the owner keeps write access only through the entry's group.
package struct OwnerLockout: Sendable, Equatable, CustomStringConvertible {
    package var owner: UInt32
    package var group: UInt32
    package var stamper: UInt32
    package var stamperGroup: UInt32
    /// The entry is not group-writable (else: the replacement would land in another group).
    package var notGroupWritable: Bool

    package init(owner: UInt32, group: UInt32, stamper: UInt32, stamperGroup: UInt32, notGroupWritable: Bool) {
        self.owner = owner
        self.group = group
        self.stamper = stamper
        self.stamperGroup = stamperGroup
        self.notGroupWritable = notGroupWritable
    }

    package var description: String { self.said.english }

    /// Why, in words a view says in its reader's language.
    package var said: Said {
        if self.notGroupWritable {
            return Said(
                """
                it belongs to uid {owner} and is not group-writable: stamped, it would belong to uid {stamper} and \
                its owner could not write to it (chmod g+w it, or run weathertag as its owner)
                """, ["owner": .text(String(self.owner)), "stamper": .text(String(self.stamper))])
        }
        return Said(
            """
            it belongs to uid {owner} and group {group}: stamped, it would belong to uid {stamper} and group \
            {stamperGroup}, and its owner could lose write access (make the inbox setgid in the entry's group, or \
            run weathertag as its owner)
            """,
            [
                "owner": .text(String(self.owner)), "group": .text(String(self.group)),
                "stamper": .text(String(self.stamper)), "stamperGroup": .text(String(self.stamperGroup)),
            ])
    }
}

/// An error that can come again in other words: a failed write names the temp file it wrote, whose name is new
/// each attempt. `recurrenceKey` is what stays the same (the call and its errno), so that a disk that stays full is
/// reported once, not at every retry.
package protocol RecurringFailure: Error {
    var recurrenceKey: String { get }
}

/// What stays the same when a failure comes again, whatever its words: the call and errno of a failed write, the
/// kind of a weather service's error (`RecurringFailure`). The inbox machine compares these, never messages, to
/// report a failure once.
package struct FailureKind: Hashable, Sendable {
    private let key: String

    package init(_ error: any Error) {
        // An error that does not say what recurs is compared by its type and words.
        self.key = (error as? any RecurringFailure)?.recurrenceKey ?? "\(type(of: error)): \(error)"
    }
}

/// Why the weather of a back-dated entry's time could not be had.
package enum HistoryFailure: Sendable {
    /// Not to be had: the entry is left alone, with this reason, until it changes.
    case unavailable(LeftAloneReason.WhyNoHistory)
    /// Not now (the service failing, the day's calls spent): the entry is looked at again after this long.
    case later(Duration, any Error)
}
