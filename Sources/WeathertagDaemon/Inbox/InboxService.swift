import Foundation
import Logging
import NIOPosix
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
public final class InboxService: Service {
    typealias Machine = InboxStateMachine<ContinuousClock>

    let configuration: InboxConfiguration
    let stamp: StampConfiguration
    let weather: WeatherService
    let threadPool: NIOThreadPool
    let statistics: DaemonStatistics
    let progress: StampingProgress
    /// What is remembered of each entry's block (nil: nothing is, as with `state.enabled` false).
    let memory: (any EntryStore)?
    /// The weather of back-dated entries' time (nil: `history.enabled` is off, and they are left alone).
    let history: HistoryService?
    let logger: Logger
    /// The running loop's events, for questions from outside (`waitingReasons`); nil when it is not running.
    private let running = Mutex<AsyncStream<Event>.Continuation?>(nil)
    /// Names arrived and not yet looked up in the diary index (`notice`).
    private let unnoticed = Mutex<[String]>([])

    public init(
        configuration: InboxConfiguration,
        stamp: StampConfiguration,
        weather: WeatherService,
        threadPool: NIOThreadPool,
        statistics: DaemonStatistics,
        progress: StampingProgress = StampingProgress(),
        memory: (any EntryStore)? = nil,
        history: HistoryService? = nil,
        logger: Logger
    ) {
        self.configuration = configuration
        self.stamp = stamp
        self.weather = weather
        self.threadPool = threadPool
        self.statistics = statistics
        self.progress = progress
        self.memory = memory
        self.history = history
        self.logger = logger
    }

    var inbox: String { self.configuration.path }

    /// What comes back to the loop.
    enum Event: Sendable {
        case watcher(InboxEvent)
        case watcherFailed(any Error)
        case listed(candidates: [String], present: Set<String>?)
        case weather(Result<WeatherTag, any Error>, retryAfter: Duration?)
        case history(String, HistoryService.Answer)
        case batchFinished(Machine.Batch, BatchOutcome?)
        case wokeUp
        case stop
        /// Why these entries wait, from the machine (for the socket's answers about entries).
        case inspect([String], CheckedContinuation<[String: LaneState], Never>)
    }

    /// Why each of `names` that the inbox holds is not stamped yet, as the running machine knows it; empty when the
    /// inbox is not running.
    public func waitingReasons(_ names: [String]) async -> [String: LaneState] {
        guard !names.isEmpty, let loop = self.running.withLock({ $0 }) else { return [:] }
        return await withCheckedContinuation { answer in
            if case .terminated = loop.yield(.inspect(names, answer)) { answer.resume(returning: [:]) }
        }
    }

