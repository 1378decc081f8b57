import Foundation
import WeathertagCore

extension InboxService {
    /// What comes back to the loop.
    enum Event: Sendable {
        case watcher(InboxEvent)
        case watcherFailed(any Error)
        case listed(candidates: [String], present: Set<String>?)
        case weather(Result<WeatherTag, any Error>, retryAfter: Duration?)
        case history(String, HistoryService.Answer)
        case batchFinished(Machine.Batch, BatchOutcome?)
        case wokeUp
        case integrityChecked
        case stop
        /// Why these entries wait, from the machine (for the socket's answers about entries).
        case inspect([String], CheckedContinuation<[String: LaneState], Never>)
    }

    /// Hands an event to the machine and returns what it asks for; the watcher's end ends the loop.
    func handle(_ event: Event, _ machine: inout Machine, arrivals: Arrivals) throws -> [Machine.Action] {
        switch event {
        case .watcher(.arrived): return machine.namesArrived(arrivals.takeAll())
        case .watcher(.rescan): return machine.rescanRequested()
        case .watcher(.watchesExhausted): return machine.watchesExhausted()
        case .watcherFailed(let error):
            self.logger.critical("the inbox can no longer be watched", metadata: ["error": "\(error)"])
            throw error
        case .listed(let candidates, let present): return machine.listed(candidates: candidates, present: present)
        case .weather(.success(let tag), _): return machine.weatherArrived(tag)
        case .weather(.failure(let error), let retryAfter): return machine.weatherFailed(error, retryAfter: retryAfter)
        case .history(let name, .tag(let tag)): return machine.historyArrived(name, tag)
        case .history(let name, .failed(let failure)): return machine.historyFailed(name, failure)
        case .batchFinished(let batch, let outcome):
            // Entries that arrived meanwhile join the queue first, so a burst keeps the batches full.
            return machine.namesArrived(arrivals.takeAll()) + machine.batchFinished(batch, outcome)
        case .wokeUp: return machine.wokeUp()
        case .integrityChecked: return machine.integrityChecked()
        case .stop: return machine.stop()
        case .inspect(let names, let answer):
            var reasons: [String: LaneState] = [:]
            for name in names { reasons[name] = machine.waitingReason(name) }
            answer.resume(returning: reasons)
            return []
        }
    }
}
