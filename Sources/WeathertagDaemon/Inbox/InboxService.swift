import Foundation
import Glibc
import Logging
import NIOPosix
import ServiceLifecycle
import WeathertagCore

/// Stamps entries dropped into the inbox. The folder is the queue: an entry stays there untouched until it is
/// stamped, so a restart simply rescans. Entries wait while there is no weather, or while the disk refuses writes,
/// and are retried with backoff.
public final class InboxService: Service {
    private let configuration: InboxConfiguration
    private let maximumWeatherAge: Duration
    private let weather: WeatherService
    private let threadPool: NIOThreadPool
    private let statistics: DaemonStatistics
    private let progress: StampingProgress
    private let logger: Logger

    /// An entry that changes while it is being stamped this many times in a row waits for its next change event.
    static let maximumChangedAttempts = 5

    public init(
        configuration: InboxConfiguration,
        maximumWeatherAge: Duration,
        weather: WeatherService,
        threadPool: NIOThreadPool,
        statistics: DaemonStatistics,
        progress: StampingProgress = StampingProgress(),
        logger: Logger
    ) {
        self.configuration = configuration
        self.maximumWeatherAge = maximumWeatherAge
        self.weather = weather
        self.threadPool = threadPool
        self.statistics = statistics
        self.progress = progress
        self.logger = logger
    }

    private var inbox: String { self.configuration.path }

