/// How a notes app lays out the folder the inbox is, or is in: which of its folders hold the diary's entries, which
/// hold templates, and which are the app's own, as the app's own settings say (an Obsidian vault's `.obsidian/`, a
/// Logseq graph's `logseq/config.edn`). Read once per configuration, through `ConfigurationFiles` (pure: tests answer
/// from memory), and kept in the inbox's `InboxTree`.
///
/// Every path here is relative to the inbox, whatever the settings are relative to (the vault's root): a setting
/// that names a place outside the inbox is dropped.
package struct VaultLayout: Sendable, Equatable {
    /// The app whose settings these are.
    package enum App: String, Sendable, Equatable {
        case obsidian = "Obsidian"
        case logseq = "Logseq"
    }

    /// A folder or a file the settings name, and which setting names it (for `check` and `why`).
    package struct Place: Sendable, Equatable {
        /// Relative to the inbox; `""` is the inbox itself.
        package var path: String
        /// The setting that names it, in words: `Daily notes (.obsidian/daily-notes.json)`.
        package var setting: String

        package init(_ path: String, setting: String) {
            self.path = path
            self.setting = setting
        }

        /// `Journal/`, or `the vault's root`.
        package var folderName: String { self.path.isEmpty ? "the vault's root" : self.path + "/" }

        /// Whether `path` (relative to the inbox) is this folder or below it.
        package func holds(_ path: String) -> Bool {
            self.path.isEmpty || path == self.path || path.hasPrefix(self.path + "/")
        }
    }

    package var app: App
    /// The vault's root, as an absolute path.
    package var root: String
    /// The inbox is the vault's root (not a folder inside it): only `entries` hold entries, unless `inbox.entries`
    /// is `all`.
    package var inboxIsRoot: Bool
    /// The folders whose notes are the diary's entries (daily notes, periodic notes, journals), as the settings name
    /// them; only when the inbox is the vault's root. The root itself (`""`, Obsidian's default for daily notes)
    /// holds the notes whose names hold a date.
    package var entries: [Place]
    /// The folders whose notes are templates.
    package var templateFolders: [Place]
    /// The notes named as templates one by one (a daily note's template, Templater's folder templates).
    package var templateFiles: [Place]
    /// Folders the app keeps for itself, never part of the diary (Logseq's `logseq/`, with its backups of pages).
    package var ownFolders: [String]
    /// Settings files that exist but could not be read (not JSON): their settings are not followed, and `check` says so.
    package var problems: [String] = []

    package init(
        app: App, root: String, inboxIsRoot: Bool, entries: [Place] = [], templateFolders: [Place] = [],
        templateFiles: [Place] = [], ownFolders: [String] = []
    ) {
        self.app = app
        self.root = root
        self.inboxIsRoot = inboxIsRoot
        self.entries = entries
        self.templateFolders = templateFolders
        self.templateFiles = templateFiles
        self.ownFolders = ownFolders
    }

    /// How far up from the inbox a vault's root is looked for: an inbox is a vault, or a folder a few levels in one.
    package static let maximumDepthInVault = 16

    /// The layout of the vault the inbox (an absolute, standardized path) is, or is in; nil when it is in none.
    package static func read(inbox: String, files: any ConfigurationFiles) -> VaultLayout? {
        var folder = inbox
        for _ in 0...Self.maximumDepthInVault {
            if files.kind(Self.join(folder, ".obsidian")) == .folder {
                return Self.obsidian(root: folder, inbox: inbox, files: files)
            }
            if files.kind(Self.join(folder, "logseq/config.edn")) == .file {
                return Self.logseq(root: folder, inbox: inbox, files: files)
            }
            guard folder != "/", !folder.isEmpty else { break }
            folder = Paths.deletingLastComponent(folder)
        }
        return nil
    }

    // MARK: Paths in the settings

    /// A folder or file as a setting writes it (`Journal`, `/Journal/`, `./Templates/Daily`), relative to the vault's
    /// root: slashes and `./` trimmed; nil for a path that climbs out (`..`) or holds nothing but slashes when a
    /// place is required.
    static func vaultPath(_ text: String) -> String? {
        var parts: [Substring] = []
        for part in text.trimmingWhitespace().split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": return nil
            default: parts.append(part)
            }
        }
        return parts.joined(separator: "/")
    }

    /// A template's path as a setting names it: Obsidian adds `.md` to a name without it (`Templates/Daily`).
    static func templateFile(_ text: String) -> String? {
        guard let path = Self.vaultPath(text), !path.isEmpty else { return nil }
        let lower = path.lowercased()
        return lower.hasSuffix(".md") || lower.hasSuffix(".markdown") ? path : path + ".md"
    }

    /// `path` (relative to the vault's root) relative to the inbox, which is `inside` below the root (`""`: the root);
    /// nil when it is not inside the inbox.
    static func relative(_ path: String, inside: String) -> String? {
        guard !inside.isEmpty else { return path }
        if path == inside { return "" }
        guard path.hasPrefix(inside + "/") else { return nil }
        return String(path.dropFirst(inside.count + 1))
    }

    /// The inbox below the vault's root (`Diary/2026`), `""` when it is the root.
    static func inboxInside(root: String, inbox: String) -> String {
        guard inbox != root else { return "" }
        return String(inbox.dropFirst(root == "/" ? 1 : root.count + 1))
    }

    static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// Appends `place` to `list` unless a place of the same path is there (the first setting to name it is said).
    static func adding(_ place: Place, to list: inout [Place]) {
        if !list.contains(where: { $0.path == place.path }) { list.append(place) }
    }
}

extension VaultLayout {
    /// What `check` says of it: `an Obsidian vault: entries are Journal/ (Daily notes, .obsidian/daily-notes.json);
    /// templates in Templates/ are never stamped`.
    package func summary(entriesAreAll: Bool) -> String {
        var parts: [String] = []
        let opening =
            self.inboxIsRoot
            ? "the inbox is \(self.article) \(self.app.rawValue) \(self.kindName)"
            : "the inbox is in \(self.article) \(self.app.rawValue) \(self.kindName) (\(self.root))"
        if !self.inboxIsRoot {
            parts.append("every note of the inbox is an entry")
        } else if entriesAreAll {
            parts.append("every note is an entry (inbox.entries: all)")
        } else {
            let entries = self.entries.map { place in
                place.path.isEmpty
                    ? "the notes whose names hold a date (\(place.setting))" : "\(place.folderName) (\(place.setting))"
            }
            parts.append("entries are " + Self.listed(entries))
        }
        let templates =
            self.templateFolders.map { "\($0.folderName) (\($0.setting))" }
            + self.templateFiles.map { "\($0.path) (\($0.setting))" }
        if !templates.isEmpty {
            parts.append("templates in " + Self.listed(templates) + " are never stamped")
        }
        for own in self.ownFolders { parts.append("\(own)/ is \(self.app.rawValue)'s own and never read") }
        return opening + ": " + parts.joined(separator: "; ")
    }

    private var article: String { self.app == .obsidian ? "an" : "a" }
    private var kindName: String { self.app == .obsidian ? "vault" : "graph" }

    static func listed(_ items: [String]) -> String {
        switch items.count {
        case 0: return "none"
        case 1: return items[0]
        default: return items.dropLast().joined(separator: ", ") + " and " + (items.last ?? "")
        }
    }
}
