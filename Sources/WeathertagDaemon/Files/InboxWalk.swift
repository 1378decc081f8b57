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

    /// What a walk reads of each folder.
    enum Reading {
        /// Its files' and subfolders' names, each sorted.
        case sorted
        /// The same, in the folder's own order: for a caller that sorts what it keeps (the start's listing sorted
        /// a diary's 50,000 names folder by folder, then its candidates again).
        case unsorted
        /// Its subfolders' names only, unsorted; `files` stays empty and no file's name is made into a string: for
        /// the watcher, which only needs the folders to watch.
        case foldersOnly
    }

    /// Calls `visit` for `start` (relative; `""` for the inbox) and every folder below it that the tree follows,
    /// parents before children. A folder that cannot be read is passed to `failed` and skipped. `entering` is called
    /// for each folder before it is read: a watch added there sees every file made after the read began, so that
    /// none falls between the listing and the watch.
    static func walk(
        inbox: String,
        from start: String = "",
        tree: InboxTree,
        reading: Reading = .sorted,
        entering: (_ folder: String) -> Void = { _ in },
        visit: (_ folder: String, _ contents: Folder) -> Void,
        failed: (_ folder: String, _ error: SystemError) -> Void = { _, _ in }
    ) {
        var pending = [start]
        while let folder = pending.popLast() {
            entering(folder)
            var contents: Folder
            do {
                contents = try Self.read(Self.path(inbox, folder), reading: reading)
            } catch {
                failed(folder, error)
                continue
            }
            visit(folder, contents)
            // Parents before children, and siblings in order, however the folder was read.
            if reading != .sorted { contents.folders.sort() }
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

    /// One folder's entries (sorted unless `reading` says otherwise); `.` and `..` left out. Symbolic links count as
    /// files (never followed).
    static func read(_ path: String, reading: Reading = .sorted) throws(SystemError) -> Folder {
        guard let directory = opendir(path) else { throw SystemError("opendir", path: path) }
        defer { closedir(directory) }
        var folder = Folder()
        // A folder of 5,000 entries and no folder is 5 `getdents64` calls of 32 KiB for nothing at each start.
        if reading == .foldersOnly, Filesystem.holdsNoFolder(dirfd(directory)) { return folder }
        while let entry = readdir(directory) {
            let bytes = FileIO.name(of: entry)
            if bytes.count <= 2, bytes.allSatisfy({ $0 == UInt8(ascii: ".") }), !bytes.isEmpty { continue }
            var isFolder = entry.pointee.d_type == UInt8(DT_DIR)
            if entry.pointee.d_type == UInt8(DT_UNKNOWN) {
                // Some filesystems do not say: ask, without following a link.
                var info = stat()
                let name = String(decoding: bytes, as: UTF8.self)
                isFolder = lstat(path + "/" + name, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
            }
            if isFolder {
                folder.folders.append(String(decoding: bytes, as: UTF8.self))
            } else if reading != .foldersOnly {
                folder.files.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        if reading == .sorted {
            folder.files.sort()
            folder.folders.sort()
        }
        return folder
    }

    /// Throws what `read` would when the folder at `path` cannot be read, without reading it.
    static func open(_ path: String) throws(SystemError) {
        guard let directory = opendir(path) else { throw SystemError("opendir", path: path) }
        closedir(directory)
    }
}