    public func run() async throws {
        // Watch first, then list (the machine's `start`): nothing dropped in between is missed.
        let watcher = try InboxWatcher(path: self.inbox, tree: self.configuration.tree, logger: self.logger)
        let arrivals = Arrivals()
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        self.running.withLock { $0 = continuation }
        let pollInterval = self.pollInterval()
        var policy = Machine.Configuration()
        policy.remembersSettled = pollInterval != nil
        policy.settle = self.configuration.settle
        let machine = Machine(configuration: policy, clock: ContinuousClock())
        self.logger.info(
            "watching the inbox",
            metadata: ["inbox": "\(self.inbox)", "poll_seconds": "\(pollInterval.map { "\($0.seconds)" } ?? "off")"]
        )

        do {
            try await self.runLoop(
                machine, watcher: watcher, arrivals: arrivals, events: events, continuation, pollInterval: pollInterval)
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
        _ continuation: AsyncStream<Event>.Continuation, pollInterval: Duration?
    ) async throws {
        var machine = machine
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                do {
                    try await onThread("weathertag-inotify") {
                        try watcher.run(into: arrivals, changed: { self.memory?.apply($0, at: Date()) }) {
                            continuation.yield(.watcher($0))
                        }
                    }
                } catch {
                    continuation.yield(.watcherFailed(error))
                }
            }
            if let pollInterval { Self.poll(every: pollInterval, in: &group, continuation) }
            defer {
                watcher.stop()
                group.cancelAll()
            }
            // The memory's deep check reads the whole file: here, after start-up, before the first listing (which
            // fills a replaced database again from the files).
            if let memory = self.memory { _ = try? await self.threadPool.runIfActive { memory.checkIntegrity() } }
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
                    case .watcher(.arrived):
                        let names = arrivals.takeAll()
                        self.notice(names, in: &group)
                        actions = machine.namesArrived(names)
                    case .watcher(.rescan): actions = machine.rescanRequested()
                    case .watcher(.watchesExhausted): actions = machine.watchesExhausted()
                    case .watcherFailed(let error):
                        self.logger.critical("the inbox can no longer be watched", metadata: ["error": "\(error)"])
                        throw error
                    case .listed(let candidates, let present):
                        actions = machine.listed(candidates: candidates, present: present)
                    case .weather(.success(let tag), _): actions = machine.weatherArrived(tag)
                    case .weather(.failure(let error), let retryAfter):
                        actions = machine.weatherFailed(error, retryAfter: retryAfter)
                    case .history(let name, .tag(let tag)): actions = machine.historyArrived(name, tag)
                    case .history(let name, .failed(let failure)): actions = machine.historyFailed(name, failure)
                    case .batchFinished(let batch, let outcome):
                        // Entries that arrived meanwhile join the queue first, so a burst keeps the batches full.
                        let names = arrivals.takeAll()
                        self.notice(names, in: &group)
                        actions = machine.namesArrived(names) + machine.batchFinished(batch, outcome)
                    case .wokeUp: actions = machine.wokeUp()
                    case .stop: actions = machine.stop()
                    case .inspect(let names, let answer):
                        var reasons: [String: LaneState] = [:]
                        for name in names { reasons[name] = machine.waitingReason(name) }
                        answer.resume(returning: reasons)
                        actions = []
                    }
                    let waiting = machine.waiting
                    self.statistics.update { $0.entriesWaiting = waiting }
                }
            } onGracefulShutdown: {
                continuation.yield(.stop)
            }
        }
    }

    /// Names that arrived go into the diary index (lane `waiting`) unless a batch has indexed them by then, off the
    /// event loop: an entry that waits for weather or settles is listed before it is read. One look at a time, a
    /// second after the first name it gathers: most are stamped (and indexed) by then and cost one lookup, the stamps
    /// on their way do not wait behind it, and a burst keeps one list of names, not a task per arrival.
    private func notice(_ names: [String], in group: inout ThrowingDiscardingTaskGroup<any Error>) {
        guard let memory = self.memory, !names.isEmpty else { return }
        let first = self.unnoticed.withLock { unnoticed in
            defer { unnoticed += names }
            return unnoticed.isEmpty
        }
        guard first else { return }
        let (inbox, tree) = (self.inbox, self.configuration.tree)
        group.addTask {
            guard (try? await Task.sleep(for: Self.noticeDelay)) != nil else { return }
            let names = self.unnoticed.withLock { unnoticed in
                defer { unnoticed = [] }
                return unnoticed
            }
            _ = try? await self.threadPool.runIfActive {
                memory.notice(names.filter { tree.isEntry($0) }, inbox: inbox, at: Date())
            }
        }
    }

    static let noticeDelay: Duration = .seconds(1)

    /// The configured interval, else every 30 s on filesystems whose changes inotify may not see; nil for none.
    private func pollInterval() -> Duration? {
        if let interval = self.configuration.pollInterval { return interval == .zero ? nil : interval }
        return Filesystem.isRemote(self.inbox) ? Self.fallbackPollInterval : nil
    }

    /// How often to rescan where inotify cannot be relied on (network filesystems, folders it cannot watch).
    static let fallbackPollInterval: Duration = .seconds(30)

    static func poll(
        every interval: Duration,
        in group: inout ThrowingDiscardingTaskGroup<any Error>,
        _ events: AsyncStream<Event>.Continuation
    ) {
        group.addTask {
            while (try? await Task.sleep(for: interval)) != nil { events.yield(.watcher(.rescan)) }
        }
    }
}
