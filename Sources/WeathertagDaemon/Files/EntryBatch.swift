import FoundationEssentials
import Glibc
import WeathertagCore

/// Stamps a batch of entries on the calling thread (a pool thread in the daemon), stopping at the first failed
/// write: the disk is full or the folder read-only, and the rest would fail the same way.
///
/// The entries go a chunk at a time (`writtenTogether`): their copies written and synced, then exchanged, then
/// each folder the chunk wrote in fsynced once and the swapped-out originals settled and closed, all before anything
/// is reported or remembered: one journal commit for the chunk's renames rather than one per entry. A crash before
/// that fsync leaves each entry as it was or stamped, never in between (the journal keeps the renames in order), and
/// nothing was reported yet.
///
/// Why a chunk and not the batch: a batch of 512 held its originals open until its one folder fsync at the end, 512
/// descriptors a batch and 1,630 for three batches in flight, more than systemd's soft limit of 1,024. And the
/// inodes those originals freed at once were reused only as later copies were made: on an ext4 without a journal
/// each new inode skips every inode freed in an earlier second (`recently_deleted`), so whatever was freed and not yet
/// reused when a second turned was passed over by every copy after it. The daemon's CPU an entry in 5,000-entry
/// bursts there (`bench/run.py`'s, five runs each, the binaries alternated): 148–256 µs, median 206, before; 142–146,
/// median 146, settled chunk by chunk. Journaled 144–152 before, 148–156 after; tmpfs 78–84 before, 76–78 after. The
/// descriptors a 5,000-entry burst held at most (sampled): 1,059 before, 159 after.
enum EntryBatch {
    /// The bytes of entries a batch reads before it stops, the rest of its names handed back (`unprocessed`) to
    /// wait in the queue: a batch holds the text of what it read until its transaction, and 512 entries of the
    /// largest size (`inbox.max_bytes`, 16 MiB by default) would be 8 GiB. A batch holds at most this and its last
    /// entry. Entries of a few KiB, as diaries' are, fill a batch of 512 (about 1 MiB) long before this.
    static let textBudget = 4 << 20

    /// The entries whose copies are written before the first of them is synced. Each copy's writeback starts as it
    /// is written (`StampOptions.startsWriteback`), so its blocks are allocated in the journal's running transaction;
    /// the first copy's fsync commits that transaction, and each later copy's finds its own data written and its
    /// transaction committed. Synced one by one as they were written, each copy's fsync waited for a commit of its
    /// own: 2,246–2,365 files a second on a fresh journaled ext4, 5,224–5,444 written together in 32s (a Python
    /// loop of the same calls, 2,000 files; CPU 102–109 → 88 µs a file). Each copy is still on the disk before its
    /// name points at it; a chunk holds two descriptors an entry (the original and its copy) until it is settled.
    static let writtenTogether = 32

    /// The memory a batch consults and tells: the state database, and each file's path in it (relative to the
    /// inbox; nil for a file outside it, which is not remembered).
    struct Memory: Sendable {
        var database: any EntryStore
        var key: @Sendable (String) -> String? = { $0 }
    }

    /// What a batch did to its files, and what the memory it asked is told of it once they are durable.
    struct Done: Sendable {
        var outcome: BatchOutcome
        /// The blocks to remember (`StampMemory.remember`).
        var records: [StampRecord] = []
        /// What the diary index learnt (in the same transaction).
        var index: [DiaryIndexItem] = []
        /// The memory the batch asked, and tells (nil: none).
        var memory: Memory?

        /// Whether there is anything to tell.
        var tellsMemory: Bool { self.memory != nil && (!self.records.isEmpty || !self.index.isEmpty) }

        /// Tells the memory, in one transaction (nothing to tell: none), on the calling thread.
        func remember() {
            guard let memory, self.tellsMemory else { return }
            memory.database.remember(self.records, index: self.index, at: Date())
        }

