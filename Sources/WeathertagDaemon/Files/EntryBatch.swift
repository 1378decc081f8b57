import Foundation
import Glibc
import WeathertagCore

/// Stamps a batch of entries on the calling thread (a pool thread in the daemon), stopping at the first failed
/// write: the disk is full or the folder read-only, and the rest would fail the same way.
enum EntryBatch {
    /// The memory a batch consults and tells: the state database, and each file's path in it (relative to the
    /// inbox; nil for a file outside it, which is not remembered).
    struct Memory: Sendable {
        var database: StateDatabase
        var key: @Sendable (String) -> String? = { $0 }
    }

    /// - Parameters:
    ///   - names: paths relative to `folder`, or as they are when `folder` is nil.
    ///   - folder: the inbox: its descriptor is opened once for every fsync of the batch.
    ///   - memory: entries without a block get their remembered one back; every block is remembered, in one
    ///     transaction after the batch.
    ///   - fresh: new weather on purpose: the memory is not asked and an existing block is replaced.
    static func stamp(
        _ names: [String],
        in folder: String?,
        lines: [String],
        maximumSize: Int,
        keepModificationTime: Bool = true,
        backdating: BackdatingPolicy? = nil,
        memory: Memory? = nil,
        fresh: Bool = false,
        progress: StampingProgress? = nil
    ) -> BatchOutcome {
        var outcome = BatchOutcome()
        var records: [StateDatabase.Record] = []
        let directory = folder.map { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } ?? -1
        defer {
            if directory >= 0 { close(directory) }
            memory?.database.remember(records)
        }
        // What the memory holds for the batch's entries, asked once (used for those that turn out to have no block).
        let remembered =
            fresh ? [:] : memory.map { memory in memory.database.blocksToRestore(names.compactMap(memory.key)) } ?? [:]
        for (index, name) in names.enumerated() {
            let key = memory?.key(name)
            var block: [String]?
            do {
                let result = try EntryFile.stamp(
                    path: folder.map { $0 + "/" + name } ?? name, lines: lines, maximumSize: maximumSize,
                    keepModificationTime: keepModificationTime, backdating: backdating,
                    // The inbox's descriptor serves entries at its top; one in a folder fsyncs its own folder.
                    directoryFD: directory >= 0 && !name.contains("/") ? directory : nil,
                    restore: { key.flatMap { remembered[$0] } },
                    replacing: fresh,
                    blockNow: { block = $0 })
                outcome.results.append((name, result))
                if let key, let block, let origin = Self.origin(of: result) {
                    records.append(StateDatabase.Record(path: key, block: block, origin: origin))
                }
                progress?.advance()
            } catch {
                outcome.failure = (name, error)
                outcome.unprocessed = Array(names[(index + 1)...])
                break
            }
        }
        return outcome
    }

    private static func origin(of result: EntryResult) -> StateDatabase.Origin? {
        switch result {
        case .stamped: return .stamped
        case .restored: return .restored
        case .alreadyStamped: return .found
        default: return nil
        }
    }
}
