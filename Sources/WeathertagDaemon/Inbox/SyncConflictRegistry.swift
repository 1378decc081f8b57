import Logging
import Synchronization
import WeathertagCore

/// The sync tools' conflict copies in the inbox (`SyncConflict`), by path relative to the inbox: what `status` shows
/// in the `conflict` lane. A complete listing sets them all; between listings the watcher reports each copy that
/// comes or goes, so a copy the author deletes leaves the lane at once.
final class SyncConflictRegistry: Sendable {
    private let copies = Mutex<[String: SyncConflict]>([:])
    private let tree: InboxTree
    private let logger: Logger

    init(tree: InboxTree, logger: Logger) {
        self.tree = tree
        self.logger = logger
    }

    /// The copies, in path order.
    var all: [SyncConflict] {
        self.copies.withLock { $0 }.values.sorted { $0.copy < $1.copy }
    }

    var count: Int { self.copies.withLock { $0.count } }

    /// What a complete listing found.
    func listed(_ found: [String: SyncConflict]) {
        let new = self.copies.withLock { copies in
            defer { copies = found }
            return found.filter { copies[$0.key] == nil }
        }
        for conflict in new.values.sorted(by: { $0.copy < $1.copy }) { self.report(conflict) }
    }

    /// A file came (`present`) or went at `path`; nothing happens unless its name is a conflict copy's.
    func observe(_ path: String, present: Bool) {
        guard let conflict = self.tree.conflict(path) else { return }
        if present {
            if self.copies.withLock({ $0.updateValue(conflict, forKey: path) }) == nil { self.report(conflict) }
        } else if self.copies.withLock({ $0.removeValue(forKey: path) }) != nil {
            self.logger.info("sync conflict copy gone", metadata: ["copy": "\(path)"])
        }
    }

    /// A folder went: so did the copies in it.
    func folderGone(_ folder: String) {
        self.copies.withLock { copies in
            for path in copies.keys where path.hasPrefix(folder + "/") { copies[path] = nil }
        }
    }

    private func report(_ conflict: SyncConflict) {
        self.logger.warning(
            "sync conflict copy, left as it is",
            metadata: [
                "copy": "\(conflict.copy)", "entry": "\(conflict.entry)", "tool": "\(conflict.tool.rawValue)",
                "remedy": "\(conflict.remedy)",
            ])
    }
}
