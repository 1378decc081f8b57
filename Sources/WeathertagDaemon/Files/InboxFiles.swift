import FoundationEssentials
import Logging
import NIOPosix
import Synchronization
import WeathertagCore

/// The inbox's side of the disk, for the inbox's loop: listings, batches of stamps, the diary index's notices and
/// the store's look-over, each on the thread pool (the files' calls and SQLite block; the cooperative pool must
/// not), each answering with what the machine takes next.
struct InboxFiles: Sendable {
    typealias Machine = InboxStateMachine<ContinuousClock>

    let configuration: InboxConfiguration
    let stamp: StampConfiguration
    /// What is remembered of each entry's block and the diary index (nil: nothing is, `state.enabled` false).
    let memory: (any EntryStore)?
    /// Back-dated entries ask for the weather of their time (`history.enabled`); otherwise they are left alone.
    let asksHistory: Bool
    let threadPool: NIOThreadPool
    let progress: StampingProgress
    let reporter: InboxReporter
    /// The sync tools' conflict copies, as listings and the watcher find them.
    let conflicts: SyncConflictRegistry
    /// The entries that stopped the daemon while they were stamped, set aside until they change.
    let crashGuard: CrashGuard
    /// The open files its batches may hold: how many batches at once, within the process's limit.
    let descriptors: DescriptorBudget
    /// The editors' lock files of the inbox's folders, kept while the watcher sees them all (`EditorLockCache`).
    let editorLocks = EditorLockCache(keeping: true)
    /// Batches tell the memory one at a time (`Turns`).
    let memoryTurns = Turns()
    /// The lines of the last tag stamped.
    let stampLines = StampLines()

    var inbox: String { self.configuration.path }

    /// The inbox's watcher, telling the lock files' cache and the conflicts what it sees.
    func watcher(logger: Logger) throws -> InboxWatcher {
        try InboxWatcher(
            path: self.inbox, tree: self.configuration.tree, editorLocks: self.editorLocks, conflicts: self.conflicts,
            logger: logger)
    }

    /// Runs `watcher` on a thread of its own until it stops: the names it sees go to `arrivals`, its events to
    /// `events`, and what it sees of entries' paths (moved, removed) to the memory.
    func watch(
        _ watcher: InboxWatcher, into arrivals: Arrivals, _ events: @escaping @Sendable (InboxEvent) -> Void
    ) async throws {
        let memory = self.memory
        try await onThread("weathertag-inotify") {
            try watcher.run(into: arrivals, changed: { memory?.apply($0, at: Date()) }, events)
        }
    }

    /// The inbox's machine, as its settings make it: polled every `poll_seconds` or on a remote filesystem, and with
    /// a store, its look-over first and its arrivals handed to the diary index.
    func machine() -> Machine {
        let pollInterval = self.configuration.pollInterval(isRemote: Filesystem.isRemote(self.inbox))
        var configuration = Machine.Configuration(
            inbox: self.configuration, pollInterval: pollInterval, hasStore: self.memory != nil)
        configuration.batchesInFlight = self.descriptors.batchesInFlight
        #if DEBUG
            // The crash tests' burst of 3,000 goes through the intake (`WEATHERTAG_TEST_INTAKE_LIMIT`); the release
            // binary has no such knob.
            if let limit = ProcessInfo.processInfo.environment["WEATHERTAG_TEST_INTAKE_LIMIT"].flatMap(Int.init) {
                configuration.intakeLimit = limit
            }
        #endif
        return Machine(configuration: configuration, clock: ContinuousClock())
    }

    /// A listing (`InboxListing`), as the machine takes it; nothing listed when the inbox cannot be read.
    func list(skipping unchanged: [String: FileVersion]) async -> Machine.Input {
        let (inbox, tree, memory, logger) = (self.inbox, self.configuration.tree, self.memory, self.reporter.logger)
        do {
            let listing = try await self.threadPool.runIfActive {
                try InboxListing.list(inbox, tree: tree, skipping: unchanged, memory: memory) { folder, error in
                    logger.warning(
                        "cannot list a folder of the inbox", metadata: ["folder": "\(folder)", "error": "\(error)"])
                }
            }
            self.reporter.listed(listing, inbox: inbox)
            if let conflicts = listing.conflicts { self.conflicts.listed(conflicts) }
            return .listed(candidates: listing.candidates, present: listing.present)
        } catch {
            logger.error("cannot list the inbox", metadata: ["inbox": "\(inbox)", "error": "\(error)"])
            return .listed(candidates: [], present: nil)
        }
    }