        /// Tells the memory (`remember`), then gives the outcome: for a caller whose batches wait for no other
        /// (`weathertag stamp`, the tests).
        @discardableResult
        func remembered() -> BatchOutcome {
            self.remember()
            return self.outcome
        }
    }

    /// What the daemon lends a batch besides its names and memory: none of it changes what is written.
    struct Context {
        /// Counts each entry done, for the watchdog's look at a long batch.
        var progress: StampingProgress?
        /// The watcher's listings of editors' lock files (nil, or not keeping: the batch lists each folder itself).
        var locks: EditorLockCache?
        /// Notes the entry being stamped, so that one that kills the process is set aside at the next start.
        var crashGuard: CrashGuard?
        /// Where tests act, for each entry written.
        var hooks = EntryFile.Hooks()
    }

    /// The batch's files, on the calling thread: each entry read and stamped, the folders written in synced, late
    /// writers' saves put back. The memory is asked (what to restore, what the index holds already) but not told:
    /// the caller tells it (`Done.remember`, or `remembered` for the outcome after it), before the outcome is
    /// reported. The daemon does that in its turn among batches (`InboxFiles.stamp`), so that a batch waiting to
    /// write holds no thread that could read the next one.
    ///
    /// - Parameters:
    ///   - names: paths relative to `folder`, or as they are when `folder` is nil.
    ///   - folder: the inbox (nil: `names` are paths as they are).
    ///   - memory: entries without a block get their remembered one back; every block is remembered, in one
    ///     transaction after the batch.
    ///   - options: how each entry is stamped (`replacing`: new weather on purpose: the memory is not asked and an
    ///     existing block is replaced); the batch syncs its folders and settles the originals itself.
    static func stampFiles(
        _ names: [String],
        in folder: String?,
        lines: [String]?,
        options: StampOptions,
        memory: Memory? = nil,
        context: Context = Context()
    ) -> Done {
        // Noted before the first file is read: should one of them kill the process, the next start sets it aside.
        let note = context.crashGuard?.begin(names)
        defer { if let crashGuard = context.crashGuard, let note { crashGuard.end(note) } }
        // What the memory holds for the batch's entries, asked once: the blocks for those that turn out to have none,
        // and the versions the index has read (a file it has read in this version is not read for it again).
        let keys = memory.map { names.compactMap($0.key) } ?? []
        let recalled = memory?.database.recall(keys, restoring: !options.replacing, now: Date()) ?? EntryRecall()
        var options = options
        options.syncsFolder = false
        options.handsBackOriginal = true
        options.startsWriteback = names.count > 1
        var run = Run(
            names: names, folder: folder, lines: lines, options: options, memory: memory, recalled: recalled,
            context: context, note: note)
        while !run.stopped, run.next < names.count {
            run.finish(run.prepareChunk())
        }
        // What the batch did not reach waits in the queue (after a failure, the failed entry is not among them).
        run.outcome.unprocessed += names[run.next...]
        note?.reach(nil)
        return Done(outcome: run.outcome, records: run.records, index: run.index, memory: memory)
    }

    /// A batch on its way: what it stamps with, how far it got, and what it has to tell so far.
    private struct Run {
        let names: [String]
        let folder: String?
        let lines: [String]?
        let options: StampOptions
        let memory: Memory?
        let recalled: EntryRecall
        let context: Context
        let note: CrashGuard.Note?
        /// The watcher's listings of editors' lock files, or this batch's own.
        let locks: EditorLockCache
        /// The first name not prepared yet.
        var next = 0
        /// The bytes read so far (`textBudget`).
        var held = 0
        /// A write failed, or the budget is spent: no more is prepared.
        var stopped = false
        var outcome = BatchOutcome()
        var records: [StampRecord] = []
        var index: [DiaryIndexItem] = []
        /// The folders the chunk wrote in, each synced once its exchanges are done (`settle`).
        var written: Set<String> = []
        /// The chunk's swapped-out originals, open until their folders are synced (`settle`).
        var originals: [(index: Int, original: EntryFile.SwappedOriginal)] = []

