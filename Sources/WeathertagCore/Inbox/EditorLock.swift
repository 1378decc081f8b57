/// A file an editor keeps beside an entry while it has the entry open: while one is there, the entry waits (a
/// stamp would make the editor warn "the file has been changed since reading it", and its next save would drop
/// the block). The names, for an entry `NAME` in the same folder:
///
/// | editor | file |
/// |---|---|
/// | vim, neovim | `.NAME.swp`, then `.NAME.swo`, `.NAME.swn` when taken (a second and third session) |
/// | nano ≥ 5 | `.NAME.swp` |
/// | emacs | `.#NAME` (a dangling symbolic link) |
/// | kate | `.NAME.kate-swp` |
/// | LibreOffice | `.~lock.NAME#` |
///
/// A sync tool that is bringing a new version of the entry in holds it the same way: a stamp now would be
/// overwritten by the version it brings, or would make a conflict of it.
///
/// | sync tool | file |
/// |---|---|
/// | Syncthing | `.syncthing.NAME.tmp`, renamed over `NAME` when complete |
/// | Nextcloud, ownCloud | `.NAME.~XXXX` (a partial download), `.~NAME` |
package struct EditorLock: Sendable, Equatable, CustomStringConvertible {
    /// The lock or swap file's name, in the entry's folder.
    package var file: String
    package var editor: String

    package init(file: String, editor: String) {
        self.file = file
        self.editor = editor
    }

    /// A sync tool's temp file, not an editor's lock.
    package var isSyncTool: Bool { Self.syncTools.contains(self.editor) }

    private static let syncTools: Set = ["Syncthing", "Nextcloud or ownCloud"]

    package var description: String {
        self.isSyncTool
            ? "\(self.editor) is bringing a new version in (\(self.file))" : "\(self.editor) has it open (\(self.file))"
    }

    /// The files that would mean an editor has `name` open, most common first.
    package static func candidates(for name: String) -> [EditorLock] {
        [
            EditorLock(file: ".\(name).swp", editor: "vim or nano"),
            EditorLock(file: ".\(name).swo", editor: "vim"),
            EditorLock(file: ".\(name).swn", editor: "vim"),
            EditorLock(file: ".#\(name)", editor: "emacs"),
            EditorLock(file: ".\(name).kate-swp", editor: "kate"),
            EditorLock(file: ".~lock.\(name)#", editor: "LibreOffice"),
            EditorLock(file: ".syncthing.\(name).tmp", editor: "Syncthing"),
            EditorLock(file: ".~\(name)", editor: "Nextcloud or ownCloud"),
        ]
    }

    /// The program that holds `name`, from the hidden names of its folder (every lock file's begins with a dot).
    package static func holding(_ name: String, among hidden: Set<String>) -> EditorLock? {
        if let lock = Self.candidates(for: name).first(where: { hidden.contains($0.file) }) { return lock }
        let partial = ".\(name).~"
        return hidden.first { $0.hasPrefix(partial) && Self.entry(forLockFile: $0) == name }
            .map { EditorLock(file: $0, editor: "Nextcloud or ownCloud") }
    }

    /// The entry a lock or swap file belongs to, for a file name that is one; nil otherwise. When such a file goes,
    /// its entry is looked at again.
    package static func entry(forLockFile file: String) -> String? {
        var name: Substring
        if file.hasPrefix(".~lock."), file.hasSuffix("#") {
            name = file.dropFirst(".~lock.".count).dropLast()
        } else if file.hasPrefix(".#") {
            name = file.dropFirst(2)
        } else if file.hasPrefix("."), file.hasSuffix(".kate-swp") {
            name = file.dropFirst().dropLast(".kate-swp".count)
        } else if file.hasPrefix("."), [".swp", ".swo", ".swn"].contains(where: file.hasSuffix) {
            name = file.dropFirst().dropLast(4)
        } else if file.hasPrefix(".~") {
            name = file.dropFirst(2)
        } else if file.hasPrefix(".syncthing."), file.hasSuffix(".tmp") {
            name = file.dropFirst(".syncthing.".count).dropLast(".tmp".count)
        } else if file.utf8.contains(UInt8(ascii: "~")), let partial = file.wholeMatch(of: #/\.(.+)\.~[0-9A-Za-z]+/#) {
            name = partial.output.1
        } else {
            return nil
        }
        return InboxFilter.isCandidate(String(name)) ? String(name) : nil
    }
}
