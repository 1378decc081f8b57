import Foundation
import NIOPosix
import WeathertagCore

extension InboxService {
    /// Starts one action; what takes time runs as a child task and answers with an event.
    func perform(
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
                    let tag = try await self.weather.currentTag(maximumAge: self.stamp.maximumAge)
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
        case .fetchHistory(let name, let request):
            guard let history = self.history else {
                events.yield(.history(name, .failed(.unavailable(.historyDisabled))))
                return
            }
            group.addTask { events.yield(.history(name, await history.tag(for: request))) }
        case .stamp(let batch):
            let (inbox, lines, maximumSize, progress) =
                (
                    self.inbox, batch.tag.stampLines(fields: self.stamp.fields), self.configuration.maximumBytes,
                    self.progress
                )
            let keepModificationTime = self.stamp.keepModificationTime
            // The weather of a back-dated entry's time is for that entry: not asked again whether it is back-dated.
            let backdating =
                batch.historical
                ? nil : BackdatingPolicy(threshold: self.stamp.backdatedAfter, asksHistory: self.history != nil)
            let memory = self.memory.map { EntryBatch.Memory(database: $0) }
            group.addTask {
                // A pool that is stopping refuses the batch: its entries are untouched and wait.
                let outcome = try? await self.threadPool.runIfActive {
                    progress.begin()
                    defer { progress.end() }
                    return EntryBatch.stamp(
                        batch.names, in: inbox, lines: lines, maximumSize: maximumSize,
                        keepModificationTime: keepModificationTime, backdating: backdating, memory: memory,
                        progress: progress)
                }
                events.yield(.batchFinished(batch, outcome))
            }
        case .wakeUp(let deadline):
            group.addTask {
                guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
                events.yield(.wokeUp)
            }
        case .startPolling:
            // Folders inotify cannot watch are found by polling.
            Self.poll(every: Self.fallbackPollInterval, in: &group, events)
        case .report(let report):
            self.record(report)
        case .finish:
            break
        }
    }
}

/// Runs blocking work on a thread of its own (inotify's reads block) until it returns.
func onThread(_ name: String, _ body: @escaping @Sendable () throws -> Void) async throws {
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
        let thread = Thread { done.resume(with: Result { try body() }) }
        thread.name = name
        thread.start()
    }
}
