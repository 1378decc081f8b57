import Glibc
import WeathertagCore

/// Walks the inbox's folders as `InboxTree` allows: never through a symbolic link, hidden and excluded folders
/// left out, no deeper than the tree's depth.
enum InboxWalk {
    /// What a folder holds: its file names (any kind but folders) and its subfolders' names.
    struct Folder {
        var files: [String] = []
        var folders: [String] = []
    }

    /// Calls `visit` for `start` (relative; `""` for the inbox) and every folder below it that the tree follows,
    /// parents before children. A folder that cannot be read is passed to `failed` and skipped. `entering` is called
    /// for each folder before it is read: a watch added there sees every file made after the read began, so that
    /// none falls between the listing and the watch.
    static func walk(
        inbox: String,
        from start: String = "",
        tree: InboxTree,
        entering: (_ folder: String) -> Void = { _ in },
        visit: (_ folder: String, _ contents: Folder) -> Void,
        failed: (_ folder: String, _ error: SystemError) -> Void = { _, _ in }
    ) {
        var pending = [start]
        while let folder = pending.popLast() {
            entering(folder)
            let contents: Folder
            do {
                contents = try Self.read(Self.path(inbox, folder))
            } catch {
                failed(folder, error)
                continue
            }
            visit(folder, contents)
            for name in contents.folders.reversed() {
                let path = InboxTree.join(folder, name)
                if tree.follows(folder: path) { pending.append(path) }
            }
        }
    }

    /// The absolute path of a folder of the inbox (`""` is the inbox).
    static func path(_ inbox: String, _ folder: String) -> String {
        folder.isEmpty ? inbox : inbox + "/" + folder
    }

    /// One folder's entries, sorted; `.` and `..` left out. Symbolic links count as files (never followed).
    static func read(_ path: String) throws(SystemError) -> Folder {
        guard let directory = opendir(path) else { throw SystemError("opendir", path: path) }
        defer { closedir(directory) }
        var folder = Folder()
        while let entry = readdir(directory) {
            let name = String(decoding: FileIO.name(of: entry), as: UTF8.self)
            if name == "." || name == ".." { continue }
            var isFolder = entry.pointee.d_type == UInt8(DT_DIR)
            if entry.pointee.d_type == UInt8(DT_UNKNOWN) {
                // Some filesystems do not say: ask, without following a link.
                var info = stat()
                isFolder = lstat(path + "/" + name, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
            }
            if isFolder { folder.folders.append(name) } else { folder.files.append(name) }
        }
        folder.files.sort()
        folder.folders.sort()
        return folder
    }
}
