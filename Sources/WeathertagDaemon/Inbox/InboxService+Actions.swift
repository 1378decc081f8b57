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
            let (inbox, tree, memory, logger) = (self.inbox, self.configuration.tree, self.memory, self.logger)
            group.addTask {
                do {
                    let listing = try await self.threadPool.runIfActive {
                        try InboxListing.list(inbox, tree: tree, skipping: unchanged, memory: memory) { folder, error in
                            logger.warning(
                                "cannot list a folder of the inbox",
                                metadata: ["folder": "\(folder)", "error": "\(error)"])
                        }
                    }
                    self.statistics.update { $0.lastScanAt = Date() }
                    if !listing.removed.isEmpty {
                        logger.notice(
                            "removed temp files left by an interrupted stamp",
                            metadata: ["count": "\(listing.removed.count)", "inbox": "\(inbox)"])
                    }
                    logger.debug("rescanned the inbox", metadata: ["to_look_at": "\(listing.candidates.count)"])
                    events.yield(.listed(candidates: listing.candidates, present: listing.present))
                } catch {
                    logger.error("cannot list the inbox", metadata: ["inbox": "\(inbox)", "error": "\(error)"])
                    events.yield(.listed(candidates: [], present: nil))
                }
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
            Self.poll(every: InboxConfiguration.fallbackPollInterval, in: &group, events)
        case .notice(let names):
            guard let memory = self.memory else { return }
            let (inbox, tree) = (self.inbox, self.configuration.tree)
            group.addTask {
                _ = try? await self.threadPool.runIfActive {
                    memory.notice(names.filter { tree.isEntry($0) }, inbox: inbox, at: Date())
                }
            }
        case .checkIntegrity:
            let memory = self.memory
            group.addTask {
                _ = try? await self.threadPool.runIfActive { memory?.checkIntegrity() }
                events.yield(.integrityChecked)
            }
        case .report(let report):
            self.reporter.record(report)
        case .finish:
            break
        }
    }

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
