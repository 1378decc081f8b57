import FoundationEssentials
import WeathertagCore

extension InboxService {
    /// What comes back to the loop: the machine's inputs, and what only the shell handles.
    enum Event: Sendable {
        case input(Machine.Input)
        /// The watcher says names arrived (they wait in `Arrivals`), or asks for a rescan.
        case watcher(InboxEvent)
        case watcherFailed(any Error)
        /// A batch came back; the names that arrived meanwhile are taken when it is handled.
        case batchFinished(Machine.Batch, BatchOutcome?)
        /// Why these entries wait, from the machine (for the socket's answers about entries).
        case inspect([String], CheckedContinuation<[String: LaneState], Never>)
    }

    /// Hands an event to the machine and returns what it asks for; the watcher's end ends the loop.
    func handle(_ event: Event, _ machine: inout Machine, arrivals: Arrivals) throws -> [Machine.Action] {
        switch event {
        case .input(let input): return machine.receive(input)
        case .watcher(.arrived): return machine.receive(.arrived(arrivals.takeAll()))
        case .watcher(.rescan): return machine.receive(.rescan)
        case .watcher(.watchesExhausted): return machine.receive(.watchesExhausted)
        case .watcherFailed(let error):
            self.logger.critical("the inbox can no longer be watched", metadata: ["error": "\(error)"])
            throw error
        case .batchFinished(let batch, let outcome):
            return machine.receive(.batchFinished(batch, outcome, arrivedMeanwhile: arrivals.takeAll()))
        case .inspect(let names, let answer):
            answer.resume(returning: machine.waitingReasons(names))
            return []
        }
    }
}
