import WeathertagCore

/// How entries are stamped: the same for one entry (`EntryFile`), a batch (`EntryBatch`) and a command's files
/// (`FileStamper`).
package struct StampOptions: Sendable {
    /// A larger entry is left alone (`inbox.max_bytes`).
    package var maximumSize: Int
    /// The stamped file gets the original's access and modification times (`stamp.keep_mtime`).
    package var keepModificationTime: Bool
    /// An entry written before what current weather can speak for is not given it (nil: every entry is current).
    package var backdating: BackdatingPolicy?
    /// New weather on purpose: the memory is not asked and an existing block is replaced (`stamp --fresh`).
    package var replacing: Bool
    /// How the stamp is written (`stamp.format`): what an entry is asked with while there is no weather to write.
    package var format: StampFormat
    /// Whether a block found in an entry is its own (`BlockOwnership`); nil: every block found is.
    package var ownership: BlockOwnership?
    /// Whether a name (as a batch is given it) is a template by the vault's settings (`InboxTree.template`).
    package var template: @Sendable (String) -> TemplateSign? = { _ in nil }
    /// The folder is fsynced before a stamp returns. A batch fsyncs each folder a chunk wrote in once, after the
    /// chunk's last exchange and long before it reports or remembers anything: one journal commit for the chunk's
    /// renames (`EntryBatch`).
    var syncsFolder = true
    /// The swapped-out original comes back with the stamp, for the caller to `settle()` after the folder's fsync
    /// (a batch); without it the original is settled by the stamp.
    var handsBackOriginal = false
    /// Each copy's writeback starts as soon as it is written, before its fsync: a batch writes several copies
    /// before it syncs the first (`EntryBatch`).
    var startsWriteback = false
    /// A batch ends once the entries it read hold this many bytes (`EntryBatch.textBudget`); the rest wait.
    var textBudget = EntryBatch.textBudget

    package init(
        maximumSize: Int = InboxConfiguration.defaultMaximumBytes, keepModificationTime: Bool = true,
        backdating: BackdatingPolicy? = nil, replacing: Bool = false, format: StampFormat = .block,
        ownership: BlockOwnership? = BlockOwnership()
    ) {
        self.format = format
        self.ownership = ownership
        self.maximumSize = maximumSize
        self.keepModificationTime = keepModificationTime
        self.backdating = backdating
        self.replacing = replacing
    }

    /// As `configuration` says (`inbox.max_bytes`, `stamp.keep_mtime`): a command stamps as the daemon does. The
    /// defaults without one.
    package init(_ configuration: Configuration?, backdating: BackdatingPolicy?, replacing: Bool = false) {
        self.init(
            maximumSize: configuration?.inbox.maximumBytes ?? InboxConfiguration.defaultMaximumBytes,
            keepModificationTime: configuration?.stamp.keepModificationTime ?? true, backdating: backdating,
            replacing: replacing, format: configuration?.stamp.format ?? .block,
            ownership: BlockOwnership(
                backdatedAfter: configuration.map { $0.stamp.backdatedAfter.seconds } ?? 10_800,
                timeZone: backdating?.timeZone ?? .current))
    }
}
