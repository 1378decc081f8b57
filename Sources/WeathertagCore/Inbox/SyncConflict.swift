/// A sync tool's conflict copy of an entry: two devices changed the same file, and the tool kept both versions, one
/// under a name of its own beside the entry. Such a copy is the author's to merge: it is never stamped (each stamp
/// would be one more rewrite for the tool to carry back, and one more chance of a new conflict) and never listed as
/// an entry; it is shown in the `conflict` lane with the entry it belongs to.
///
/// The names, as the tools document them, for an entry `NAME.md`:
///
/// | tool | conflict copy |
/// |---|---|
/// | Syncthing | `NAME.sync-conflict-YYYYMMDD-HHMMSS-DEVICE.md` (the first 7 characters of the device ID) |
/// | Nextcloud, ownCloud ≥ 2.5 | `NAME (conflicted copy YYYY-MM-DD HHMMSS).md` |
/// | ownCloud before 2.5 | `NAME_conflict-YYYYMMDD-HHMMSS.md` |
/// | Dropbox | `NAME (USER's conflicted copy YYYY-MM-DD).md`, with ` (N)` for a second one that day; `NAME (Case Conflict).md`, `NAME (Case Conflict N).md` |
/// | Resilio Sync | `NAME.Conflict.md`, `NAME.ConflictN.md` |
///
/// Obsidian Sync merges Markdown instead of keeping copies, so it has no names to recognise.
package struct SyncConflict: Sendable, Equatable, CustomStringConvertible {
    package enum Tool: String, Sendable, Equatable, CaseIterable {
        case syncthing = "Syncthing"
        case nextcloud = "Nextcloud or ownCloud"
        case owncloud = "ownCloud"
        case dropbox = "Dropbox"
        case resilio = "Resilio Sync"
    }

    /// The conflict copy's name (its path in the inbox, from `InboxTree.conflict`).
    package var copy: String
    /// The name of the entry it is a version of, in the same folder (its path in the inbox, likewise).
    package var entry: String
    package var tool: Tool

    package init(copy: String, entry: String, tool: Tool) {
        self.copy = copy
        self.entry = entry
        self.tool = tool
    }

    /// What the author does about it.
    package var remedy: String { "merge it into \(self.entry) and delete it" }

    package var description: String { "a \(self.tool.rawValue) conflict copy of \(self.entry): \(self.remedy)" }

    /// The conflict a file name is, or nil for any other name (an entry, a temp file, a note that only mentions a
    /// conflict). Only Markdown names are looked at, as only they could be entries.
    package static func recognize(_ name: String) -> SyncConflict? {
        // Every pattern holds the word: most names are ruled out by their bytes, without a regular expression (the
        // watcher asks for every name it sees).
        guard Self.mentionsConflict(name) else { return nil }
        let lower = name.lowercased()
        guard let suffix = [".md", ".markdown"].first(where: { lower.hasSuffix($0) }),
            !name.hasPrefix(".")
        else { return nil }
        let stem = String(name.dropLast(suffix.count))
        let original = String(name.suffix(suffix.count))
        for pattern in Self.patterns {
            guard let match = stem.wholeMatch(of: pattern.regex), !match.output.1.isEmpty else { continue }
            return SyncConflict(copy: name, entry: String(match.output.1) + original, tool: pattern.tool)
        }
        return nil
    }

    /// Whether `name` holds "conflict" in any case of its ASCII letters.
    private static func mentionsConflict(_ name: String) -> Bool {
        let word = Array("conflict".utf8)
        let bytes = Array(name.utf8)
        guard bytes.count >= word.count else { return false }
        for start in 0...(bytes.count - word.count) {
            var matched = 0
            // ASCII letters' lower case is their 0x20 bit.
            while matched < word.count, bytes[start + matched] | 0x20 == word[matched] { matched += 1 }
            if matched == word.count { return true }
        }
        return false
    }

    private struct Pattern: @unchecked Sendable {
        // Regex is not Sendable; these are built once, never mutated, and only matched against.
        let regex: Regex<(Substring, Substring)>
        let tool: Tool
    }

    private static let patterns: [Pattern] = [
        Pattern(regex: #/(.+)\.sync-conflict-\d{8}-\d{6}-[A-Z0-9]{7}/#, tool: .syncthing),
        Pattern(regex: #/(.+) \(conflicted copy \d{4}-\d{2}-\d{2} \d{6}\)/#, tool: .nextcloud),
        Pattern(regex: #/(.+)_conflict-\d{8}-\d{6}/#, tool: .owncloud),
        Pattern(regex: #/(.+) \([^()]+'s conflicted copy \d{4}-\d{2}-\d{2}\)(?: \(\d+\))?/#, tool: .dropbox),
        Pattern(regex: #/(.+) \(Case Conflict(?: \d+)?\)/#, tool: .dropbox),
        Pattern(regex: #/(.+)\.Conflict(?: ?\d+)?/#, tool: .resilio),
    ]
}
