/// The open files the daemon's batches may hold, within the process's limit: the soft limit to ask for, how many
/// batches run at once, and the size of the long queue's batches that fits. A pure decision; the daemon's factory
/// reads and sets the limit (`ServiceFactory.descriptorBudget`).
///
/// A batch keeps each entry it exchanged open until its folders are synced: the swapped-out original, held so that
/// a late writer's save is seen and put back. The chunk it is writing keeps each copy open as well. So a batch of
/// `n` names holds up to `n + writtenTogether` descriptors, and three batches of 512 in flight about 1,630. systemd
/// gives a service a soft limit of 1,024 (`DefaultLimitNOFILE=1024:524288`). Below what the batches need, a long
/// burst ran out of descriptors: a batch failed with "too many open files", was logged as an error, and paused the
/// writes for a backoff. Measured with 5,000-entry bursts: one to three such failures a burst at a soft limit of 1,024,
/// none since; at a limit of 128, 2,000 entries took 32.5 s on tmpfs (21 failures), now 0.17 s, one batch at a
/// time, with the warning and no failure (docs/RELIABILITY.md).
package struct DescriptorBudget: Sendable, Equatable {
    /// What the daemon holds open besides the batches and the socket's connections: the state database's files,
    /// the watcher, the event loops, the journal, a weather request's connection, a plugin's pipes (28 at idle).
    package static let reserve = 96

    /// The soft limit to ask for; nil when the current one is enough.
    package var raiseTo: UInt64?
    /// Batches stamped at the same time: as configured, or fewer where the limit holds fewer short batches.
    package var batchesInFlight: Int
    /// The long queue's batch size within the limit: `longQueueBatchSize` as configured, or smaller, but never
    /// below the short batches' size.
    package var longQueueBatchSize: Int
    /// What the batches and connections need, as configured (to say when the limit is short of it).
    package var needed: UInt64
    /// Whether even one batch of the short size may not fit: the daemon says so, and may meet "too many open
    /// files", which its entries wait out as any failed write.
    package var isShort: Bool

    /// - Parameters:
    ///   - soft: the process's current soft limit (`RLIMIT_NOFILE`).
    ///   - hard: its hard limit, which an unprivileged process may raise the soft one to.
    ///   - connections: `socket.max_connections`.
    ///   - writtenTogether: the copies a chunk writes before it syncs the first (`EntryBatch.writtenTogether`).
    package init(
        soft: UInt64, hard: UInt64, connections: Int, batchesInFlight: Int, batchSize: Int, longQueueBatchSize: Int,
        writtenTogether: Int
    ) {
        let besides = UInt64(max(0, connections) + Self.reserve)
        func need(_ batches: Int, of size: Int) -> UInt64 {
            UInt64(batches) * UInt64(max(0, size) + writtenTogether) + besides
        }
        let configured = max(1, batchesInFlight)
        self.needed = need(configured, of: longQueueBatchSize)
        let limit = soft >= self.needed ? soft : max(soft, min(hard, self.needed))
        self.raiseTo = limit > soft ? limit : nil
        // As many batches as fit at the short size (at least one), then the long size that fits them.
        self.batchesInFlight = (1...configured).last { limit >= need($0, of: batchSize) } ?? 1
        let perBatch = (limit > besides ? limit - besides : 0) / UInt64(self.batchesInFlight)
        let fits = Int(clamping: perBatch) - writtenTogether
        self.longQueueBatchSize = max(batchSize, min(longQueueBatchSize, fits))
        self.isShort = limit < need(1, of: batchSize)
    }
}
