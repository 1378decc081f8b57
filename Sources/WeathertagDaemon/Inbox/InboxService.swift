import Foundation
import Logging
import NIOPosix
import ServiceLifecycle
import WeathertagCore

/// Stamps entries dropped into the inbox. The folder is the queue: an entry stays there untouched until it is
/// stamped, so a restart simply rescans. Entries wait while there is no weather and are retried with backoff.
public final class InboxService: Service {
    private let inbox: String
    private let weather: WeatherService
    private let threadPool: NIOThreadPool
    private let statistics: DaemonStatistics
    private let logger: Logger

    public init(
        inbox: String,
        weather: WeatherService,
        threadPool: NIOThreadPool,
        statistics: DaemonStatistics,
        logger: Logger
    ) {
        self.inbox = inbox
        self.weather = weather
        self.threadPool = threadPool
        self.statistics = statistics
        self.logger = logger
    }

    public func run() async throws {
        // Watch first, then scan: nothing dropped in between is missed (duplicates are merged by the queue).
        let watcher = try InboxWatcher(path: self.inbox, logger: self.logger)
        let (events, continuation) = AsyncStream.makeStream(of: InboxEvent.self)
        continuation.yield(.rescan)
        self.logger.info("watching the inbox", metadata: ["inbox": "\(self.inbox)"])

        await withDiscardingTaskGroup { group in
            group.addTask {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    let thread = Thread {
                        watcher.run { continuation.yield($0) }
                        done.resume()
                    }
                    thread.name = "weathertag-inotify"
                    thread.start()
                }
            }
            var state = State()
            for await event in events.cancelOnGracefulShutdown() {
                switch event {
                case .file(let name): state.queue.insert(name)
                case .rescan: state.queue.insert(contentsOf: await self.scan())
                case .retry: state.retryScheduled = false
                }
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

    private struct State {
        var queue = EntryQueue()
        var retryScheduled = false
        var backoff = Backoff(base: .seconds(1), ceiling: .seconds(300))
        /// Entries left alone and the reason logged, so that rescans and our own rename events stay quiet.
        var reported: [String: String] = [:]
    }

    /// Stamps every queued entry. Returns when to try again if some must wait, or nil.
    private func drain(_ state: inout State) async -> Duration? {
        guard !state.queue.isEmpty else {
            self.statistics.update { $0.entriesWaiting = 0 }
            return nil
        }
        let tag: WeatherTag
        do {
            tag = try await self.weather.currentTag(allowStale: false)
            state.backoff.reset()
        } catch {
            let waiting = state.queue.count
            self.statistics.update { $0.entriesWaiting = waiting }
            let delay = state.backoff.next()
            self.logger.warning(
                "entries wait for weather",
                metadata: ["waiting": "\(waiting)", "retry_in": "\(delay)", "reason": "\(error)"]
            )
            return delay
        }
        let lines = tag.stampLines
        var retryLater = false
        while let name = state.queue.popFirst() {
            if Task.isCancelled {
                state.queue.insert(name)
                break
            }
            let path = self.inbox + "/" + name
            let result: EntryResult
            do {
                result = try await self.threadPool.runIfActive { try EntryFile.stamp(path: path, lines: lines) }
            } catch {
                self.report(name, "could not be stamped: \(error)", &state)
                continue
            }
            switch result {
            case .stamped:
                state.reported[name] = nil
                self.statistics.update { $0.entriesStamped += 1 }
                self.logger.info(
                    "stamped",
                    metadata: [
                        "entry": "\(name)", "weather": "\(tag.weather.description)", "source": "\(tag.position.source)",
                    ]
                )
            case .alreadyStamped:
                self.statistics.update { $0.entriesAlreadyStamped += 1 }
            case .skipped(let reason):
                self.report(name, reason, &state)
            case .changedWhileStamping:
                self.logger.info("entry changed while being stamped, will retry", metadata: ["entry": "\(name)"])
                retryLater = true
                state.queue.insert(name)
            case .vanished:
                state.reported[name] = nil
            }
            if retryLater { break }
        }
        let waiting = state.queue.count
        self.statistics.update { $0.entriesWaiting = waiting }
        return retryLater ? .milliseconds(200) : nil
    }

    private func report(_ name: String, _ reason: String, _ state: inout State) {
        self.statistics.update { $0.entriesSkipped += 1 }
        guard state.reported[name] != reason else { return }
        state.reported[name] = reason
        self.logger.notice("entry left as it is", metadata: ["entry": "\(name)", "reason": "\(reason)"])
    }

    /// The candidate names now in the inbox, sorted.
    private func scan() async -> [String] {
        let inbox = self.inbox
        do {
            let names = try await self.threadPool.runIfActive {
                try FileManager.default.contentsOfDirectory(atPath: inbox)
            }
            return names.filter(InboxFilter.isCandidate).sorted()
        } catch {
            self.logger.error("cannot list the inbox", metadata: ["inbox": "\(inbox)", "error": "\(error)"])
            return []
        }
    }
}
