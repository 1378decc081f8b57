import FoundationEssentials
import Logging
import WeathertagCore

/// Counts and logs what the inbox's policy reports: the words are chosen here, at the edge.
struct InboxReporter: Sendable {
    let statistics: DaemonStatistics
    let logger: Logger

    func record(_ report: InboxStateMachine<ContinuousClock>.Report) {
        switch report {
        case .entry(let name, let result, let telling):
            self.record(name, result, telling)
        case .waitingForWeather(let waiting, let retryIn, let error):
            self.logger.warning(
                "entries wait for weather",
                metadata: ["waiting": "\(waiting)", "retry_in": "\(retryIn)", "reason": "\(error)"]
            )
        case .waitingForHistory(let name, let retryIn, let error, let firstTime):
            guard firstTime else { return }
            self.logger.warning(
                "back-dated entry waits for the weather of its time",
                metadata: ["entry": "\(name)", "retry_in": "\(retryIn)", "reason": "\(error)"])
        case .writingWorksAgain:
            self.logger.notice("stamping works again")
        }
    }

    /// One entry's result: logged the first time it is told, then counted. In that order, so that whoever sees a
    /// count in `/v1/status` finds the result's line in the log already (tests poll the count, then read the log).
    private func record(
        _ name: String, _ result: EntryResult, _ telling: InboxStateMachine<ContinuousClock>.Telling
    ) {
        switch result {
        case .stamped:
            guard let tag = telling.tag else { return }
            self.logger.info(
                tag.kind == .historical ? "stamped with the weather of its time" : "stamped",
                metadata: [
                    "entry": "\(name)", "weather": "\(tag.weather.description)", "source": "\(tag.position.source)",
                    "stale": "\(tag.stale)",
                ]
            )
            self.statistics.update { $0.entriesStamped += 1 }
        case .restored:
            self.logger.info("restored its weather block", metadata: ["entry": "\(name)"])
            self.statistics.update { $0.entriesRestored += 1 }
        case .alreadyStamped:
            self.statistics.update { $0.entriesAlreadyStamped += 1 }
        case .leftAlone(let reason, _):
            if telling.firstTime {
                self.logger.notice("entry left as it is", metadata: ["entry": "\(name)", "reason": "\(reason)"])
            }
            if case .backdated = reason {
                self.statistics.update { $0.entriesBackdated += 1 }
            } else {
                self.statistics.update { $0.entriesSkipped += 1 }
            }
        case .locked(let lock):
            guard telling.firstTime else { return }
            self.logger.info(
                "entry waits for its editor to close it", metadata: ["entry": "\(name)", "lock": "\(lock.file)"])
        case .inUse:
            self.logger.debug("entry is open for writing, waiting for it to be closed", metadata: ["entry": "\(name)"])
        case .changedWhileStamping:
            self.logger.info(
                "entry changed while being stamped, will retry",
                metadata: [
                    "entry": "\(name)", "attempt": "\(telling.attempt)",
                    "retry_in": "\(telling.retryIn.map { "\($0)" } ?? "")",
                ]
            )
        case .datedAhead(let time, _):
            guard telling.firstTime else { return }
            self.logger.notice(
                "entry is dated ahead of now, waiting for its time",
                metadata: [
                    "entry": "\(name)", "dated": "\(time)", "retry_in": "\(telling.retryIn.map { "\($0)" } ?? "")",
                ])
        case .failed(let error):
            guard telling.firstTime else { return }
            self.logger.error(
                "cannot stamp entries, they wait untouched",
                metadata: [
                    "entry": "\(name)", "error": "\(error)",
                    "retry_in": "\(telling.retryIn.map { "\($0)" } ?? "never")",
                ]
            )
            self.statistics.recordError("\(error)")
        case .vanished, .noWeather, .wantsHistory, .needsWeather:
            break
        }
    }

    /// A listing's words: temp files an interrupted stamp or import left, removed; how much there is to look at.
    func listed(_ listing: InboxListing.Result, inbox: String) {
        self.statistics.update { $0.lastScanAt = Date() }
        if !listing.removed.isEmpty {
            self.logger.notice(
                "removed temp files left by an interrupted stamp or import",
                metadata: ["count": "\(listing.removed.count)", "inbox": "\(inbox)"])
        }
        self.logger.debug("rescanned the inbox", metadata: ["to_look_at": "\(listing.candidates.count)"])
    }
}
