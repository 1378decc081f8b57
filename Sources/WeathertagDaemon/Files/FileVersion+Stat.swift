import Glibc
import WeathertagCore

extension FileVersion {
    init(_ info: stat) {
        self.init(
            device: UInt64(info.st_dev),
            inode: UInt64(info.st_ino),
            size: Int64(info.st_size),
            modifiedSeconds: info.st_mtim.tv_sec,
            modifiedNanoseconds: info.st_mtim.tv_nsec
        )
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
