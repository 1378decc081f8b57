import Foundation
import Logging
import WeathertagCore

extension InboxService {
    /// The candidate names in the inbox that may need work, sorted, and every name present (nil when the folder
    /// cannot be listed or nothing is remembered as settled); removes temp files a crash left behind.
    func list(skipping unchanged: [String: FileVersion]) async -> (candidates: [String], present: Set<String>?) {
        let inbox = self.inbox
        do {
            let (listing, removed) = try await self.threadPool.runIfActive {
                let names = try FileManager.default.contentsOfDirectory(atPath: inbox)
                let removed = FileIO.removeStaleTemporaries(in: inbox, names: names)
                let candidates = names.filter(InboxFilter.isCandidate).filter { name in
                    guard let known = unchanged[name] else { return true }
                    return FileVersion.current(inbox + "/" + name) != known
                }
                return ((candidates.sorted(), unchanged.isEmpty ? nil : Set(names)), removed)
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
