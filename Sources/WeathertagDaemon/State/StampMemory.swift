import FoundationEssentials
import Synchronization
import WeathertagCore

/// One block to remember after a batch.
package struct StampRecord: Sendable, Equatable {
    /// How an entry's block came to be remembered.
    package enum Origin: Sendable, Equatable {
        /// Weathertag stamped it with this block.
        case stamped
        /// The remembered block was written back.
        case restored
        /// It was in the file already (stamped earlier, by hand, or before the memory existed).
        case found
    }

    package var path: String
    package var block: [String]
    package var origin: Origin

    package init(path: String, block: [String], origin: Origin) {
        self.path = path
        self.block = block
        self.origin = origin
    }
}

/// The memory of stamps: each entry's weather block by its path relative to the inbox, so that an entry that comes
/// back without its block gets the same one back (`RestorePolicy` decides when); renames are followed and removals
/// forgotten after their grace time.
///
/// Synchronous on purpose: batches call it on the thread pool and the watcher on its own thread, where a batch's
/// lookups and its one write transaction belong; never from async code. The state database is the adapter;
/// `InMemoryEntryStore` is the same rules in memory.
package protocol StampMemory: Sendable {
    /// When a remembered block is given back, and when a removed entry is forgotten.
    var policy: RestorePolicy { get }
    /// The blocks to write back into any of `paths` that has none, in one query (a batch asks once).
    func blocksToRestore(_ paths: [String], now: Date) -> [String: [String]]
    /// Remembers a batch's blocks and, in the same transaction, what the diary index learnt from it.
    func remember(_ records: [StampRecord], index: [DiaryIndexItem], at now: Date)
    /// Follows renames and removals the watcher saw.
    func apply(_ changes: [PathChange], at now: Date)
    /// After a full listing: entries remembered but not found start their grace time, unless `keeping` says the
    /// file is still there (a note that is no entry now, such as one outside a vault's entries that an older version
    /// stamped: its memory says what weathertag wrote there); those past it go.
    func reconcile(present: Set<String>, at now: Date, keeping: (String) -> Bool)
    /// What is remembered of `path`.
    func remembered(_ path: String) throws -> RememberedStamp?
    /// What is remembered of `block`, found in the entry at `path` (both relative to the inbox), by its fingerprint
    /// (`StampFacts`): whether weathertag wrote it there, found it there, or wrote it into another entry still in the
    /// inbox.
    func provenance(of block: [String], at path: String) -> BlockProvenance
    /// The block remembered for `path` was taken out on request (`weathertag stamp --remove`): it is never given
    /// back, and still known as weathertag's writing there (a note copied from the file before is recognised).
    func withdraw(_ path: String, at now: Date)
    /// Looks the store over for damage and mends what it can (off the start-up path); whether it was sound.
    @discardableResult func checkIntegrity() -> Bool
}

/// What a batch reads and writes: the memory of stamps and the diary index, written in one transaction.
package protocol EntryStore: StampMemory, DiaryStore {
    /// What a batch asks before it reads its files, in one look: the blocks to give back (`restoring`:
    /// `blocksToRestore`; none when the batch replaces on purpose) and the versions indexed (`indexedVersions`).
    func recall(_ paths: [String], restoring: Bool, now: Date) -> EntryRecall
}

/// What the memory holds for a batch's entries before they are read.
package struct EntryRecall: Sendable {
    /// The blocks to write back into entries that turn out to have none.
    package var blocks: [String: [String]] = [:]
    /// The versions the diary index has read.
    package var indexed: [String: String] = [:]

    package init(blocks: [String: [String]] = [:], indexed: [String: String] = [:]) {
        (self.blocks, self.indexed) = (blocks, indexed)
    }
}

extension EntryStore {
    /// The two questions one after the other (a store in memory).
    package func recall(_ paths: [String], restoring: Bool, now: Date) -> EntryRecall {
        EntryRecall(
            blocks: restoring ? self.blocksToRestore(paths, now: now) : [:], indexed: self.indexedVersions(paths))
    }
}

extension StampMemory {
    /// After a full listing, keeping nothing that was not found.
    package func reconcile(present: Set<String>, at now: Date) {
        self.reconcile(present: present, at: now, keeping: { _ in false })
    }

    /// Nothing to look over (a store in memory).
    @discardableResult package func checkIntegrity() -> Bool { true }

    package func blockToRestore(_ path: String, now: Date = Date()) -> [String]? {
        self.blocksToRestore([path], now: now)[path]
    }
}
