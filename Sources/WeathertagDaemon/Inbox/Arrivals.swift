import Synchronization

/// Names the watcher has reported and the stamping loop has not taken yet.
///
/// inotify hands events over as they happen, often one per read. Were each read a wake-up of its own, a burst
/// would be stamped one entry per batch. Instead the watcher appends here and rings only when the list was empty;
/// the loop takes everything at once, also between batches, so a burst is stamped in full batches however the
/// events trickle in.
final class Arrivals: Sendable {
    private let names = Mutex<[String]>([])

    /// Adds names; returns true when the list was empty, so the loop must be woken.
    func append(_ new: [String]) -> Bool {
        self.names.withLock { names in
            let wasEmpty = names.isEmpty
            names.append(contentsOf: new)
            return wasEmpty && !new.isEmpty
        }
    }

    /// Every name reported since the last call, in order.
    func takeAll() -> [String] {
        self.names.withLock { names in
            defer { names = [] }
            return names
        }
    }
}
