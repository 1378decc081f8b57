import FoundationEssentials
import WeathertagCore

extension InboxService {
    /// Starts one action; what takes time runs as a child task and answers with an event.
    func perform(
        _ action: Machine.Action,
        in group: inout ThrowingDiscardingTaskGroup<any Error>,
        _ events: AsyncStream<Event>.Continuation
    ) {
        let (files, weather, history, maximumAge) = (self.files, self.weather, self.history, self.maximumAge)
        let listener = self.diaryListener
        switch action {
        case .list(let unchanged): group.addTask { events.yield(.input(await files.list(skipping: unchanged))) }
        case .stamp(let batch):
            listener?(.batchStarted)
            group.addTask {
                let outcome = await files.stamp(batch)
                // The index has the batch's entries now; the page waits for the batch's end.
                listener?(.changed)
                listener?(.batchFinished)
                events.yield(.batchFinished(batch, outcome))
            }
        case .notice(let names):
            group.addTask {
                await files.notice(names)
                listener?(.changed)
            }
        case .index(let name, let lane):
            group.addTask {
                await files.index(name, lane)
                listener?(.changed)
            }
        case .checkIntegrity: group.addTask { events.yield(.input(await files.checkIntegrity())) }
        case .fetchWeather:
            group.addTask {
                do {
                    events.yield(.input(.weatherArrived(try await weather.currentTag(maximumAge: maximumAge))))
                } catch {
                    events.yield(.input(.weatherFailed(error, retryAfter: await weather.nextAttemptDelay)))
                }
            }
        case .fetchHistory(let name, let request):
            group.addTask {
                switch await history?.tag(for: request) ?? .failed(.unavailable(.historyDisabled)) {
                case .tag(let tag): events.yield(.input(.historyArrived(name, tag)))
                case .failed(let failure): events.yield(.input(.historyFailed(name, failure)))
                }
            }
        case .wakeUp(let deadline):
            group.addTask {
                guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
                events.yield(.input(.wokeUp))
            }
        case .startPolling(let interval):
            // What the watcher cannot see (a remote filesystem, folders past inotify's watches) is found by polling,
            // and editors' lock files by listing anew.
            files.editorLocks.stopKeeping()
            group.addTask {
                while (try? await Task.sleep(for: interval)) != nil { events.yield(.input(.rescan)) }
            }
        case .giveBackMemory: group.addTask { await files.giveBackMemory() }
        case .mergeIndex: group.addTask { await files.mergeIndex() }
        case .report(let report): files.reporter.record(report)
        case .finish: break
        }
    }
}
