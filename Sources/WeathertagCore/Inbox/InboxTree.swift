import FoundationEssentials

/// Which folders of the inbox are part of it: the rules the watcher and the listing share. Paths are relative to
/// the inbox (`2026/11/23.md`, `2026/11`); the inbox itself is `""`.
///
/// A folder is followed when the inbox is recursive, it is at most `maximumDepth` levels down, its name is not
/// hidden (`.git`, `.obsidian`, `.trash`, `.stversions`) and no `exclude` pattern matches it. Symbolic links to
/// folders are never followed (the walkers check that; this type only judges names).
///
/// In a notes app's vault (`VaultLayout`), the app's own folders are never followed, a template is always an
/// entry to be left alone (`template`), and when the inbox is the vault's root only the vault's entries folders
/// hold entries (`inbox.entries: auto`): its other notes are no diary entries, and their folders are not followed.
package struct InboxTree: Sendable {
    package var recursive: Bool
    package var maximumDepth: Int
    package let excludes: [ExcludePattern]
    /// The notes app's layout of the vault the inbox is, or is in; nil when it is in none.
    package var vault: VaultLayout?
    /// Which notes of a vault's root are entries (`inbox.entries`).
    package var entries: EntryScope

    /// Which notes of a vault's root are entries (`inbox.entries`).
    package enum EntryScope: String, Sendable, Equatable, CaseIterable {
        /// As the vault lays them out: its daily notes', periodic notes' and journals' folders (every note of an
        /// inbox that is no vault's root).
        case auto
        /// Every note.
        case all
    }

    package init(
        recursive: Bool = true, maximumDepth: Int = 8, excludes: [String] = [], vault: VaultLayout? = nil,
        entries: EntryScope = .auto
    ) {
        self.recursive = recursive
        self.maximumDepth = maximumDepth
        self.excludes = excludes.compactMap(ExcludePattern.init)
        self.vault = vault
        self.entries = entries
    }

    /// Only the vault's entries folders hold entries.
    package var isScopedToVault: Bool { self.entries == .auto && self.vault?.inboxIsRoot == true }

    /// Where `new` puts an entry, relative to the inbox (`""`: the inbox itself): the vault's first entries folder,
    /// when only those hold entries.
    package var newEntriesFolder: String {
        guard self.isScopedToVault else { return "" }
        return self.vault?.entries.first { !$0.path.isEmpty }?.path ?? ""
    }

    /// Whether the folder at `path` (relative, not empty) is watched and listed.
    package func follows(folder path: String) -> Bool {
        guard self.recursive, !path.isEmpty else { return false }
        let components = path.split(separator: "/")
        guard components.count <= self.maximumDepth else { return false }
        guard !components.contains(where: { $0.hasPrefix(".") }) else { return false }
        guard self.ownFolder(path) == nil else { return false }
        if self.isScopedToVault, let vault = self.vault {
            // An entries or templates folder, one below it, or one on the way to it.
            let leads = { (place: String) in place.isEmpty || place == path || place.hasPrefix(path + "/") }
            let reaches =
                vault.entries.contains { $0.holds(path) || leads($0.path) }
                || vault.templateFolders.contains { $0.holds(path) || leads($0.path) }
                || vault.templateFiles.contains { $0.path.hasPrefix(path + "/") }
            guard reaches else { return false }
        }
        return !self.isExcluded(path, isFolder: true)
    }

    /// Whether the file at `path` (relative) is an entry: a candidate name, in a followed folder, not excluded; in a
    /// vault's root, in one of its entries folders (its root holds the notes whose names hold a date), or a
    /// template.
    package func isEntry(_ path: String) -> Bool {
        let (folder, name) = Self.split(path)
        guard InboxFilter.isCandidate(name) else { return false }
        if !folder.isEmpty, !self.follows(folder: folder) { return false }
        guard !self.isExcluded(path, isFolder: false) else { return false }
        guard self.isScopedToVault else { return true }
        return self.isVaultEntry(path) || self.template(path) != nil
    }

    /// Whether the note at `path` is in one of the vault's entries folders.
    private func isVaultEntry(_ path: String) -> Bool {
        self.vault?.entries.contains { place in
            place.path.isEmpty
                ? EntryTime.parse(fileName: Self.split(path).name, timeZone: .utc) != nil
                : place.holds(path)
        } ?? false
    }

    /// Why the note at `path` (relative) is a template, when the vault's settings say it is one (its folder, or it
    /// by name); nil otherwise. Its text may say so too (`TemplateSign.placeholder`), which this does not read.
    package func template(_ path: String) -> TemplateSign? {
        guard let vault = self.vault else { return nil }
        if let folder = vault.templateFolders.first(where: { !$0.path.isEmpty && $0.holds(path) }) {
            return .folder(folder)
        }
        return vault.templateFiles.first { $0.path == path }.map(TemplateSign.file)
    }

    /// The app's own folder `path` is (in), if any: `logseq`.
    private func ownFolder(_ path: String) -> String? {
        self.vault?.ownFolders.first { path == $0 || path.hasPrefix($0 + "/") }
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
        if !folder.isEmpty, let own = self.ownFolder(folder), let vault = self.vault {
            return "in \(own)/, \(vault.app.rawValue)'s own folder, which is not part of the diary"
        }
        if !folder.isEmpty, let pattern = self.excludes.first(where: { $0.matches(folder, isFolder: true) }) {
            return "in a folder inbox.exclude leaves out ('\(pattern)')"
        }
        if let pattern = self.excludes.first(where: { $0.matches(path, isFolder: false) }) {
            return "left out by inbox.exclude ('\(pattern)')"
        }
        if name.hasPrefix(".") { return "a hidden file, which is not part of the diary" }
        if self.isScopedToVault, InboxFilter.isCandidate(name), let vault = self.vault {
            let entries = VaultLayout.listed(
                vault.entries.map { $0.path.isEmpty ? "the notes whose names hold a date" : $0.folderName })
            return
                "not one of the diary's entries: in this \(vault.app.rawValue) \(vault.app == .obsidian ? "vault" : "graph") "
                + "they are \(entries) (weathertag check says which settings say so), and a note elsewhere is never "
                + "given weather; inbox.entries \"all\" makes every note an entry"
        }
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
