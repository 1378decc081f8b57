import FoundationEssentials

/// Where an entry stands. Every entry of the diary is in one lane.
public enum Lane: String, Sendable, Equatable, CaseIterable, Codable {
    /// Not stamped yet, and it will be: no weather yet, open in an editor, settling, the disk refused the write.
    case waiting
    /// It has its weather block: stamped, given back (restored), or found in it.
    case stamped
    /// Written earlier than current weather can speak for: waiting for the weather of its time, or without it.
    case backdated
    /// Left as it is until it changes, and why.
    case leftAlone = "left_alone"
}

/// An entry's lane, why it is there (a stable code, as `GET /v1/entries` and the index give it), and the words.
public struct LaneState: Sendable, Equatable {
    public var lane: Lane
    /// `no_weather`, `editor`, `syncing`, `in_use`, `settling`, `changing`, `disk_refused`, `queued`, `stamping`; `stamped`,
    /// `restored`, `found`; `waiting_for_history`, `history_disabled`, `no_position`, `history_refused`, `elsewhere`; and for
    /// `left_alone` one code per `LeftAloneReason`.
    public var reason: String
    /// Words for people: what exactly (the lock file, the error, the YAML problem).
    public var detail: String?

    public init(_ lane: Lane, _ reason: String, detail: String? = nil) {
        self.lane = lane
        self.reason = reason
        self.detail = detail
    }

    /// An entry the daemon has seen and not yet read.
    public static let queued = LaneState(.waiting, "queued", detail: "it is about to be stamped")

    /// An entry in this state may be waiting this moment, which the running inbox knows better than the index.
    public var mayBeWaiting: Bool { self.lane == .waiting || self.reason == "waiting_for_history" }

    /// The lane to show for an entry the index has in `indexed`: the running inbox's word on it (`live`) when it has
    /// one. Without it, an entry seen and not yet read is in a batch this moment, and one a batch put in a lane the
    /// inbox does not follow (a program has it open for writing) keeps it. Without a running inbox, a waiting entry
    /// waits for a daemon that is not running.
    public static func shown(indexed: LaneState, live: LaneState?, inboxRunning: Bool) -> LaneState {
        guard indexed.mayBeWaiting else { return indexed }
        guard inboxRunning else {
            return indexed.lane == .waiting ? LaneState(.waiting, "not_running", detail: indexed.detail) : indexed
        }
        if let live { return live }
        return indexed.reason == Self.queued.reason ? LaneState(.waiting, "stamping") : indexed
    }

    /// The lane a stamp's result puts an entry in; nil for a result that says nothing about the entry (it is gone).
    public static func of(_ result: EntryResult) -> LaneState? {
        switch result {
        case .stamped: return LaneState(.stamped, "stamped")
        case .restored: return LaneState(.stamped, "restored")
        case .alreadyStamped: return LaneState(.stamped, "found")
        case .leftAlone(let reason, _): return Self.of(reason)
        case .inUse: return LaneState(.waiting, "in_use", detail: "a program has it open for writing")
        case .locked(let lock): return Self.held(by: lock)
        case .changedWhileStamping:
            return LaneState(.waiting, "changing", detail: "it changed while it was being stamped")
        case .vanished: return nil
        case .wantsHistory(let request):
            return LaneState(.backdated, "waiting_for_history", detail: "written \(request.time)")
        case .datedAhead(let time, _): return Self.datedAhead(time)
        case .needsWeather: return LaneState(.waiting, "no_weather")
        }
    }

    /// An entry dated a little ahead of now, waiting for its time.
    public static func datedAhead(_ time: EntryTime) -> LaneState {
        LaneState(
            .waiting, "dated_ahead",
            detail: "it is dated \(time), later than now here (today east of here, or a clock ahead); it is stamped "
                + "when that time comes")
    }

    /// An entry an editor has open (`editor`), or a sync tool is bringing a new version of (`syncing`).
    public static func held(by lock: EditorLock) -> LaneState {
        LaneState(.waiting, lock.isSyncTool ? "syncing" : "editor", detail: lock.file)
    }

    public static func of(_ reason: LeftAloneReason) -> LaneState {
        let code: String
        switch reason {
        case .backdated(_, let why):
            switch why {
            case .historyDisabled: code = "history_disabled"
            case .noPosition: code = "no_position"
            case .refused: code = "history_refused"
            case .elsewhere: code = "elsewhere"
            }
            return LaneState(.backdated, code, detail: reason.description)
        case .notRegularFile: code = "not_regular_file"
        case .permissionDenied: code = "permission_denied"
        case .hardLinks: code = "hard_links"
        case .readOnly: code = "read_only"
        case .noReadPermission: code = "no_read_permission"
        case .tooLarge: code = "too_large"
        case .content(.empty): code = "empty"
        case .content(.frontMatterOverLimit): code = "over_limit"
        case .content: code = "content"
        case .ownerWouldLoseAccess: code = "owner_would_lose_access"
        case .keepsChanging: code = "keeps_changing"
        case .stoppedTheDaemon: code = "stopped_the_daemon"
        case .unreadableTime: code = "unreadable_time"
        case .future: code = "future"
        }
        return LaneState(.leftAlone, code, detail: reason.description)
    }

