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
                    self.reporter.listed(listing, inbox: inbox)
                    events.yield(.input(.listed(candidates: listing.candidates, present: listing.present)))
                } catch {
                    logger.error("cannot list the inbox", metadata: ["inbox": "\(inbox)", "error": "\(error)"])
                    events.yield(.input(.listed(candidates: [], present: nil)))
                }
            }
        case .fetchWeather:
            group.addTask {
                do {
                    let tag = try await self.weather.currentTag(maximumAge: self.stamp.maximumAge)
                    events.yield(.input(.weatherArrived(tag)))
                } catch {
                    events.yield(.input(.weatherFailed(error, retryAfter: await self.weather.nextAttemptDelay)))
                }
            }
        case .fetchHistory(let name, let request):
            guard let history = self.history else {
                events.yield(.input(.historyFailed(name, .unavailable(.historyDisabled))))
                return
            }
            group.addTask {
                switch await history.tag(for: request) {
                case .tag(let tag): events.yield(.input(.historyArrived(name, tag)))
                case .failed(let failure): events.yield(.input(.historyFailed(name, failure)))
                }
            }
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
                events.yield(.input(.wokeUp))
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
                events.yield(.input(.integrityChecked))
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
            while (try? await Task.sleep(for: interval)) != nil { events.yield(.input(.rescan)) }
        }
    }
}
