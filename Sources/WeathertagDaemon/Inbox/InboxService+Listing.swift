import Foundation
import Logging
import WeathertagCore

extension InboxService {
    /// The candidate names in the inbox that may need work, sorted, and every name present (nil when the folder
    /// cannot be listed or nothing is remembered as settled); removes temp files a crash left behind.
    func list(skipping unchanged: [String: FileVersion]) async -> (candidates: [String], present: Set<String>?) {
        let inbox = self.inbox
        do {
            let tree = self.configuration.tree
            let memory = self.memory
            let (listing, removed) = try await self.threadPool.runIfActive {
                // The inbox itself must be readable; a folder below it that is not is logged and passed over.
                _ = try InboxWalk.read(inbox)
                var candidates: [String] = []
                var present: Set<String> = []
                var entries: Set<String> = []
                var removed: [String] = []
                var complete = true
                InboxWalk.walk(
                    inbox: inbox, tree: tree,
                    visit: { folder, contents in
                        removed += FileIO.removeStaleTemporaries(
                            in: InboxWalk.path(inbox, folder), names: contents.files)
                        for name in contents.files {
                            let path = InboxTree.join(folder, name)
                            if !unchanged.isEmpty { present.insert(path) }
                            guard tree.isEntry(path) else { continue }
                            if memory != nil { entries.insert(path) }
                            if let known = unchanged[path], FileVersion.current(inbox + "/" + path) == known {
                                continue
                            }
                            candidates.append(path)
                        }
                    },
                    failed: { folder, error in
                        complete = false
                        self.logger.warning(
                            "cannot list a folder of the inbox", metadata: ["folder": "\(folder)", "error": "\(error)"])
                    })
                // What left the inbox while nobody watched starts its grace time in the memory.
                if complete { memory?.reconcile(present: entries, at: Date()) }
                // In the index from now on, read when stamped.
                memory?.notice(candidates, inbox: inbox, at: Date())
                return ((candidates.sorted(), unchanged.isEmpty ? nil : present), removed)
            }
            self.statistics.update { $0.lastScanAt = Date() }
            if !removed.isEmpty {
                self.logger.notice(
                    "removed temp files left by an interrupted stamp",
                    metadata: ["count": "\(removed.count)", "inbox": "\(inbox)"]
                )
            }
            self.logger.debug("rescanned the inbox", metadata: ["to_look_at": "\(listing.0.count)"])
            return listing
        } catch {
            self.logger.error("cannot list the inbox", metadata: ["inbox": "\(inbox)", "error": "\(error)"])
            return ([], nil)
        }
    }
}
