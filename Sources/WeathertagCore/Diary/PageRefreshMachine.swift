/// When the daemon writes its timeline page again (`timeline.output`), so that a bookmarked `file://` page is always
/// today's diary: once the diary's changes (stamps, edits, new and removed entries) have settled for `settle`, at
/// most once per `interval` (a minute), and never while a batch of stamps is being written (the page would show half
/// of it, and its write would compete with theirs for the disk). A write that fails is tried again after the
/// interval; the daemon goes on.
///
/// Pure, as the inbox's machine is: every event goes through `receive`, which returns what to do; the daemon's
/// `TimelinePageService` only performs it. The clock is injected.
package struct PageRefreshMachine<C: Clock>: Sendable where C.Duration == Duration, C: Sendable {
    package enum Input: Sendable {
        /// The diary index changed (a batch of stamps came back, names were noticed, an edit was read).
        case changed
        /// A batch of stamps starts being written.
        case batchStarted
        /// That batch is written (whatever came of each entry).
        case batchFinished
        /// A wake-up it asked for came.
        case wokeUp
        /// The page is written.
        case written
        /// The page could not be written.
        case failed
    }

    package enum Action: Sendable, Equatable {
        /// Write the page from the index now; answer `written` or `failed`.
        case write
        /// Send `wokeUp` at this instant.
        case wakeUp(at: C.Instant)
    }

    /// The page against the diary.
    enum Page: Sendable, Equatable {
        /// It shows the diary as the index has it.
        case current
        /// The diary changed, last at this instant.
        case stale(since: C.Instant)
        /// Being written; the diary changed again meanwhile at this instant, or not.
        case writing(changedAgain: C.Instant?)
    }

    let clock: C
    let settle: Duration
    let interval: Duration
    private(set) var page: Page
    /// When the last write started: the next starts at least `interval` later.
    private var lastWrite: C.Instant?
    /// The batches being written now.
    private var batches = 0
    /// The wake-up asked for and not yet come: one at a time.
    private var wakeUpAt: C.Instant?

    /// A machine whose page is stale from the start: the daemon writes it once the first listing has settled.
    package init(clock: C, settle: Duration = .seconds(2), interval: Duration = .seconds(60)) {
        self.clock = clock
        self.settle = settle
        self.interval = interval
        self.page = .stale(since: clock.now)
    }

    package mutating func receive(_ input: Input) -> [Action] {
        let now = self.clock.now
        switch input {
        case .changed:
            if case .writing = self.page {
                self.page = .writing(changedAgain: now)
            } else {
                self.page = .stale(since: now)
            }
        case .batchStarted:
            self.batches += 1
        case .batchFinished:
            self.batches = max(0, self.batches - 1)
        case .wokeUp:
            if let at = self.wakeUpAt, at <= now { self.wakeUpAt = nil }
        case .written:
            if case .writing(let again) = self.page { self.page = again.map { .stale(since: $0) } ?? .current }
        case .failed:
            // Tried again an interval after this attempt started, or sooner after a change.
            if case .writing(let again) = self.page { self.page = .stale(since: again ?? now) }
        }
        return self.next(now)
    }

    /// Whether the page waits to be written (for `status`).
    package var isStale: Bool {
        if case .current = self.page { return false }
        return true
    }

    /// When a stale page is due: its changes settled, an interval after the last write.
    private func due(_ since: C.Instant) -> C.Instant {
        let settled = since.advanced(by: self.settle)
        guard let last = self.lastWrite?.advanced(by: self.interval) else { return settled }
        return max(settled, last)
    }

    private mutating func next(_ now: C.Instant) -> [Action] {
        // A batch being written holds the page back; its `batchFinished` looks again.
        guard case .stale(let since) = self.page, self.batches == 0 else { return [] }
        let due = self.due(since)
        if due <= now {
            self.page = .writing(changedAgain: nil)
            self.lastWrite = now
            return [.write]
        }
        // An earlier wake-up is enough: when it comes, the page's due time is looked at again.
        if let pending = self.wakeUpAt, pending <= due { return [] }
        self.wakeUpAt = due
        return [.wakeUp(at: due)]
    }
}
