extension InboxStateMachine {
    /// The policy's knobs. The daemon's come from `InboxConfiguration`; the `stamp` command's stamp one file at a
    /// time and report failed writes instead of waiting them out.
    package struct Configuration: Sendable {
        /// Entries sent to the thread pool at once: one hop there and back for many files.
        package var batchSize = 32
        /// A queue at least this long (a start-up's listing, a diary moved in) goes in batches of this size: one
        /// transaction, one FTS5 segment and one fsync of each folder per 512 entries, where batches of 32 spent a
        /// third of a 50,000-entry rebuild on commits (and 256, with the WAL checkpointed at 4,000 pages, read and
        /// wrote a fifth more of the state database than 512: docs/PERFORMANCE.md). A short queue (the entries
        /// people drop) keeps `batchSize`, so that each is reported soon.
        package var longQueueBatchSize = 512
        /// Batches stamped at the same time: while one writes its transaction, two are read on the thread pool's two
        /// threads (one of them waits its turn to write without holding a thread: `InboxFiles.stamp`). With two, a
        /// 50,000-entry rebuild left a core idle for a quarter of its time (docs/PERFORMANCE.md).
        package var batchesInFlight = 3
        /// Entries the machine holds on their way (queued, settling, in a batch, answered by history) at most: past
        /// this, what arrives or a listing finds waits as a name alone (`Intake`) until some of them are done, so that
        /// a burst of any size, or the start-up listing of a large diary, costs a name's bytes and one more, not a
        /// held entry's 130. Entries parked for weather, history, an editor or their day do not count: nothing waits
        /// behind an outage or a diary's history (those are held as before, each read once). Well above the batches
        /// in flight (3 of 512), so that the queue stays long enough for full batches.
        package var intakeLimit = 4096
        /// Back-dated entries asked about at the same time; the rest wait their turn. History answers a place and
        /// year in one request, so more at once would only hold more tasks waiting for the same one.
        package var historyInFlight = 8
        /// How long a tag is reused instead of asking the weather service again.
        package var tagReuse: Duration = .seconds(1)
        /// An entry that changes while it is being stamped this many times in a row waits for its next change.
        package var maximumChangedAttempts = 5
        /// An entry written, or moved in, is stamped once no write has reached it for this long (autosaving
        /// editors save many times); zero stamps at once. Entries found by a listing are not held back.
        package var settle: Duration = .zero
        /// An entry an editor had open is looked at again no sooner than this after its lock file went (or it was
        /// saved), whatever `settle` says: nano rewrites its lock (unlink, then create) at the first keystroke after
        /// each save, and a look between the two would stamp under the editor.
        package var lockGrace: Duration = .seconds(1)
        /// The n-th retry of an entry that changed while being stamped waits this times 2ⁿ.
        package var changedRetryBase: Duration = .milliseconds(100)
        /// The inbox is polled this often besides its watcher (`inbox.poll_seconds`, or a remote filesystem), from
        /// the start (`.startPolling`); settled entries are remembered by version so that rescans skip them
        /// (otherwise memory does not grow with the number of entries the inbox holds). Nil: the watcher sees all.
        package var pollInterval: Duration?
        /// An entry dated a little ahead of now (today east of here) waits for its time; otherwise it is left alone
        /// with the reason (`weathertag stamp` does not wait a day).
        package var waitsForDatedEntries = true
        /// While current weather cannot be had, entries are read without it (`Batch.tag` nil): back-dated ones go
        /// on to history, and only those that need current weather wait for it. Off: every entry waits for it.
        package var sortsWithoutWeather = false
        /// Entries that need current weather wait for it; otherwise (`weathertag stamp`), when it cannot be had,
        /// they are reported with the reason and the rest goes on.
        package var waitsForWeather = true
        /// Wait out a failed write (disk full, read-only) and try again; otherwise report it and go on.
        package var retriesFailedWrites = true
        package var weatherBackoff = Backoff(base: .seconds(1), ceiling: .seconds(300))
        package var writeBackoff = Backoff(base: .seconds(1), ceiling: .seconds(300))
        /// With a diary index: names that arrived or that a listing found are handed to it (`.notice`) in one list,
        /// this long after the first of them, so that an entry that waits before it is read is listed. Only those
        /// that wait for something besides their turn then are: the rest are stamped (and indexed by their batch) by
        /// then, or soon. A burst gives one list, not a task per arrival. Nil: no index, no notices.
        package var noticeDelay: Duration? = nil
        /// With a store to look over: the first listing waits for `.checkIntegrity` to be answered
        /// (`integrityChecked()`), as a database found damaged is replaced and filled again by that listing; nothing
        /// is stamped meanwhile.
        package var checksIntegrity = false
        /// Once this many entries went through batches and nothing is held or in flight any more, the shell gives
        /// the memory the burst freed back to the system (`.giveBackMemory`); nil: never (`weathertag stamp` ends).
        package var givesBackMemoryAfter: Int? = 1000
        /// Once this many batches went through and nothing is held or in flight any more, the shell merges the
        /// diary index's text (`.mergeIndex`), which the batches' transactions leave unmerged: a batch's text is a
        /// segment, and 16 is where FTS5 merged a level in the commits before. Nil: never (`weathertag stamp`).
        package var mergesIndexAfter: Int? = 16

        package init() {}
    }

