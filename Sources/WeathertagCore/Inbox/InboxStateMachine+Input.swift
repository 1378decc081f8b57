extension InboxStateMachine {
    /// Everything that happens to the inbox, as the shell hands it in: one entry point (`receive`), as swift-nio's
    /// state machines take their events.
    package enum Input: Sendable {
        /// The service starts: the first listing (after the store's look-over, with `checksIntegrity`).
        case start
        /// Names were written and closed, moved in, or their editor's lock went.
        case arrived([String])
        /// Look at everything (a poll, a queue overflow, the folder back).
        case rescan
        /// Some folders could not be watched.
        case watchesExhausted
        case listed(candidates: [String], present: Set<String>?)
        case weatherArrived(WeatherTag)
        /// `retryAfter`: the weather service's own backoff, when it has one.
        case weatherFailed(any Error, retryAfter: Duration?)
        case historyArrived(String, WeatherTag)
        case historyFailed(String, HistoryFailure)
        /// A batch came back (nil: the thread pool refused it), and the names that arrived meanwhile: they join the
        /// queue first, so that a burst keeps the batches full.
        case batchFinished(Batch, BatchOutcome?, arrivedMeanwhile: [String])
        case wokeUp
        case integrityChecked
        case stop
    }
}

extension InboxStateMachine.Configuration {
    /// The daemon's inbox: `inbox`'s settle time; polled every `pollInterval` if not nil; with a store, its
    /// look-over first and arrivals handed to its diary index a second later.
    package init(inbox: InboxConfiguration, pollInterval: Duration?, hasStore: Bool) {
        self.init()
        self.settle = inbox.settle
        self.pollInterval = pollInterval
        self.noticeDelay = hasStore ? .seconds(1) : nil
        self.checksIntegrity = hasStore
        self.sortsWithoutWeather = true
    }
}