    /// Stamps a batch; nil when the pool is stopping and refused it (its entries are untouched and wait).
    func stamp(_ batch: Machine.Batch) async -> BatchOutcome? {
        let (inbox, maximumSize, progress, locks, crashGuard) = (
            self.inbox, self.configuration.maximumBytes, self.progress, self.editorLocks, self.crashGuard
        )
        let lines = batch.tag.map {
            self.stampLines.lines(for: $0, fields: self.stamp.fields, format: self.stamp.format)
        }
        var options = StampOptions(
            maximumSize: maximumSize, keepModificationTime: self.stamp.keepModificationTime,
            backdating: batch.backdating(
                BackdatingPolicy(threshold: self.stamp.backdatedAfter, asksHistory: self.asksHistory)),
            format: self.stamp.format, ownership: BlockOwnership(backdatedAfter: self.stamp.backdatedAfter.seconds))
        let tree = self.configuration.tree
        options.template = { tree.template($0) }
        let memory = self.memory.map { EntryBatch.Memory(database: $0) }
        progress.begin()
        defer { progress.end() }
        let done = try? await self.threadPool.runIfActive { [options] in
            EntryBatch.stampFiles(
                batch.names, in: inbox, lines: lines, options: options, memory: memory,
                context: EntryBatch.Context(progress: progress, locks: locks, crashGuard: crashGuard))
        }
        guard let done else { return nil }
        // Told before it is reported, in the batches' turn: one waiting for another's transaction holds no thread.
        if done.tellsMemory {
            await self.memoryTurns.inTurn {
                // (A pool that stops now runs nothing more: the files are stamped, and only the memory misses it.)
                _ = try? await self.threadPool.runIfActive { done.remember() }
            }
        }
        return done.outcome
    }

    /// Before the first listing: the entry an earlier run was stamping when it stopped is set aside.
    func recoverFromCrash() async {
        let (crashGuard, inbox, logger) = (self.crashGuard, self.inbox, self.reporter.logger)
        _ = try? await self.threadPool.runIfActive { crashGuard.recover(inbox: inbox, logger: logger) }
    }

    /// Hands names that arrived, or that a listing found, to the diary index (the entries among them): a row each
    /// from its name until it is read; a row a batch wrote first is kept as it is.
    func notice(_ names: [String]) async {
        guard let memory = self.memory else { return }
        let (inbox, tree) = (self.inbox, self.configuration.tree)
        _ = try? await self.threadPool.runIfActive {
            memory.notice(names.filter { tree.isEntry($0) }, inbox: inbox, at: Date())
        }
    }

    /// Writes a lane the machine settled for an entry after its batch (`.index`) to its row, in the batches' turn.
    func index(_ name: String, _ lane: LaneState) async {
        guard let memory = self.memory, self.configuration.tree.isEntry(name) else { return }
        let item = DiaryIndexItem.lane(name, lane, at: Date())
        await self.memoryTurns.inTurn {
            _ = try? await self.threadPool.runIfActive { memory.remember([], index: [item], at: Date()) }
        }
    }

    /// Gives the heap's free pages back to the system, after a burst (`ProcessMemory.trim`; a few milliseconds).
    func giveBackMemory() async {
        _ = try? await self.threadPool.runIfActive { ProcessMemory.trim() }
    }

    /// Merges the diary index's text (`.mergeIndex`) a step at a time, each step in the batches' turn: a batch that
    /// comes meanwhile writes after one step (`DiaryTables.textMergeStep`), not after the whole merge. A stop (the
    /// loop's tasks cancelled, the pool shut down) ends it after the step that runs; the next idle merge goes on.
    func mergeIndex() async {
        guard let memory = self.memory else { return }
        while !Task.isCancelled,
            await self.memoryTurns.inTurn({ (try? await self.threadPool.runIfActive { memory.mergeText() }) ?? false })
        {}
    }

    /// Looks the store over (and replaces it when it is damaged).
    func checkIntegrity() async -> Machine.Input {
        let memory = self.memory
        _ = try? await self.threadPool.runIfActive { memory?.checkIntegrity() }
        return .integrityChecked
    }
}

/// The lines of the last tag stamped, made again only for another tag. One tag serves every batch for a while
/// (`InboxStateMachine.Configuration.tagReuse`, and the cache behind it), and made anew for each batch its lines
/// (dates and numbers printed, scalars checked) were 4 % of the inbox loop's time for entries dropped one at a time
/// (`perf record`).
final class StampLines: Sendable {
    private let last = Mutex<(tag: WeatherTag, fields: [StampField], format: StampFormat, lines: [String])?>(nil)

    func lines(for tag: WeatherTag, fields: [StampField], format: StampFormat) -> [String] {
        if let last = self.last.withLock({ $0 }), last.tag == tag, last.fields == fields, last.format == format {
            return last.lines
        }
        let lines = tag.stampLines(fields: fields, format: format)
        self.last.withLock { $0 = (tag, fields, format, lines) }
        return lines
    }
}