        init(
            names: [String], folder: String?, lines: [String]?, options: StampOptions, memory: Memory?,
            recalled: EntryRecall, context: Context, note: CrashGuard.Note?
        ) {
            (self.names, self.folder, self.lines, self.options) = (names, folder, lines, options)
            (self.memory, self.recalled, self.context, self.note) = (memory, recalled, context, note)
            // Without the watcher's cache, this batch's own listings.
            self.locks = context.locks.flatMap { $0.isKeeping ? $0 : nil } ?? EditorLockCache(keeping: false)
        }

        /// The next names, up to `writtenTogether`, prepared: each copy written, none synced yet.
        mutating func prepareChunk() -> [(index: Int, stamp: EntryFile.Preparation)] {
            var chunk: [(index: Int, stamp: EntryFile.Preparation)] = []
            while self.next < self.names.count, chunk.count < EntryBatch.writtenTogether, !self.stopped {
                let (index, name) = (self.next, self.names[self.next])
                self.next += 1
                self.note?.reach(index)
                let key = self.memory?.key(name)
                let (blocks, crashGuard, database) = (
                    self.recalled.blocks, self.context.crashGuard, self.memory?.database
                )
                let known = EntryFile.Known(
                    remembered: { key.flatMap { blocks[$0] } }, template: self.options.template(name),
                    provenance: { block in
                        guard let key, let database else { return .unknown }
                        return database.provenance(of: block, at: key)
                    }, setAside: { crashGuard?.holds(name, $0) ?? false }, locks: self.locks)
                do {
                    let stamp = try EntryFile.prepare(
                        path: EntryBatch.path(name, in: self.folder), lines: self.lines, options: self.options,
                        known: known)
                    chunk.append((index, stamp))
                    switch stamp {
                    case .done(let stamped): self.held += stamped.read?.content.count ?? 0
                    case .written(let prepared): self.held += prepared.content.count
                    }
                    if self.held >= self.options.textBudget, self.next < self.names.count { self.stopped = true }
                } catch {
                    self.fail(name, error)
                }
            }
            return chunk
        }

        /// The chunk's copies synced, then exchanged, every entry told in the order of the names, and the chunk
        /// settled. After a failed one, the copies not exchanged yet are dropped and their entries wait as they were.
        ///
        /// All the copies are synced before the first is exchanged: an exchange changes the copy's inode, and on an
        /// ext4 without a journal each fsync after one wrote the inode table's block again (the chunk's inodes share
        /// it) and waited for it, three waits a copy where one is left (the device's flush).
        mutating func finish(_ prepared: [(index: Int, stamp: EntryFile.Preparation)]) {
            var chunk = prepared
            // The copy whose sync failed (its failure told): it and every copy after it are dropped.
            var failedSync: Int?
            for position in chunk.indices {
                guard case .written(var copy) = chunk[position].stamp else { continue }
                self.note?.reach(chunk[position].index)
                do {
                    try copy.sync(self.context.hooks)
                } catch {
                    self.fail(self.names[chunk[position].index], error)
                    failedSync = position
                }
                // (Closed either way: `abandon` must not close its descriptor again.)
                chunk[position].stamp = .written(copy)
                if failedSync != nil { break }
            }
            var failed = false
            for (position, (index, stamp)) in chunk.enumerated() {
                let name = self.names[index]
                if position == failedSync { failed = true }
                switch stamp {
                case .done(let stamped): self.record(name, stamped)
                case .written(let copy) where failed:
                    EntryFile.abandon(copy)
                    if position != failedSync { self.outcome.unprocessed.append(name) }
                case .written(let copy):
                    self.note?.reach(index)
                    do {
                        self.record(name, try EntryFile.finish(copy, options: self.options, hooks: self.context.hooks))
                    } catch {
                        failed = true
                        self.fail(name, error)
                    }
                }
            }
            self.settle()
        }

