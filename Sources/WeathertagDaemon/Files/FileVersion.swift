import Glibc

/// A file's identity and version as far as `stat` tells: the same inode with the same size and modification time
/// is taken to be unchanged.
struct FileVersion: Sendable, Hashable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int

    init(_ info: stat) {
        self.device = UInt64(info.st_dev)
        self.inode = UInt64(info.st_ino)
        self.size = Int64(info.st_size)
        self.modifiedSeconds = info.st_mtim.tv_sec
        self.modifiedNanoseconds = info.st_mtim.tv_nsec
    }

    /// What `path` names now, without following a symbolic link; nil when it is gone.
    static func current(_ path: String) -> FileVersion? {
        var info = stat()
        return lstat(path, &info) == 0 ? FileVersion(info) : nil
    }

    /// The file behind an open descriptor.
    static func current(_ fd: Int32) -> FileVersion? {
        var info = stat()
        return fstat(fd, &info) == 0 ? FileVersion(info) : nil
    }
}