    public func run() async throws {
        // Watch first, then scan: nothing dropped in between is missed (duplicates are merged by the queue).
        let watcher = try InboxWatcher(path: self.inbox, logger: self.logger)
        let (events, continuation) = AsyncStream.makeStream(of: InboxEvent.self)
        let arrivals = Arrivals()
        continuation.yield(.rescan)
        let pollInterval = self.pollInterval()
        self.logger.info(
            "watching the inbox",
            metadata: ["inbox": "\(self.inbox)", "poll_seconds": "\(pollInterval.map { "\($0.seconds)" } ?? "off")"]
        )

        await withDiscardingTaskGroup { group in
            group.addTask {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    let thread = Thread {
                        watcher.run(into: arrivals) { continuation.yield($0) }
                        done.resume()
                    }
                    thread.name = "weathertag-inotify"
                    thread.start()
                }
            }
            if let pollInterval {
                group.addTask {
                    while (try? await Task.sleep(for: pollInterval)) != nil {
                        continuation.yield(.rescan)
                    }
                }
            }
            var state = State(arrivals: arrivals)
            state.remembersSettled = pollInterval != nil
            for await event in events.cancelOnGracefulShutdown() {
                switch event {
                case .arrived:
                    state.enqueue(arrivals.takeAll())
                case .rescan:
                    let (candidates, present) = await self.scan(settled: state.settled)
                    state.queue.insert(contentsOf: candidates)
                    self.logger.debug("rescanned the inbox", metadata: ["to_look_at": "\(candidates.count)"])
                    // Forget entries that left the inbox.
                    if let present, state.remembersSettled {
                        state.settled = state.settled.filter { present.contains($0.key) }
                    }
                case .retry:
                    state.retryScheduled = false
                }
                let waiting = state.queue.count
                self.statistics.update { $0.entriesWaiting = waiting }
                guard !state.retryScheduled, let delay = await self.drain(&state) else { continue }
                state.retryScheduled = true
                group.addTask {
                    try? await Task.sleep(for: delay)
                    continuation.yield(.retry)
                }
            }
            watcher.stop()
            continuation.finish()
            group.cancelAll()
        }
        self.logger.info("stopped watching the inbox")
    }

    /// The configured interval, else every 30 s on filesystems whose changes inotify may not see; nil for none.
    private func pollInterval() -> Duration? {
        if let interval = self.configuration.pollInterval { return interval == .zero ? nil : interval }
        return Filesystem.isRemote(self.inbox) ? .seconds(30) : nil
    }

    private struct State {
        /// Names the watcher reported since the loop last looked.
        let arrivals: Arrivals
        var queue = EntryQueue()
        var retryScheduled = false
        var weatherBackoff = Backoff(base: .seconds(1), ceiling: .seconds(300))
        /// Writing failed (disk full, read-only filesystem): waits grow like the weather's.
        var writeBackoff = Backoff(base: .seconds(1), ceiling: .seconds(300))
        var writeError: String?
        /// Entries that need nothing until they change (stamped, already stamped, left alone), by version: periodic
        /// rescans skip them after one `lstat`. Kept only when polling, where rescans are frequent: without it the
        /// daemon's memory does not grow with the number of entries the inbox holds.
        var settled: [String: FileVersion] = [:]
        var remembersSettled = false

        mutating func settle(_ name: String, _ version: FileVersion?) {
            if self.remembersSettled { self.settled[name] = version }
        }

        /// Queues names that were written or moved in; their settled versions no longer hold.
        mutating func enqueue(_ names: [String]) {
            for name in names { self.settle(name, nil) }
            self.queue.insert(contentsOf: names)
        }
        /// Entries left alone and the reason logged, so that rescans stay quiet.
        var reported: [String: String] = [:]
        /// How often each entry changed under us in a row.
        var changedAttempts: [String: Int] = [:]
        /// The tag stamped with last, reused for a second: entries arriving together share it.
        var recentTag: (tag: WeatherTag, at: ContinuousClock.Instant)?
        var hasRecentTag: Bool {
            self.recentTag.map { ContinuousClock.now - $0.at < InboxService.tagReuse } ?? false
        }
    }

    /// Stamps every queued entry, and those that arrive meanwhile. Returns when to try again if some must wait.
    private func drain(_ state: inout State) async -> Duration? {
        guard !state.queue.isEmpty else {
            self.statistics.update { $0.entriesWaiting = 0 }
            return nil
        }
        var tag: WeatherTag
        switch await self.stampingTag(&state) {
        case .success(let current): tag = current
        case .failure(let wait): return wait.delay
        }
        let maximumBytes = self.configuration.maximumBytes
        let inbox = self.inbox
        let threadPool = self.threadPool
        let progress = self.progress
        var retryIn: Duration?
        // Two batches in flight: one is parsed and written while the other waits for its fsyncs, and the
        // filesystem can commit the two together. Names in flight are out of the queue, so no entry is in two.
        await withTaskGroup(of: (names: [String], tag: WeatherTag, outcome: Batch?).self) { group in
            var inFlight = 0
            var entriesInFlight = 0
            var stopping = false
            while true {
                // Entries that arrived meanwhile join the queue, so a burst keeps the batches full.
                state.enqueue(state.arrivals.takeAll())
                while !stopping, retryIn == nil, inFlight < Self.batchesInFlight, !state.queue.isEmpty {
                    // Stopping (SIGTERM, a reload): batches in hand are finished; the rest wait in the inbox.
                    if Task.isCancelled || Task.isShuttingDownGracefully {
                        stopping = true
                        break
                    }
                    // A long burst does not stamp its last entries with the weather of its first.
                    if !state.hasRecentTag {
                        switch await self.stampingTag(&state) {
                        case .success(let current): tag = current
                        case .failure(let wait):
                            retryIn = wait.delay
                            continue
                        }
                    }
                    // Entries go to the thread pool in batches: one hop there and back for many files.
                    var batch: [String] = []
                    while batch.count < Self.batchSize, let name = state.queue.popFirst() { batch.append(name) }
                    let (names, batchTag, lines) = (batch, tag, tag.stampLines)
                    group.addTask {
                        // A pool that is stopping refuses the batch: its entries are untouched and wait.
                        let outcome = try? await threadPool.runIfActive {
                            progress.begin()
                            defer { progress.end() }
                            return Self.stamp(
                                names, in: inbox, lines: lines, maximumSize: maximumBytes, progress: progress)
                        }
                        return (names, batchTag, outcome)
                    }
                    inFlight += 1
                    entriesInFlight += names.count
                }
                guard let (names, batchTag, outcome) = await group.next() else { break }
                inFlight -= 1
                entriesInFlight -= names.count
                guard let outcome else {
                    state.queue.insert(contentsOf: names)
                    stopping = true
                    continue
                }
                for (name, result) in outcome.results {
                    if let delay = self.handle(name, result, tag: batchTag, &state) {
                        retryIn = min(retryIn ?? delay, delay)
                    }
                }
                if let (name, error) = outcome.failure {
                    // The disk is full, the folder read-only: the entries are untouched; wait and retry.
                    state.queue.insert(name)
                    state.queue.insert(contentsOf: outcome.unprocessed)
                    let delay = state.writeBackoff.next()
                    let message = "\(error)"
                    if state.writeError != message {
                        state.writeError = message
                        self.statistics.recordError(message)
                        self.logger.error(
                            "cannot stamp entries, they wait untouched",
                            metadata: ["entry": "\(name)", "error": "\(message)", "retry_in": "\(delay)"]
                        )
                    }
                    retryIn = delay
                } else if state.writeError != nil, !outcome.results.isEmpty {
                    state.writeError = nil
                    state.writeBackoff.reset()
                    self.logger.notice("stamping works again")
                }
                let waiting = state.queue.count + entriesInFlight
                self.statistics.update { $0.entriesWaiting = waiting }
            }
        }
        let waiting = state.queue.count
        self.statistics.update { $0.entriesWaiting = waiting }
        return retryIn
    }

    /// When entries must wait for weather, and until when.
    private struct WaitForWeather: Error {
        var delay: Duration
    }

    /// The tag to stamp with: the one before for up to a second (entries arriving together share it), else the
    /// weather service's.
    private func stampingTag(_ state: inout State) async -> Result<WeatherTag, WaitForWeather> {
        if state.hasRecentTag, let recent = state.recentTag { return .success(recent.tag) }
        do {
            let tag = try await self.weather.currentTag(maximumAge: self.maximumWeatherAge)
            state.recentTag = (tag, ContinuousClock.now)
            state.weatherBackoff.reset()
            return .success(tag)
        } catch {
            let waiting = state.queue.count
            self.statistics.update { $0.entriesWaiting = waiting }
            // OpenWeather's own backoff decides when the next call may go out: try again right then. Without one
            // (no position, say) back off here.
            var delay = state.weatherBackoff.next()
            if let next = await self.weather.snapshot.nextAttemptAt {
                delay = .milliseconds(max(50, Int64(next.timeIntervalSinceNow * 1000) + 10))
            }
            self.logger.warning(
                "entries wait for weather",
                metadata: ["waiting": "\(waiting)", "retry_in": "\(delay)", "reason": "\(error)"]
            )
            return .failure(WaitForWeather(delay: delay))
        }
    }

    /// How long a drain reuses the tag of the one before instead of asking the weather service again.
    static let tagReuse: Duration = .seconds(1)

    /// Entries sent to the thread pool at once.
    static let batchSize = 32

    /// Batches stamped at the same time.
    static let batchesInFlight = 2

    /// What a batch did: results in order, then the entry whose write failed (if any) and those not tried after it.
    private struct Batch: Sendable {
        var results: [(String, EntryResult)] = []
        var failure: (String, any Error)?
        var unprocessed: [String] = []
    }

    /// Stamps a batch on the calling (pool) thread, stopping at the first failed write.
    private static func stamp(
        _ names: [String],
        in inbox: String,
        lines: [String],
        maximumSize: Int,
        progress: StampingProgress
    ) -> Batch {
        var batch = Batch()
        // One descriptor of the inbox for every fsync of the batch; without it each entry opens its own.
        let directory = open(inbox, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if directory >= 0 { close(directory) } }
        for (index, name) in names.enumerated() {
            do {
                batch.results.append(
                    (
                        name,
                        try EntryFile.stamp(
                            path: inbox + "/" + name, lines: lines, maximumSize: maximumSize,
                            directoryFD: directory >= 0 ? directory : nil)
                    ))
                progress.advance()
            } catch {
                batch.failure = (name, error)
                batch.unprocessed = Array(names[(index + 1)...])
                break
            }
        }
        return batch
    }

    /// Records one entry's result; returns when to try again, if it must be retried.
    private func handle(_ name: String, _ result: EntryResult, tag: WeatherTag, _ state: inout State) -> Duration? {
        if result != .changedWhileStamping { state.changedAttempts[name] = nil }
        switch result {
        case .stamped(let version):
            state.settle(name, version)
            state.reported[name] = nil
            self.statistics.update { $0.entriesStamped += 1 }
            self.logger.info(
                "stamped",
                metadata: [
                    "entry": "\(name)", "weather": "\(tag.weather.description)", "source": "\(tag.position.source)",
                    "stale": "\(tag.stale)",
                ]
            )
        case .alreadyStamped(let version):
            state.settle(name, version)
            self.statistics.update { $0.entriesAlreadyStamped += 1 }
        case .skipped(let reason, let version):
            state.settle(name, version)
            self.report(name, reason, &state)
        case .inUse:
            // Its writer's IN_CLOSE_WRITE brings it back.
            self.logger.debug("entry is open for writing, waiting for it to be closed", metadata: ["entry": "\(name)"])
        case .changedWhileStamping:
            let attempts = state.changedAttempts[name, default: 0] + 1
            state.changedAttempts[name] = attempts
            guard attempts <= Self.maximumChangedAttempts else {
                self.report(name, "it keeps changing while being stamped; waiting for its next change", &state)
                return nil
            }
            self.logger.info("entry changed while being stamped, will retry", metadata: ["entry": "\(name)"])
            state.queue.insert(name)
            return .milliseconds(100 << attempts)
        case .vanished:
            state.reported[name] = nil
            state.settle(name, nil)
        }
        return nil
    }

    private func report(_ name: String, _ reason: String, _ state: inout State) {
        self.statistics.update { $0.entriesSkipped += 1 }
        guard state.reported[name] != reason else { return }
        state.reported[name] = reason
        self.logger.notice("entry left as it is", metadata: ["entry": "\(name)", "reason": "\(reason)"])
    }

    /// The candidate names in the inbox that may need work, sorted, and every name present (nil when the folder
    /// cannot be listed or nothing is remembered as settled); removes temp files a crash left behind.
    private func scan(settled: [String: FileVersion]) async -> (candidates: [String], present: Set<String>?) {
        let inbox = self.inbox
        do {
            let (names, removed) = try await self.threadPool.runIfActive {
                let names = try FileManager.default.contentsOfDirectory(atPath: inbox)
                let removed = FileIO.removeStaleTemporaries(in: inbox, names: names)
                let candidates = names.filter(InboxFilter.isCandidate).filter { name in
                    guard let known = settled[name] else { return true }
                    return FileVersion.current(inbox + "/" + name) != known
                }
                return ((candidates.sorted(), settled.isEmpty ? nil : Set(names)), removed)
            }
            self.statistics.update { $0.lastScanAt = Date() }
            if !removed.isEmpty {
                self.logger.notice(
                    "removed temp files left by an interrupted stamp",
                    metadata: ["count": "\(removed.count)", "inbox": "\(inbox)"]
                )
            }
            return names
        } catch {
            self.logger.error("cannot list the inbox", metadata: ["inbox": "\(inbox)", "error": "\(error)"])
            return ([], nil)
        }
    }
}
