import FoundationEssentials

/// Where an entry stands. Every entry of the diary is in one lane.
package enum Lane: String, Sendable, Equatable, CaseIterable, Codable {
    /// Not stamped yet, and it will be: no weather yet, open in an editor, settling, the disk refused the write.
    case waiting
    /// It has its weather block: stamped, given back (restored), or found in it.
    case stamped
    /// Written earlier than current weather can speak for: waiting for the weather of its time, or without it.
    case backdated
    /// Left as it is until it changes, and why.
    case leftAlone = "left_alone"
    /// It holds a weather block of another time than its own, which weathertag did not write for it: left as it is,
    /// and its weather counted nowhere (`BlockOwnership`).
    case otherTime = "other_time"
}

/// Why an entry is in its lane: one stable code per reason, its raw value, as `GET /v1/entries`, `why` and the
/// index give it. Every code the daemon writes is a case here, so a typo does not compile.
package enum LaneReason: String, Sendable, Equatable, CaseIterable, Codable {
    // Waiting.
    case noWeather = "no_weather"
    case editor
    case syncing
    case inUse = "in_use"
    case settling
    case changing
    case diskRefused = "disk_refused"
    case queued
    case stamping
    case datedAhead = "dated_ahead"
    case notRunning = "not_running"
    // Stamped.
    case stamped
    case restored
    case found
    // Back-dated.
    case waitingForHistory = "waiting_for_history"
    case historyDisabled = "history_disabled"
    case noPosition = "no_position"
    case historyRefused = "history_refused"
    case elsewhere
    // Left alone: one per `LeftAloneReason`.
    case notRegularFile = "not_regular_file"
    case permissionDenied = "permission_denied"
    case hardLinks = "hard_links"
    case readOnly = "read_only"
    case noReadPermission = "no_read_permission"
    case tooLarge = "too_large"
    case empty
    case overLimit = "over_limit"
    case content
    case ownerWouldLoseAccess = "owner_would_lose_access"
    case keepsChanging = "keeps_changing"
    case stoppedTheDaemon = "stopped_the_daemon"
    case unreadableTime = "unreadable_time"
    case future
    case template
    /// A template holding a block weathertag wrote there (`LeftAloneReason.TemplateBlock.written`).
    case stampedTemplate = "stamped_template"
    // Weather from another time.
    case otherTime = "other_time"

    /// The lane this reason is a reason of.
    package var lane: Lane {
        switch self {
        case .noWeather, .editor, .syncing, .inUse, .settling, .changing, .diskRefused, .queued, .stamping, .datedAhead,
            .notRunning:
            return .waiting
        case .stamped, .restored, .found: return .stamped
        case .waitingForHistory, .historyDisabled, .noPosition, .historyRefused, .elsewhere: return .backdated
        case .notRegularFile, .permissionDenied, .hardLinks, .readOnly, .noReadPermission, .tooLarge, .empty,
            .overLimit, .content, .ownerWouldLoseAccess, .keepsChanging, .stoppedTheDaemon, .unreadableTime, .future,
            .template, .stampedTemplate:
            return .leftAlone
        case .otherTime: return .otherTime
        }
    }

    /// The reason an index row names by `code`; a code this version does not know (an index a newer one wrote)
    /// reads as its lane's most general reason.
    package static func indexed(_ code: String, in lane: Lane) -> LaneReason {
        if let reason = LaneReason(rawValue: code) { return reason }
        switch lane {
        case .waiting: return .queued
        case .stamped: return .stamped
        case .backdated: return .historyRefused
        case .leftAlone: return .content
        case .otherTime: return .otherTime
        }
    }
}

