import Glibc
import Synchronization
import WeathertagCore

/// The editors' lock and swap files (`EditorLock`) beside the entries, from one listing of each folder instead of
/// six `lstat`s per entry. A folder's listing is kept while the inbox's watcher sees no lock file come or go
/// (`changed()`), so a burst of a thousand entries lists its folder once. Where the watcher cannot see every change
/// (watches exhausted, a remote filesystem), nothing is kept and each folder is listed anew for each batch
/// (`EditorLockCache(keeping: false)`), which the command line's batches use too. A lock file the listing missed is
/// missed as it would be right after a probe; the lease is the guard against writes.
final class EditorLockCache: Sendable {
    private struct Listing {
        var generation: UInt64
        /// The names that begin with a dot (every lock file's does).
        var hidden: Set<String>
    }

    private let keeping: Atomic<Bool>
    private let generation = Atomic<UInt64>(0)
    private let listings = Mutex<[String: Listing]>([:])

    init(keeping: Bool) {
        self.keeping = Atomic(keeping)
    }

    /// A lock or swap file came or went (the watcher saw it): listings are made anew.
    func changed() {
        self.generation.add(1, ordering: .relaxed)
    }

    /// The watcher can no longer see every folder: nothing is kept from now on.
    func stopKeeping() {
        self.keeping.store(false, ordering: .relaxed)
        self.listings.withLock { $0.removeAll() }
    }

    /// Forgets every listing (a new batch without a watcher).
    func forget() {
        self.listings.withLock { $0.removeAll() }
    }

    /// The editor that has `name` open in `directory`, if its lock file is there.
    func lock(for name: String, in directory: String) -> EditorLock? {
        let generation = self.generation.load(ordering: .relaxed)
        let kept = self.listings.withLock { $0[directory] }.flatMap { $0.generation == generation ? $0.hidden : nil }
        let hidden = kept ?? Self.list(directory)
        if kept == nil {
            self.listings.withLock { $0[directory] = Listing(generation: generation, hidden: hidden) }
        }
        guard !hidden.isEmpty else { return nil }
        return EditorLock.holding(name, among: hidden)
    }

    /// Whether listings are kept across batches.
    var isKeeping: Bool { self.keeping.load(ordering: .relaxed) }

    private static func list(_ directory: String) -> Set<String> {
        Set(FileIO.names(in: directory) { $0.first == UInt8(ascii: ".") })
    }
}
