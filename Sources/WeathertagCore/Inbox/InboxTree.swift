import FoundationEssentials

/// Which folders of the inbox are part of it: the rules the watcher and the listing share. Paths are relative to
/// the inbox (`2026/11/23.md`, `2026/11`); the inbox itself is `""`.
///
/// A folder is followed when the inbox is recursive, it is at most `maximumDepth` levels down, its name is not
/// hidden (`.git`, `.obsidian`, `.trash`, `.stversions`) and no `exclude` pattern matches it. Symbolic links to
/// folders are never followed (the walkers check that; this type only judges names).
package struct InboxTree: Sendable {
    package var recursive: Bool
    package var maximumDepth: Int
    package let excludes: [ExcludePattern]

    package init(recursive: Bool = true, maximumDepth: Int = 8, excludes: [String] = []) {
        self.recursive = recursive
        self.maximumDepth = maximumDepth
        self.excludes = excludes.compactMap(ExcludePattern.init)
    }

    /// Whether the folder at `path` (relative, not empty) is watched and listed.
    package func follows(folder path: String) -> Bool {
        guard self.recursive, !path.isEmpty else { return false }
        let components = path.split(separator: "/")
        guard components.count <= self.maximumDepth else { return false }
        guard !components.contains(where: { $0.hasPrefix(".") }) else { return false }
        return !self.isExcluded(path, isFolder: true)
    }

    /// Whether the file at `path` (relative) is an entry: a candidate name, in a followed folder, not excluded.
    package func isEntry(_ path: String) -> Bool {
        let (folder, name) = Self.split(path)
        guard InboxFilter.isCandidate(name) else { return false }
        if !folder.isEmpty, !self.follows(folder: folder) { return false }
        return !self.isExcluded(path, isFolder: false)
    }

    /// The sync tool's conflict copy at `path` (relative), where an entry could be, its `copy` and `entry` relative
    /// to the inbox too; nil for anything else. Such a copy is shown, never stamped (`SyncConflict`).
    package func conflict(_ path: String) -> SyncConflict? {
        let (folder, name) = Self.split(path)
        guard var conflict = SyncConflict.recognize(name) else { return nil }
        if !folder.isEmpty, !self.follows(folder: folder) { return nil }
        guard !self.isExcluded(path, isFolder: false) else { return nil }
        (conflict.copy, conflict.entry) = (path, Self.join(folder, conflict.entry))
        return conflict
    }

    /// What a file of the inbox at `path` (relative) is when it is not an entry, in words for `why`: a sync tool's
    /// conflict copy (its entry and the remedy), an editor's lock or swap file or a sync tool's temp file (whose
    /// entry), a temporary, a hidden file, a file in a hidden, excluded or too deep folder, an excluded file, or not
    /// Markdown. Nil for an entry.
    package func explain(_ path: String) -> String? {
        guard !self.isEntry(path) else { return nil }
        let (folder, name) = Self.split(path)
        if let conflict = self.conflict(path) {
            return "a \(conflict.tool.rawValue) conflict copy of \(conflict.entry), never stamped: \(conflict.remedy)"
        }
        if let entry = EditorLock.entry(forLockFile: name) {
            let lock =
                EditorLock.candidates(for: entry).first { $0.file == name }
                ?? EditorLock(file: name, editor: name.hasPrefix(".~") ? "Nextcloud or ownCloud" : "an editor")
            let entryPath = Self.join(folder, entry)
            return lock.isSyncTool
                ? "\(lock.editor)'s temp file for \(entryPath): it is renamed over the entry when complete, and the "
                    + "entry waits for it meanwhile"
                : "\(lock.editor)'s lock or swap file for \(entryPath): the entry waits while it is there"
        }
        let components = folder.split(separator: "/")
        if let hidden = components.first(where: { $0.hasPrefix(".") }) {
            return "in the hidden folder \(hidden), which is not part of the diary"
        }
        if !folder.isEmpty, !self.recursive {
            return "in a folder, and inbox.recursive is off: only the inbox's own files are entries"
        }
        if components.count > self.maximumDepth {
            return "deeper than inbox.max_depth (\(self.maximumDepth) folders)"
        }
        if !folder.isEmpty, let pattern = self.excludes.first(where: { $0.matches(folder, isFolder: true) }) {
            return "in a folder inbox.exclude leaves out ('\(pattern)')"
        }
        if let pattern = self.excludes.first(where: { $0.matches(path, isFolder: false) }) {
            return "left out by inbox.exclude ('\(pattern)')"
        }
        if name.hasPrefix(".") { return "a hidden file, which is not part of the diary" }
        let lower = name.lowercased()
        let temporary =
            name.hasSuffix("~") || name == "4913" || name.hasPrefix("~syncthing~")
            || [".swp", ".swx", ".tmp", ".part", ".crdownload"].contains(where: lower.hasSuffix)
        if temporary || lower.hasSuffix(".md") || lower.hasSuffix(".markdown") {
            return "a temporary name (an editor's, a sync tool's or a download's), stamped once it is renamed to "
                + "its final name"
        }
        return "not Markdown: only .md and .markdown files are entries"
    }

    /// `a/b/c.md` → (`a/b`, `c.md`); `c.md` → (`""`, `c.md`).
    package static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(ofASCII: UInt8(ascii: "/")) else { return ("", path) }
        return (String(path[..<slash]), String(path[path.utf8.index(after: slash)...]))
    }

    /// `folder` + `/` + `name`, or `name` at the top.
    package static func join(_ folder: String, _ name: String) -> String {
        folder.isEmpty ? name : folder + "/" + name
    }

    private func isExcluded(_ path: String, isFolder: Bool) -> Bool {
        self.excludes.contains { $0.matches(path, isFolder: isFolder) }
    }
}

/// One `inbox.exclude` pattern, as in a `.gitignore`: `drafts/` (a folder anywhere), `*.private.md` (a name
/// anywhere), `/archive` or `2019/*` (anchored at the inbox: the pattern has a `/` before its end), `**` for any
/// number of folders (the `Glob` syntax). A folder that matches takes everything below it along. Negation (`!`) is
/// not supported.
package struct ExcludePattern: Sendable, CustomStringConvertible {
    package let description: String
    private let glob: Glob
    private let foldersOnly: Bool

    /// Nil for an empty pattern or a comment (`#`).
    package init?(_ pattern: String) {
        var text = pattern.trimmingWhitespace()
        guard !text.isEmpty, !text.hasPrefix("#") else { return nil }
        self.description = text
        self.foldersOnly = text.hasSuffix("/")
        if self.foldersOnly { text.removeLast() }
        let anchored = text.dropLast().contains("/") || text.hasPrefix("/")
        if text.hasPrefix("/") { text.removeFirst() }
        // Unanchored, the pattern may start at any folder; either way it may name a folder above the path.
        guard let glob = Glob(text, anywhere: !anchored) else { return nil }
        self.glob = glob
    }

    /// Whether `path` (relative), or a folder above it, matches.
    func matches(_ path: String, isFolder: Bool) -> Bool {
        let components = path.split(separator: "/").map(String.init)
        for count in 1...components.count {
            let prefixIsFolder = count < components.count || isFolder
            if self.foldersOnly && !prefixIsFolder { continue }
            if self.glob.matches(components.prefix(count).joined(separator: "/")) { return true }
        }
        return false
    }
}
