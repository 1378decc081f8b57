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
public struct EditorLock: Sendable, Equatable, CustomStringConvertible {
    /// The lock or swap file's name, in the entry's folder.
    public var file: String
    public var editor: String

    public init(file: String, editor: String) {
        self.file = file
        self.editor = editor
    }

    public var description: String { "\(self.editor) has it open (\(self.file))" }

    /// The files that would mean an editor has `name` open, most common first.
    public static func candidates(for name: String) -> [EditorLock] {
        [
            EditorLock(file: ".\(name).swp", editor: "vim or nano"),
            EditorLock(file: ".\(name).swo", editor: "vim"),
            EditorLock(file: ".\(name).swn", editor: "vim"),
            EditorLock(file: ".#\(name)", editor: "emacs"),
            EditorLock(file: ".\(name).kate-swp", editor: "kate"),
            EditorLock(file: ".~lock.\(name)#", editor: "LibreOffice"),
        ]
    }

    /// The entry a lock or swap file belongs to, for a file name that is one; nil otherwise. When such a file goes,
    /// its entry is looked at again.
    public static func entry(forLockFile file: String) -> String? {
        var name: Substring
        if file.hasPrefix(".~lock."), file.hasSuffix("#") {
            name = file.dropFirst(".~lock.".count).dropLast()
        } else if file.hasPrefix(".#") {
            name = file.dropFirst(2)
        } else if file.hasPrefix("."), file.hasSuffix(".kate-swp") {
            name = file.dropFirst().dropLast(".kate-swp".count)
        } else if file.hasPrefix("."), [".swp", ".swo", ".swn"].contains(where: file.hasSuffix) {
            name = file.dropFirst().dropLast(4)
        } else {
            return nil
        }
        return InboxFilter.isCandidate(String(name)) ? String(name) : nil
    }
}