        /// Durable first, then told: the folders the chunk wrote in are fsynced before the memory and the report
        /// (which come after the whole batch). Then the originals are settled and closed: a late writer's save, put
        /// back under its entry's name, makes that entry's result `.changedWhileStamping` (it is stamped again). A
        /// folder that cannot be synced is the batch's failure, and it stops.
        private mutating func settle() {
            // Past its entries: a crash from here on sets none of them aside.
            self.note?.reach(nil)
            for directory in self.written.sorted() {
                do {
                    try FileIO.fsyncDirectory(directory)
                } catch {
                    self.stopped = true
                    guard self.outcome.failure == nil else { continue }
                    let folder = self.folder
                    let name = self.outcome.results.last {
                        FileIO.split(EntryBatch.path($0.0, in: folder)).0 == directory
                    }?.0
                    self.outcome.failure = (name ?? directory, error)
                }
            }
            for (index, original) in self.originals where (try? original.settle()) != false {
                self.outcome.results[index].1 = .changedWhileStamping
            }
            self.written = []
            self.originals = []
        }

        /// A write failed: no more is prepared; the first failure is the batch's, later ones wait in the queue.
        private mutating func fail(_ name: String, _ error: any Error) {
            self.stopped = true
            if self.outcome.failure == nil {
                self.outcome.failure = (name, error)
            } else {
                self.outcome.unprocessed.append(name)
            }
        }

        /// One entry's stamp: its result, what the index learns, the block to remember, the folder to sync.
        private mutating func record(_ name: String, _ stamped: EntryFile.Stamped) {
            let key = self.memory?.key(name)
            let (result, read, block) = (stamped.result, stamped.read, stamped.block)
            if let original = stamped.original { self.originals.append((self.outcome.results.count, original)) }
            self.outcome.results.append((name, result))
            if let key, let lane = LaneState.of(result) {
                var frontMatter = stamped.frontMatter
                if frontMatter == nil, case .stamped = result, let lines = self.lines {
                    // The front matter of an entry stamped without one, the same for each (composed once; used by
                    // the reader only when the file's front matter is this text).
                    frontMatter = ComposedFrontMatter.block(lines)
                }
                self.index.append(
                    EntryBatch.indexItem(
                        key, lane: lane, read: read, frontMatter: frontMatter, indexed: self.recalled.indexed[key]))
            }
            // Written (stamped or restored): its folder is synced once the chunk is done.
            if let origin = EntryBatch.origin(of: result), origin != .found {
                self.written.insert(FileIO.split(EntryBatch.path(name, in: self.folder)).0)
            }
            if let key, let block, let origin = EntryBatch.origin(of: result) {
                self.records.append(StampRecord(path: key, block: block, origin: origin))
            }
            self.context.progress?.advance()
        }
    }

    /// What the index learns of one entry: its lane, and what it holds when it was read in a version not indexed yet.
    fileprivate static func indexItem(
        _ key: String, lane: LaneState, read: (content: [UInt8], modified: Date, version: FileVersion)?,
        frontMatter: ComposedFrontMatter?, indexed: String?
    ) -> DiaryIndexItem {
        let fileName = Paths.fileName(key)
        if let read, read.version.indexed != indexed {
            let entry = DiaryEntry.read(
                read.content, fileName: fileName, modified: read.modified, composed: frontMatter,
                weatherIsItsOwn: lane.weatherIsItsOwn)
            // (The placeholder's time is for a row without its entry: this one has it.)
            return DiaryIndexItem(
                path: key, version: read.version, entry: entry, lane: lane, placeholderTime: entry.time)
        }
        return DiaryIndexItem(
            path: key, version: nil, entry: nil, lane: lane,
            placeholderTime: EntryTime.of(
                fields: [:], fileName: fileName, modified: read?.modified ?? Date(), timeZone: .current))
    }

    fileprivate static func path(_ name: String, in folder: String?) -> String {
        folder.map { $0 + "/" + name } ?? name
    }

    fileprivate static func origin(of result: EntryResult) -> StampRecord.Origin? {
        switch result {
        case .stamped: return .stamped
        case .restored: return .restored
        case .alreadyStamped: return .found
        default: return nil
        }
    }
}