    /// One sentence: where the entry stands and why.
    public var sentence: String {
        let detail = self.detail.map { ": \($0)" } ?? ""
        switch (self.lane, self.reason) {
        case (.waiting, "no_weather"): return "It waits for weather\(detail)."
        case (.waiting, "editor"):
            return "It waits for its editor to close it (\(self.detail ?? "a lock file") is beside it)."
        case (.waiting, "syncing"):
            return "A sync tool is bringing a new version of it in (\(self.detail ?? "a temp file") is beside it)."
        case (.waiting, "in_use"): return "It waits for the program writing it to close it."
        case (.waiting, "settling"): return "It was written a moment ago and waits for the writes to settle."
        case (.waiting, "changing"): return "It changed while it was being stamped and is tried again."
        case (.waiting, "disk_refused"): return "It waits because the disk refused the last write\(detail)."
        case (.waiting, "stamping"): return "It is being stamped right now."
        case (.waiting, "dated_ahead"): return "It waits\(detail)."
        case (.waiting, "not_running"):
            return "It was waiting when the daemon last looked, and the daemon is not running."
        case (.waiting, _): return "It waits to be stamped\(detail)."
        case (.stamped, "restored"): return "It is stamped: its block came back without it and was given back."
        case (.stamped, "found"): return "It is stamped: the weather block was in it already."
        case (.stamped, _): return "It is stamped."
        case (.backdated, "waiting_for_history"):
            return "It is back-dated (\(self.detail ?? "written earlier")) and waits for the weather of its time."
        case (.backdated, _): return "It is back-dated and left without weather: \(self.detail ?? self.reason)."
        case (.leftAlone, _): return "It is left as it is: \(self.detail ?? self.reason)."
        }
    }

    /// What would change it.
    public var remedy: String {
        switch (self.lane, self.reason) {
        case (.waiting, "no_weather"):
            return "It is stamped as soon as a weather source answers; `weathertag status` shows the last error."
        case (.waiting, "editor"): return "Close the editor (or delete a lock file a crashed editor left)."
        case (.waiting, "syncing"):
            return "Nothing: it is stamped once the sync tool has brought its new version in and no write has reached "
                + "it for inbox.settle_seconds."
        case (.waiting, "in_use"): return "It is stamped once the program closes it."
        case (.waiting, "settling"):
            return "Nothing: it is stamped once no write has reached it for inbox.settle_seconds."
        case (.waiting, "changing"): return "Nothing: it is stamped once it holds still."
        case (.waiting, "disk_refused"):
            return "Free space on the disk or make the folder writable; it is retried by itself."
        case (.waiting, "dated_ahead"): return "Nothing: it is stamped when its time comes (or correct its date)."
        case (.waiting, "not_running"): return "Start the daemon (systemctl --user start weathertag)."
        case (.waiting, _): return "Nothing: it is stamped shortly."
        case (.stamped, _): return "Nothing. `weathertag stamp --fresh FILE` replaces its block with new weather."
        case (.backdated, "waiting_for_history"):
            return "Nothing: it is stamped when history answers (within history.max_calls_per_day)."
        case (.backdated, "history_disabled"):
            return
                "Turn on history.enabled (Open-Meteo's archive, no key needed), or `weathertag stamp --fresh FILE` for today's weather."
        case (.backdated, "no_position"):
            return "Give it latitude and longitude in its front matter, or a location provider that knows where you "
                + "were then (a track folder, OwnTracks, Home Assistant, a fixed place); then touch the entry."
        case (.backdated, _):
            return "`weathertag stamp --fresh FILE` stamps it with today's weather instead."
        case (.leftAlone, "empty"): return "Write something in it."
        case (.leftAlone, "too_large"): return "Raise inbox.max_bytes."
        case (.leftAlone, "read_only"): return "Give it its owner's write bit (chmod u+w)."
        case (.leftAlone, "no_read_permission"), (.leftAlone, "permission_denied"):
            return "Let the daemon's user read it (chmod u+r, or its group)."
        case (.leftAlone, "hard_links"): return "Keep one name for it (remove the other links)."
        case (.leftAlone, "not_regular_file"): return "Nothing: only regular files are stamped."
        case (.leftAlone, "content"):
            return "Fix its front matter as the reason says; it is looked at again when it changes."
        case (.leftAlone, "stopped_the_daemon"):
            return "Change it (even `touch` it) to have it stamped again; if the daemon stops again, please report "
                + "the file."
        case (.leftAlone, "unreadable_time"), (.leftAlone, "future"):
            return "Write its date as 2019-05-01, \"2019-05-01 10:00\" or 2019-05-01T10:00:00+02:00 (or remove it to "
                + "use the file's name or modification time)."
        case (.leftAlone, "over_limit"):
            return "Make its front matter smaller or flatter; it is looked at again when it changes."
        case (.leftAlone, "owner_would_lose_access"): return "See the reason: change its mode or the daemon's user."
        case (.leftAlone, _): return "It is looked at again when it changes."
        }
    }
}
