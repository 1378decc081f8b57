import FoundationEssentials
import Logging
import WeathertagCore

/// One listing of the inbox (on the thread pool): the names that may need work, the names present, the memory
/// reconciled with what is there, and the temp files a crash left behind removed. The machine hands the candidates to
/// the diary index (`.notice`) after the batches they start.
enum InboxListing {
    struct Result {
        /// Sorted.
        var candidates: [String]
        /// Every name present; nil when nothing is remembered as settled (`unchanged` empty).
        var present: Set<String>?
        /// Temp files of an interrupted stamp (and staging folders of an interrupted import), removed.
        var removed: [String]
        /// The sync tools' conflict copies, by path; nil when a folder could not be read (the listing is not complete).
        var conflicts: [String: SyncConflict]?
    }

    /// Throws when the inbox itself cannot be read; a folder below it that cannot is given to `failed` and passed
    /// over (and the memory is not reconciled, as the listing is not complete).
    static func list(
        _ inbox: String, tree: InboxTree, skipping unchanged: [String: FileVersion], memory: (any EntryStore)?,
        failed: (String, any Error) -> Void
    ) throws -> Result {
        try InboxWalk.open(inbox)
        var candidates: [String] = []
        var present: Set<String> = []
        var entries: Set<String> = []
        var removed: [String] = []
        var conflicts: [String: SyncConflict] = [:]
        var complete = true
        // Unsorted: the candidates are sorted once, at the end.
        InboxWalk.walk(
            inbox: inbox, tree: tree, reading: .unsorted,
            visit: { folder, contents in
                removed += FileIO.removeStaleTemporaries(in: InboxWalk.path(inbox, folder), names: contents.files)
                // An import's staging folder a crash or a power cut left (hidden: never walked into).
                removed += FileIO.removeStaleTemporaryFolders(
                    in: InboxWalk.path(inbox, folder), names: contents.folders.filter(FileIO.isStaleTemporary))
                for name in contents.files {
                    let path = InboxTree.join(folder, name)
                    if !unchanged.isEmpty { present.insert(path) }
                    guard tree.isEntry(path) else {
                        if let conflict = tree.conflict(path) { conflicts[path] = conflict }
                        continue
                    }
                    if memory != nil { entries.insert(path) }
                    if let known = unchanged[path], FileVersion.current(inbox + "/" + path) == known { continue }
                    candidates.append(path)
                }
            },
            failed: { folder, error in
                complete = false
                failed(folder, error)
            })
        // What left the inbox while nobody watched starts its grace time in the memory; a note that is no entry now
        // (outside a vault's entries folders) is still there, and what weathertag wrote into it stays known.
        if complete {
            memory?.reconcile(present: entries, at: Date()) { path in
                FileVersion.current(inbox + "/" + path) != nil
            }
        }
        return Result(
            candidates: candidates.sorted(), present: unchanged.isEmpty ? nil : present, removed: removed,
            conflicts: complete ? conflicts : nil)
    }
}
