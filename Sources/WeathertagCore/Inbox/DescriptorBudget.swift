/// The open files the daemon's batches may hold, within the process's limit: the soft limit to ask for, and how many
/// batches run at once. A pure decision; the daemon's factory reads and sets the limit
/// (`ServiceFactory.descriptorBudget`).
///
/// A batch goes a chunk at a time (`EntryBatch.writtenTogether`, 32): each entry of the chunk open, and its copy,
/// until the chunk's folders are synced and its swapped-out originals settled. So a batch holds two descriptors an
/// entry of one chunk at most, whatever its size: three batches in flight 192, and with the socket's connections and
/// the reserve 352, within systemd's soft limit of 1,024 (`DefaultLimitNOFILE=1024:524288`). Before, a batch held
/// every original it exchanged until its one folder sync at the end, three batches of 512 about 1,630 descriptors, and
/// a long burst at systemd's limit had batches fail with "too many open files" (docs/RELIABILITY.md). What is left to
/// decide: a large `socket.max_connections` raises the soft limit (within the hard one), and a limit too low for
/// three batches runs fewer at once.
package struct DescriptorBudget: Sendable, Equatable {
    /// What the daemon holds open besides the batches and the socket's connections: the state database's files,
    /// the watcher, the event loops, the journal, a weather request's connection, a plugin's pipes (28 at idle).
    package static let reserve = 96

    /// The soft limit to ask for; nil when the current one is enough.
    package var raiseTo: UInt64?
    /// Batches stamped at the same time: as configured, or fewer where the limit holds fewer.
    package var batchesInFlight: Int
    /// What the batches and connections need, as configured (to say when the limit is short of it).
    package var needed: UInt64
    /// Whether even one batch may not fit: the daemon says so, and may meet "too many open files", which its
    /// entries wait out as any failed write.
    package var isShort: Bool

    /// - Parameters:
    ///   - soft: the process's current soft limit (`RLIMIT_NOFILE`).
    ///   - hard: its hard limit, which an unprivileged process may raise the soft one to.
    ///   - connections: `socket.max_connections`.
    ///   - writtenTogether: the entries of a chunk (`EntryBatch.writtenTogether`), each open with its copy.
    package init(soft: UInt64, hard: UInt64, connections: Int, batchesInFlight: Int, writtenTogether: Int) {
        let besides = UInt64(max(0, connections) + Self.reserve)
        func need(_ batches: Int) -> UInt64 { UInt64(batches) * UInt64(2 * max(0, writtenTogether)) + besides }
        let configured = max(1, batchesInFlight)
        self.needed = need(configured)
        let limit = soft >= self.needed ? soft : max(soft, min(hard, self.needed))
        self.raiseTo = limit > soft ? limit : nil
        self.batchesInFlight = (1...configured).last { limit >= need($0) } ?? 1
        self.isShort = limit < need(1)
    }
}
