import FoundationEssentials

/// What is remembered of an entry: its weather block as it stood in the file, so that the entry gets the same block
/// back (never new weather) should it return without one: an editor saving its old buffer, rsync, tar, unzip or
/// git writing the unstamped version again.
package struct RememberedStamp: Sendable, Equatable {
    /// The block's lines as they were in the file, without line ends: `weather:` and the lines under it.
    package var block: [String]
    /// When the entry left the inbox (deleted, or moved out); nil while it is there.
    package var removedAt: Date?

    package init(block: [String], removedAt: Date? = nil) {
        self.block = block
        self.removedAt = removedAt
    }
}

/// How an entry's path changed, as the watcher saw it; the memory follows.
package enum PathChange: Sendable, Equatable {
    /// A file, or a folder and everything below it, renamed within the inbox (the two halves of a move paired by
    /// their cookie).
    case renamed(from: String, to: String)
    /// A file, or a folder and everything below it, deleted or moved out of the inbox.
    case removed(String)
}

/// When the memory gives a block back.
///
/// A removed entry is not forgotten at once: git and tar replace a file by deleting it and creating it again, and
/// the entry written back a moment later is the same entry. One that comes back after `forgetAfter` is a new entry
/// and gets new weather.
package struct RestorePolicy: Sendable, Equatable {
    /// How long a removed entry's block is kept for its return.
    package var forgetAfter: TimeInterval

    package static let defaultForgetAfter: TimeInterval = 600

    package init(forgetAfter: TimeInterval = Self.defaultForgetAfter) {
        self.forgetAfter = forgetAfter
    }

    /// The block to write into an entry that has none, or nil for new weather.
    ///
    /// - Parameter fresh: new weather is asked for on purpose (`stamp --fresh`).
    package func block(for remembered: RememberedStamp?, now: Date, fresh: Bool = false) -> [String]? {
        guard !fresh, let remembered, !remembered.block.isEmpty else { return nil }
        if let removedAt = remembered.removedAt, self.isForgotten(removedAt: removedAt, now: now) { return nil }
        return remembered.block
    }

    /// Whether an entry removed at `removedAt` is forgotten by `now`.
    package func isForgotten(removedAt: Date, now: Date) -> Bool {
        now.timeIntervalSince(removedAt) >= self.forgetAfter
    }

    /// The oldest removal still remembered at `now`: older ones can be deleted from the memory.
    package func forgottenBefore(_ now: Date) -> Date {
        now.addingTimeInterval(-self.forgetAfter)
    }
}

/// The path a remembered entry has after a rename of `from` (a file, or a folder) to `to`; nil when the rename
/// does not concern it.
extension PathChange {
    package static func renamed(_ path: String, from: String, to: String) -> String? {
        if path == from { return to }
        guard path.hasPrefix(from + "/") else { return nil }
        return to + path.dropFirst(from.count)
    }
}

extension PathChange {
    /// What a move means for the memory. `from` is nil for a file moved in from outside, `to` nil for one moved
    /// out. Only entries (and folders) are remembered: a temp file renamed over an entry (rsync, editors that save
    /// atomically) changes nothing; an entry renamed to something that is not one (vim's `NAME~` backup) has left.
    package static func move(from: String?, to: String?, isFolder: Bool, tree: InboxTree) -> PathChange? {
        let fromCounts = from.map { isFolder ? tree.follows(folder: $0) : tree.isEntry($0) } ?? false
        let toCounts = to.map { isFolder ? tree.follows(folder: $0) : tree.isEntry($0) } ?? false
        switch (from, to) {
        case (let from?, let to?) where fromCounts && toCounts: return .renamed(from: from, to: to)
        case (let from?, _) where fromCounts: return .removed(from)
        default: return nil
        }
    }
}
