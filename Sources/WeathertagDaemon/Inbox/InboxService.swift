import Foundation
import Logging
import NIOPosix
import ServiceLifecycle
import WeathertagCore

/// Stamps entries dropped into the inbox. The folder is the queue: an entry stays there untouched until it is
/// stamped, so a restart simply rescans.
///
/// A shell around `InboxStateMachine`, which decides everything (what to stamp, with which weather, when to
/// retry); this type only performs its actions: the watcher, listings, weather requests, batches on the thread
/// pool, timers, counters and log lines. Every action that takes time runs as a child task and comes back as an
/// event, so the loop never waits on the disk or the network.
public final class InboxService: Service {
    typealias Machine = InboxStateMachine<ContinuousClock>

    let configuration: InboxConfiguration
    let maximumWeatherAge: Duration
    let weather: WeatherService
    let threadPool: NIOThreadPool
    let statistics: DaemonStatistics
    let progress: StampingProgress
    let logger: Logger

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

    var inbox: String { self.configuration.path }

    /// What comes back to the loop.
    private enum Event: Sendable {
        case watcher(InboxEvent)
        case watcherFailed(any Error)
        case listed(candidates: [String], present: Set<String>?)
        case weather(Result<WeatherTag, any Error>, retryAfter: Duration?)
        case batchFinished(Machine.Batch, BatchOutcome?)
        case wokeUp
        case stop
    }

    public func run() async throws {
        // Watch first, then list (the machine's `start`): nothing dropped in between is missed.
        let watcher = try InboxWatcher(path: self.inbox, logger: self.logger)
        let arrivals = Arrivals()
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let pollInterval = self.pollInterval()
        var policy = Machine.Configuration()
        policy.remembersSettled = pollInterval != nil
        var machine = Machine(configuration: policy, clock: ContinuousClock())
        self.logger.info(
            "watching the inbox",
            metadata: ["inbox": "\(self.inbox)", "poll_seconds": "\(pollInterval.map { "\($0.seconds)" } ?? "off")"]
        )

        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                do {
                    try await Self.onThread("weathertag-inotify") {
                        try watcher.run(into: arrivals) { continuation.yield(.watcher($0)) }
                    }
                } catch {
                    continuation.yield(.watcherFailed(error))
                }
            }
            if let pollInterval {
                group.addTask {
                    while (try? await Task.sleep(for: pollInterval)) != nil { continuation.yield(.watcher(.rescan)) }
                }
            }
            defer {
                watcher.stop()
                group.cancelAll()
            }
            try await withGracefulShutdownHandler {
                var actions = machine.start()
                var iterator = events.makeAsyncIterator()
                while true {
                    for action in actions {
                        if case .finish = action { return }
                        self.perform(action, in: &group, continuation)
                    }
                    guard let event = await iterator.next() else { return }
                    switch event {
                    case .watcher(.arrived): actions = machine.namesArrived(arrivals.takeAll())
                    case .watcher(.rescan): actions = machine.rescanRequested()
                    case .watcherFailed(let error):
                        self.logger.critical("the inbox can no longer be watched", metadata: ["error": "\(error)"])
                        throw error
                    case .listed(let candidates, let present):
                        actions = machine.listed(candidates: candidates, present: present)
                    case .weather(.success(let tag), _): actions = machine.weatherArrived(tag)
                    case .weather(.failure(let error), let retryAfter):
                        actions = machine.weatherFailed(error, retryAfter: retryAfter)
                    case .batchFinished(let batch, let outcome):
                        // Entries that arrived meanwhile join the queue first, so a burst keeps the batches full.
                        actions = machine.namesArrived(arrivals.takeAll()) + machine.batchFinished(batch, outcome)
                    case .wokeUp: actions = machine.wokeUp()
                    case .stop: actions = machine.stop()
                    }
                    let waiting = machine.waiting
                    self.statistics.update { $0.entriesWaiting = waiting }
                }
            } onGracefulShutdown: {
                continuation.yield(.stop)
            }
        }
        self.logger.info("stopped watching the inbox")
    }

    /// Starts one action; what takes time runs as a child task and answers with an event.
    private func perform(
        _ action: Machine.Action,
        in group: inout ThrowingDiscardingTaskGroup<any Error>,
        _ events: AsyncStream<Event>.Continuation
    ) {
        switch action {
        case .list(let unchanged):
            group.addTask {
                let (candidates, present) = await self.list(skipping: unchanged)
                events.yield(.listed(candidates: candidates, present: present))
            }
        case .fetchWeather:
            group.addTask {
                do {
                    let tag = try await self.weather.currentTag(maximumAge: self.maximumWeatherAge)
                    events.yield(.weather(.success(tag), retryAfter: nil))
                } catch {
                    // OpenWeather's own backoff decides when the next call may go out: try again right then.
                    let next = await self.weather.snapshot.nextAttemptAt
                    let retryAfter = next.map {
                        Duration.milliseconds(max(50, Int64($0.timeIntervalSinceNow * 1000) + 10))
                    }
                    events.yield(.weather(.failure(error), retryAfter: retryAfter))
                }
            }
        case .stamp(let batch):
            let (inbox, lines, maximumSize, progress) =
                (self.inbox, batch.tag.stampLines, self.configuration.maximumBytes, self.progress)
            group.addTask {
                // A pool that is stopping refuses the batch: its entries are untouched and wait.
                let outcome = try? await self.threadPool.runIfActive {
                    progress.begin()
                    defer { progress.end() }
                    return EntryBatch.stamp(
                        batch.names, in: inbox, lines: lines, maximumSize: maximumSize, progress: progress)
                }
                events.yield(.batchFinished(batch, outcome))
            }
        case .wakeUp(let deadline):
            group.addTask {
                guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
                events.yield(.wokeUp)
            }
        case .report(let report):
            self.record(report)
        case .finish:
            break
        }
    }

    /// The configured interval, else every 30 s on filesystems whose changes inotify may not see; nil for none.
    private func pollInterval() -> Duration? {
        if let interval = self.configuration.pollInterval { return interval == .zero ? nil : interval }
        return Filesystem.isRemote(self.inbox) ? .seconds(30) : nil
    }

    /// Runs blocking work on a thread of its own (inotify's reads block) until it returns.
    private static func onThread(_ name: String, _ body: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            let thread = Thread { done.resume(with: Result { try body() }) }
            thread.name = name
            thread.start()
        }
    }
}
