import FoundationEssentials
import Logging
import ServiceLifecycle
import Synchronization
import WeathertagCore

/// Stamps entries dropped into the inbox. The folder is the queue: an entry stays there untouched until it is
/// stamped, so a restart simply rescans.
///
/// A shell around `InboxStateMachine`, which decides everything (what to stamp, with which weather, when to
/// retry); this type only performs its actions: the watcher, listings, weather requests, batches on the thread
/// pool, timers, counters and log lines. Every action that takes time runs as a child task and comes back as an
/// event, so the loop never waits on the disk or the network.
package final class InboxService: Service {
    typealias Machine = InboxStateMachine<ContinuousClock>
    /// What the diary index's readers are told: the page machine's inputs.
    package typealias DiaryListener = @Sendable (PageRefreshMachine<ContinuousClock>.Input) -> Void

    /// The listings, batches, notices and look-overs, on the thread pool.
    let files: InboxFiles
    let weather: WeatherService
    /// The weather of back-dated entries' time (nil: `history.enabled` is off, and they are left alone).
    let history: HistoryService?
    /// `stamp.max_age_seconds`: how old cached weather may be when OpenWeather fails.
    let maximumAge: Duration
    let statistics: DaemonStatistics
    let logger: Logger
    /// Told when a batch of stamps starts and ends and when the diary index changes: the timeline page's service
    /// (`timeline.output`), which writes the page once they settle.
    let diaryListener: DiaryListener?
    /// The running loop's events, for questions from outside (`waitingReasons`); nil when it is not running.
    private let running = Mutex<AsyncStream<Event>.Continuation?>(nil)

    init(
        files: InboxFiles, weather: WeatherService, history: HistoryService?, maximumAge: Duration,
        statistics: DaemonStatistics, logger: Logger, diaryListener: DiaryListener? = nil
    ) {
        (self.files, self.weather, self.history, self.maximumAge) = (files, weather, history, maximumAge)
        (self.statistics, self.logger, self.diaryListener) = (statistics, logger, diaryListener)
    }

    var inbox: String { self.files.inbox }

    /// Why each of `names` that the inbox holds is not stamped yet, as the running machine knows it; empty when the
    /// inbox is not running.
    package func waitingReasons(_ names: [String]) async -> [String: LaneState] {
        guard !names.isEmpty, let loop = self.running.withLock({ $0 }) else { return [:] }
        return await withCheckedContinuation { answer in
            if case .terminated = loop.yield(.inspect(names, answer)) { answer.resume(returning: [:]) }
        }
    }

    package func run() async throws {
        // An entry an earlier run died stamping is set aside before anything is listed.
        await self.files.recoverFromCrash()
        // Watch first, then list (the machine's `start`): nothing dropped in between is missed.
        let watcher = try self.files.watcher(logger: self.logger)
        let arrivals = Arrivals()
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        self.running.withLock { $0 = continuation }
        let machine = self.files.machine()
        let pollInterval = machine.configuration.pollInterval
        self.logger.info(
            "watching the inbox",
            metadata: ["inbox": "\(self.inbox)", "poll_seconds": "\(pollInterval.map { "\($0.seconds)" } ?? "off")"]
        )

        do {
            try await self.runLoop(machine, watcher: watcher, arrivals: arrivals, events: events, continuation)
        } catch {
            await self.closeLoop(events, continuation)
            throw error
        }
        await self.closeLoop(events, continuation)
        self.logger.info("stopped watching the inbox")
    }

    /// Questions asked after the loop ended are answered with nothing.
    private func closeLoop(_ events: AsyncStream<Event>, _ continuation: AsyncStream<Event>.Continuation) async {
        self.running.withLock { $0 = nil }
        continuation.finish()
        for await case .inspect(_, let answer) in events { answer.resume(returning: [:]) }
    }

    /// The machine's loop: events in, actions out, until a graceful shutdown finishes it.
    private func runLoop(
        _ machine: Machine, watcher: InboxWatcher, arrivals: Arrivals, events: AsyncStream<Event>,
        _ continuation: AsyncStream<Event>.Continuation
    ) async throws {
        var machine = machine
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                do {
                    try await self.files.watch(watcher, into: arrivals) { continuation.yield(.watcher($0)) }
                } catch {
                    continuation.yield(.watcherFailed(error))
                }
            }
            defer {
                watcher.stop()
                group.cancelAll()
            }
            try await withGracefulShutdownHandler {
                var actions = machine.receive(.start)
                var iterator = events.makeAsyncIterator()
                while true {
                    for action in actions {
                        if case .finish = action { return }
                        self.perform(action, in: &group, continuation)
                    }
                    guard let event = await iterator.next() else { return }
                    actions = try self.handle(event, &machine, arrivals: arrivals)
                    self.statistics.inboxWaiting(machine.waiting, forHistory: machine.waitingForHistory)
                }
            } onGracefulShutdown: {
                continuation.yield(.input(.stop))
            }
        }
    }
}