    /// Entries to stamp together with one tag.
    package struct Batch: Sendable, Equatable {
        package var names: [String]
        /// Nil while current weather cannot be had: what needs none goes on (a back-dated entry asks history, a
        /// remembered block is given back, a file is found stamped or left alone), the rest comes back
        /// `.needsWeather` and waits for it. History never waits on the present.
        package var tag: WeatherTag?
        /// The weather of a back-dated entry's time: stamped without asking whether it is back-dated.
        package var historical: Bool

        package init(names: [String], tag: WeatherTag?, historical: Bool = false) {
            self.names = names
            self.tag = tag
            self.historical = historical
        }

        /// How the batch's entries are asked whether they are back-dated: as `policy` says, except a batch with the
        /// weather of an entry's own time, which is for that entry and is not asked again.
        /// A current entry is also asked whether its own clock contradicts the place of the batch's tag
        /// (`BorrowedPlace`).
        package func backdating(_ policy: BackdatingPolicy) -> BackdatingPolicy? {
            guard !self.historical else { return nil }
            var policy = policy
            if let tag = self.tag { policy.currentPlace = (tag.place, tag.placeZone) }
            return policy
        }
    }

    /// What the shell must do.
    package enum Action: Sendable {
        /// List the inbox; entries whose version is in the map are unchanged and need no look.
        case list(skippingUnchanged: [String: FileVersion])
        /// Ask the weather service for the current tag; answer with `weatherArrived` or `weatherFailed`.
        case fetchWeather
        /// Ask for the weather of a back-dated entry's time; answer with `historyArrived` or `historyFailed`.
        case fetchHistory(String, HistoryRequest)
        /// Stamp these entries; answer with `batchFinished`.
        case stamp(Batch)
        /// Call `wokeUp()` at this time.
        case wakeUp(at: C.Instant)
        /// Hand these names (as they arrived: entries or not) to the diary index; nothing answers.
        case notice([String])
        /// Tell the diary index an entry's lane that no batch wrote: what the machine settled for it after its batch
        /// (history's answer for good, an entry dated ahead or changing under every stamp, left alone). Every view
        /// reads the index; without this it would still say what the batch said. Nothing answers.
        case index(String, LaneState)
        /// Look the store over (off the start-up path); answer with `integrityChecked()`.
        case checkIntegrity
        /// Rescan the inbox this often from now on (`.rescan` each time); the watcher no longer sees everything.
        case startPolling(every: Duration)
        /// A burst is over (`Configuration.givesBackMemoryAfter`): give what it freed back to the system. A heap
        /// keeps freed pages resident, and after a 30,000-entry burst 2.8 MiB of them stayed with an idle daemon.
        case giveBackMemory
        /// Batches went through and the inbox is idle (`Configuration.mergesIndexAfter`): merge the diary index's
        /// text, a step at a time. Nothing answers.
        case mergeIndex
        /// Count and log.
        case report(Report)
        /// Nothing is in flight after `stop()`: the shell may return.
        case finish
    }

    /// Something to count or to tell; the shell decides the words.
    package enum Report: Sendable {
        /// What came of one entry: its batch's result, or what the machine decided for it (left alone after
        /// changing under every stamp, no weather where nothing waits, a write that failed), and how to tell it.
        case entry(String, EntryResult, Telling)
        /// Entries wait for current weather; asked again in `retryIn`.
        case waitingForWeather(waiting: Int, retryIn: Duration, error: any Error)
        /// A back-dated entry waits for the weather of its time. Worth a log line the first time for this error.
        case waitingForHistory(String, retryIn: Duration, error: any Error, firstTime: Bool)
        case writingWorksAgain
    }

    /// How an entry's result is told.
    package struct Telling: Sendable {
        /// The weather it was stamped with (`.stamped`).
        package var tag: WeatherTag?
        /// The first time this is told for the entry (this reason, this lock, this date, this kind of failure):
        /// worth a log line; otherwise it is only counted.
        package var firstTime: Bool
        /// When the machine looks at it again (nil: when it changes, or never).
        package var retryIn: Duration?
        /// How many times in a row it changed under a stamp (`.changedWhileStamping`).
        package var attempt: Int

        package init(tag: WeatherTag? = nil, firstTime: Bool = true, retryIn: Duration? = nil, attempt: Int = 0) {
            (self.tag, self.firstTime, self.retryIn, self.attempt) = (tag, firstTime, retryIn, attempt)
        }
    }
}

/// What a batch did: results in order, then the entry whose write failed (if any) and those not tried after it.
package struct BatchOutcome: Sendable {
    package var results: [(String, EntryResult)]
    package var failure: (String, any Error)?
    /// The names not tried: after the failed write, or, without a failure, after the batch read its budget of bytes
    /// (`EntryBatch.textBudget`). Either way they wait in the queue again.
    package var unprocessed: [String]

    package init(results: [(String, EntryResult)] = [], failure: (String, any Error)? = nil, unprocessed: [String] = [])
    {
        self.results = results
        self.failure = failure
        self.unprocessed = unprocessed
    }
}
