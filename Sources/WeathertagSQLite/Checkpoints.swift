import CSQLite
import NIOPosix
import Synchronization

/// The WAL copied into the database beside the writer rather than in its commits.
///
/// SQLite's automatic checkpoint runs inside the commit that takes the WAL past `wal_autocheckpoint` pages: that
/// commit copies every page into the database and fsyncs both files before it returns. In a 50,000-entry index
/// rebuild those were 20 of 111 commits, 31–53 ms each where the others took 1–3 ms: 0.33 s of the writer's 2.0 s,
/// and the writer is the part of a rebuild that runs on one thread at a time (docs/PERFORMANCE.md).
///
/// Here the writer's commits only note how long the WAL has grown (SQLite's WAL hook, in place of the automatic
/// checkpoint's). Once `pages` pages wait, a PASSIVE checkpoint runs elsewhere (the thread pool), on a connection of
/// its own, while the writer goes on; one at a time. A writer that gets four times `pages` ahead (the pool busy or
/// stopped) checkpoints in its own commit, as SQLite would, so the WAL stays bounded. The WAL starts over from its
/// beginning at the first write after a checkpoint has copied all of it.
final class Checkpoints: Sendable {
    private struct State {
        /// A checkpoint is scheduled or running.
        var running = false
        /// The WAL's frames copied by the last checkpoint (0 once the WAL started over).
        var copied = 0
        /// The checkpoints' own connection, opened at the first; nil again once closed.
        var connection: Connection = .notOpened
    }

    private enum Connection {
        case notOpened
        case open(Exclusive)
        case closed
    }

    /// What the writer's commit does about the WAL's length.
    private enum Decision {
        case nothing
        case schedule
        case checkpointHere
    }

    private let path: String
    private let busyTimeout: Duration
    /// Pages waiting in the WAL that start a checkpoint.
    let pages: Int
    /// The longest a checkpoint waits for the writer's transaction or for a reader.
    static let patience: Duration = .milliseconds(100)
    private let schedule: @Sendable (_ job: @escaping Job) -> Void
    private let state = Mutex(State())

    /// A checkpoint to run off the writer's thread: `job(true)` runs it, `job(false)` drops it (the pool stops).
    typealias Job = @Sendable (_ runs: Bool) -> Void

    /// - Parameter schedule: runs its job off the writer's thread (the daemon's: on the thread pool).
    init(path: String, busyTimeout: Duration, pages: Int, schedule: @escaping @Sendable (_ job: @escaping Job) -> Void)
    {
        self.path = path
        // RESTART holds the writer's lock while it waits for readers on older snapshots: a long read (an integrity
        // check, another process's query) would otherwise hold the writer back for the whole busy timeout. Past
        // this the checkpoint gives up what is left, and the next one copies it.
        self.busyTimeout = min(busyTimeout, Self.patience)
        self.pages = pages
        self.schedule = schedule
    }

    /// Replaces the writer's automatic checkpoint with this one. `self` must outlive `writer`'s connection (the
    /// pool closes it first).
    func watch(_ writer: Database) {
        sqlite3_wal_hook(writer.handle, walHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The writer committed; the WAL holds `pages` frames.
    fileprivate func committed(walPages: Int, writer: OpaquePointer?) {
        let decision = self.state.withLock { state -> Decision in
            if walPages < state.copied { state.copied = 0 }
            let waiting = walPages - state.copied
            if waiting >= 4 * self.pages { return .checkpointHere }
            guard waiting >= self.pages, !state.running else { return .nothing }
            state.running = true
            return .schedule
        }
        switch decision {
        case .nothing:
            break
        case .schedule:
            self.schedule { runs in
                if runs { self.run() } else { self.state.withLock { $0.running = false } }
            }
        case .checkpointHere:
            guard let writer else { return }
            var frames: Int32 = 0
            var copied: Int32 = 0
            if sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied) == SQLITE_OK {
                self.state.withLock { $0.copied = Int(copied) }
            }
        }
    }

    /// One checkpoint, on the checkpoints' connection (opened now if it is not yet).
    private func run() {
        let connection = self.state.withLock { state -> Exclusive? in
            switch state.connection {
            case .open(let connection): return connection
            case .closed: return nil
            case .notOpened:
                // A read first: a connection knows the file is in WAL mode once it has read it (before, a
                // checkpoint returns at once, saying there is no WAL).
                guard let database = try? Database(path: self.path, readOnly: false, busyTimeout: self.busyTimeout),
                    (try? database.execute(sql: "SELECT 1 FROM sqlite_schema LIMIT 1")) != nil
                else { return nil }
                let connection = Exclusive(database)
                state.connection = .open(connection)
                return connection
            }
        }
        var frames: Int32 = 0
        var copied: Int32 = 0
        let status = try? connection?.run { db in
            // Most of the WAL is copied while the writer goes on; then what it committed meanwhile, with its next
            // transaction waiting (RESTART): otherwise the WAL, never copied whole between two commits, would never
            // start over.
            let status = sqlite3_wal_checkpoint_v2(db.handle, nil, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied)
            guard status == SQLITE_OK else { return status }
            return sqlite3_wal_checkpoint_v2(db.handle, nil, SQLITE_CHECKPOINT_RESTART, &frames, &copied)
        }
        self.state.withLock { state in
            state.running = false
            if status == SQLITE_OK { state.copied = Int(copied) }
        }
    }

    /// Closes the checkpoints' connection (after one that is running); none opens again.
    func close() {
        let connection = self.state.withLock { state -> Exclusive? in
            defer { state.connection = .closed }
            guard case .open(let connection) = state.connection else { return nil }
            return connection
        }
        connection?.close()
    }
}

private let walHook: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 =
    { context, writer, _, pages in
        guard let context else { return SQLITE_OK }
        Unmanaged<Checkpoints>.fromOpaque(context).takeUnretainedValue().committed(
            walPages: Int(pages), writer: writer)
        return SQLITE_OK
    }
