import FoundationEssentials
import WeathertagCore

/// A file of the inbox holding a weather block weathertag wrote where it should not have: a template, or a note
/// that is no entry now (outside a vault's entries folders). An older version stamped every note.
package struct MisplacedStamp: Sendable, Equatable {
    /// Relative to the inbox.
    package var path: String
    /// When weathertag wrote the block, when the memory says.
    package var at: Date?
    /// What the file is, in words: `a template: it is in Templates/, …`.
    package var what: String
}

extension ServiceFactory {
    /// What `check` names: the files of the inbox holding a block weathertag remembers writing that is no entry's
    /// weather (templates, by the vault's settings or as the daemon found them, and notes that are no entries
    /// now), each to be cleaned with `weathertag stamp --remove`. Empty without a state database; read, never made.
    package func misplacedStamps() async -> [MisplacedStamp] {
        let configuration = self.configuration
        let file = configuration.state.directory + "/" + StateDatabase.fileName
        guard configuration.state.enabled, FileManager.default.fileExists(atPath: file),
            let database = await self.stateDatabase()
        else { return [] }
        let (tree, inbox) = (configuration.inbox.tree, configuration.inbox.path)
        let found = try? await self.threadPool.runIfActive { () throws -> [MisplacedStamp] in
            let written = try database.memory.written()
            let when = Dictionary(written.map { ($0.path, $0.at) }, uniquingKeysWith: { first, _ in first })
            // The templates the daemon found holding a block it wrote (by their placeholders too).
            let indexed = try database.diary.entries(
                EntryQuery(lane: .leftAlone, reason: .stampedTemplate, limit: EntryQuery.maximumLimit)
            ).entries
            var misplaced = indexed.map { entry in
                MisplacedStamp(
                    path: entry.path, at: when[entry.path] ?? nil,
                    what: entry.lane.detail.map { String($0.english.prefix { $0 != ";" }) } ?? "a template")
            }
            for (path, at) in written where !misplaced.contains(where: { $0.path == path }) {
                if let template = tree.template(path) {
                    misplaced.append(MisplacedStamp(path: path, at: at, what: template.description))
                } else if !tree.isEntry(path), FileManager.default.fileExists(atPath: inbox + "/" + path) {
                    let what = tree.explain(path) ?? "not one of the diary's entries"
                    misplaced.append(MisplacedStamp(path: path, at: at, what: "no entry now: \(what)"))
                }
            }
            return misplaced.sorted { $0.path < $1.path }
        }
        return found ?? []
    }
}