/// An entry's lane, why it is there, and the words.
package struct LaneState: Sendable, Equatable {
    package var lane: Lane
    package var reason: LaneReason
    /// Words for people: what exactly (the lock file, the error, the YAML problem), said in the reader's language.
    package var detail: Said?

    package init(_ lane: Lane, _ reason: LaneReason, detail: Said? = nil) {
        self.lane = lane
        self.reason = reason
        self.detail = detail
    }

    /// An entry the daemon has seen and not yet read.
    package static let queued = LaneState(.waiting, .queued, detail: Said("it is about to be stamped"))

    /// Whether the weather block an entry in this state holds is its weather: not a template's, nor one of another
    /// time (`stats`, the map and the page count neither).
    package var weatherIsItsOwn: Bool {
        self.lane != .otherTime && self.reason != .template && self.reason != .stampedTemplate
    }

    /// An entry in this state may be waiting this moment, which the running inbox knows better than the index.
    package var mayBeWaiting: Bool { self.lane == .waiting || self.reason == .waitingForHistory }

    /// The lane to show for an entry the index has in `indexed`: the running inbox's word on it (`live`) when it has
    /// one. Without it, an entry seen and not yet read is in a batch this moment, and one a batch put in a lane the
    /// inbox does not follow (a program has it open for writing) keeps it. Without a running inbox, a waiting entry
    /// waits for a daemon that is not running.
    package static func shown(indexed: LaneState, live: LaneState?, inboxRunning: Bool) -> LaneState {
        guard indexed.mayBeWaiting else { return indexed }
        guard inboxRunning else {
            return indexed.lane == .waiting ? LaneState(.waiting, .notRunning, detail: indexed.detail) : indexed
        }
        if let live { return live }
        return indexed.reason == .queued ? LaneState(.waiting, .stamping) : indexed
    }

    /// The lane a stamp's result puts an entry in; nil for a result that says nothing about the entry (it is gone).
    package static func of(_ result: EntryResult) -> LaneState? {
        switch result {
        case .stamped: return LaneState(.stamped, .stamped)
        case .restored: return LaneState(.stamped, .restored)
        case .alreadyStamped: return LaneState(.stamped, .found)
        case .leftAlone(let reason, _): return Self.of(reason)
        case .inUse: return LaneState(.waiting, .inUse, detail: Said("a program has it open for writing"))
        case .locked(let lock): return Self.held(by: lock)
        case .changedWhileStamping:
            return .changing
        case .vanished: return nil
        case .wantsHistory(let request):
            return LaneState(
                .backdated, .waitingForHistory,
                detail: Said("written {time}", ["time": .text(request.time.description)]))
        case .datedAhead(let time, _): return Self.datedAhead(time)
        case .needsWeather: return LaneState(.waiting, .noWeather)
        // (A service's or a system call's words: data.)
        case .noWeather(let error): return LaneState(.waiting, .noWeather, detail: Said(verbatim: "\(error)"))
        case .failed(let error): return LaneState(.waiting, .diskRefused, detail: Said(verbatim: "\(error)"))
        }
    }

    /// An entry dated a little ahead of now, waiting for its time.
    package static func datedAhead(_ time: EntryTime) -> LaneState {
        LaneState(
            .waiting, .datedAhead,
            detail: Said(
                """
                it is dated {time}, later than now here (today east of here, or a clock ahead); it is stamped when \
                that time comes
                """, ["time": .text(time.description)]))
    }

    /// An entry an editor has open (`editor`), or a sync tool is bringing a new version of (`syncing`).
    package static func held(by lock: EditorLock) -> LaneState {
        LaneState(.waiting, lock.isSyncTool ? .syncing : .editor, detail: Said(verbatim: lock.file))
    }

    /// An entry that changed while it was being stamped, tried again.
    package static let changing = LaneState(
        .waiting, .changing, detail: Said("it changed while it was being stamped"))

    package static func of(_ reason: LeftAloneReason) -> LaneState {
        let code: LaneReason
        switch reason {
        case .backdated(_, let why):
            switch why {
            case .historyDisabled: code = .historyDisabled
            case .noPosition: code = .noPosition
            case .refused: code = .historyRefused
            case .elsewhere: code = .elsewhere
            }
            return LaneState(.backdated, code, detail: reason.said)
        case .notRegularFile: code = .notRegularFile
        case .permissionDenied: code = .permissionDenied
        case .hardLinks: code = .hardLinks
        case .readOnly: code = .readOnly
        case .noReadPermission: code = .noReadPermission
        case .tooLarge: code = .tooLarge
        case .content(.empty): code = .empty
        case .content(.frontMatterOverLimit): code = .overLimit
        case .content: code = .content
        case .ownerWouldLoseAccess: code = .ownerWouldLoseAccess
        case .keepsChanging: code = .keepsChanging
        case .stoppedTheDaemon: code = .stoppedTheDaemon
        case .unreadableTime: code = .unreadableTime
        case .future: code = .future
        case .template(_, .written): code = .stampedTemplate
        case .template: code = .template
        case .anotherTime: return LaneState(.otherTime, .otherTime, detail: reason.said)
        }
        return LaneState(.leftAlone, code, detail: reason.said)
    }

    /// One sentence: where the entry stands and why, in the code's English (`why` of `GET /v1/entries`).
    package var sentence: String { self.sentence(.english) }

    /// What would change it, in the code's English (`remedy` of `GET /v1/entries`).
    package var remedy: String { self.remedy(.english) }

    /// One sentence in the reader's language: where the entry stands and why.
    package func sentence(_ words: Messages) -> String {
        let detail = self.detail?.said(words)
        let said = detail ?? ""
        switch (self.lane, self.reason) {
        case (.waiting, .noWeather):
            return detail == nil
                ? words.tr("It waits for weather.") : words.tr("It waits for weather: {detail}.", ["detail": said])
        case (.waiting, .editor):
            return detail == nil
                ? words.tr("It waits for its editor to close it (a lock file is beside it).")
                : words.tr("It waits for its editor to close it ({file} is beside it).", ["file": said])
        case (.waiting, .syncing):
            return detail == nil
                ? words.tr("A sync tool is bringing a new version of it in (a temp file is beside it).")
                : words.tr("A sync tool is bringing a new version of it in ({file} is beside it).", ["file": said])
        case (.waiting, .inUse): return words.tr("It waits for the program writing it to close it.")
        case (.waiting, .settling): return words.tr("It was written a moment ago and waits for the writes to settle.")
        case (.waiting, .changing): return words.tr("It changed while it was being stamped and is tried again.")
        case (.waiting, .diskRefused):
            return detail == nil
                ? words.tr("It waits because the disk refused the last write.")
                : words.tr("It waits because the disk refused the last write: {detail}.", ["detail": said])
        case (.waiting, .stamping): return words.tr("It is being stamped right now.")
        case (.waiting, .datedAhead):
            return detail == nil ? words.tr("It waits.") : words.tr("It waits: {detail}.", ["detail": said])
        case (.waiting, .notRunning):
            return words.tr("It was waiting when the daemon last looked, and the daemon is not running.")
        case (.waiting, _):
            return detail == nil
                ? words.tr("It waits to be stamped.") : words.tr("It waits to be stamped: {detail}.", ["detail": said])
        case (.stamped, .restored): return words.tr("It is stamped: its block came back without it and was given back.")
        case (.stamped, .found): return words.tr("It is stamped: the weather block was in it already.")
        case (.stamped, _): return words.tr("It is stamped.")
        case (.backdated, .waitingForHistory):
            return detail == nil
                ? words.tr("It is back-dated (written earlier) and waits for the weather of its time.")
                : words.tr("It is back-dated ({detail}) and waits for the weather of its time.", ["detail": said])
        case (.backdated, _):
            return words.tr(
                "It is back-dated and left without weather: {detail}.", ["detail": detail ?? self.reason.rawValue])
        case (.leftAlone, _):
            return words.tr("It is left as it is: {detail}.", ["detail": detail ?? self.reason.rawValue])
        case (.otherTime, _):
            return detail == nil
                ? words.tr("It holds weather from another time: its block is not of its own time.")
                : words.tr("It holds weather from another time: {detail}.", ["detail": said])
        }
    }

    /// What would change it, in the reader's language.
    package func remedy(_ words: Messages) -> String {
        switch (self.lane, self.reason) {
        case (.waiting, .noWeather):
            return words.tr(
                "It is stamped as soon as a weather source answers; `weathertag status` shows the last error.")
        case (.waiting, .editor): return words.tr("Close the editor (or delete a lock file a crashed editor left).")
        case (.waiting, .syncing):
            return words.tr(
                """
                Nothing: it is stamped once the sync tool has brought its new version in and no write has reached \
                it for inbox.settle_seconds.
                """)
        case (.waiting, .inUse): return words.tr("It is stamped once the program closes it.")
        case (.waiting, .settling):
            return words.tr("Nothing: it is stamped once no write has reached it for inbox.settle_seconds.")
        case (.waiting, .changing): return words.tr("Nothing: it is stamped once it holds still.")
        case (.waiting, .diskRefused):
            return words.tr("Free space on the disk or make the folder writable; it is retried by itself.")
        case (.waiting, .datedAhead):
            return words.tr("Nothing: it is stamped when its time comes (or correct its date).")
        case (.waiting, .notRunning): return words.tr("Start the daemon (systemctl --user start weathertag).")
        case (.waiting, _): return words.tr("Nothing: it is stamped shortly.")
        case (.stamped, _):
            return words.tr("Nothing. `weathertag stamp --fresh FILE` replaces its block with new weather.")
        case (.backdated, .waitingForHistory):
            return words.tr("Nothing: it is stamped when history answers (within history.max_calls_per_day).")
        case (.backdated, .historyDisabled):
            return words.tr(
                """
                Turn on history.enabled (Open-Meteo's archive, no key needed), or `weathertag stamp --fresh FILE` \
                for today's weather.
                """)
        case (.backdated, .noPosition):
            return words.tr(
                """
                Give it latitude and longitude in its front matter, or a location provider that knows where you \
                were then (a track folder, OwnTracks, Home Assistant, a fixed place); then touch the entry.
                """)
        case (.backdated, _):
            return words.tr("`weathertag stamp --fresh FILE` stamps it with today's weather instead.")
        case (.leftAlone, .empty): return words.tr("Write something in it.")
        case (.leftAlone, .tooLarge): return words.tr("Raise inbox.max_bytes.")
        case (.leftAlone, .readOnly): return words.tr("Give it its owner's write bit (chmod u+w).")
        case (.leftAlone, .noReadPermission), (.leftAlone, .permissionDenied):
            return words.tr("Let the daemon's user read it (chmod u+r, or its group).")
        case (.leftAlone, .hardLinks): return words.tr("Keep one name for it (remove the other links).")
        case (.leftAlone, .notRegularFile): return words.tr("Nothing: only regular files are stamped.")
        case (.leftAlone, .content):
            return words.tr("Fix its front matter as the reason says; it is looked at again when it changes.")
        case (.leftAlone, .stoppedTheDaemon):
            return words.tr(
                """
                Change it (even `touch` it) to have it stamped again; if the daemon stops again, please report \
                the file.
                """)
        case (.leftAlone, .unreadableTime), (.leftAlone, .future):
            return words.tr(
                """
                Write its date as 2019-05-01, "2019-05-01 10:00" or 2019-05-01T10:00:00+02:00 (or remove it to \
                use the file's name or modification time).
                """)
        case (.leftAlone, .overLimit):
            return words.tr("Make its front matter smaller or flatter; it is looked at again when it changes.")
        case (.leftAlone, .ownerWouldLoseAccess):
            return words.tr("See the reason: change its mode or the daemon's user.")
        case (.leftAlone, .template):
            return words.tr("Nothing: a template is never stamped; each note made from it gets its own weather.")
        case (.leftAlone, .stampedTemplate):
            return words.tr(
                """
                `weathertag stamp --remove FILE` takes out the block weathertag wrote there and nothing else; \
                notes made from it meanwhile get their own weather.
                """)
        case (.leftAlone, _): return words.tr("It is looked at again when it changes.")
        case (.otherTime, _):
            return words.tr(
                """
                If the block is not yours, `weathertag stamp --fresh FILE` replaces it with the weather of the \
                entry's own time; its weather is counted nowhere meanwhile.
                """)
        }
    }
}
