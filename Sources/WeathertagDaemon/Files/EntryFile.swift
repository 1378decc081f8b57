import Glibc
import WeathertagCore

/// What happened to one inbox entry.
enum EntryResult: Sendable, Equatable {
    case stamped
    case alreadyStamped
    /// Left untouched for good (until it changes): not a regular file, not text, front matter we must not edit.
    case skipped(String)
    /// It changed between our read and our rename; nothing was overwritten. Try again.
    case changedWhileStamping
    /// It is gone (deleted or renamed away) since the event.
    case vanished
}

/// Stamps one file in place, crash-safely and without ever overwriting content we did not read.
enum EntryFile {
    /// Entries larger than this are left alone.
    static let maximumSize = 16 << 20

    /// - Parameter beforeRename: called after the temp file is written and before the last look at the original;
    ///   tests use it to change the original at the worst moment.
    static func stamp(path: String, lines: [String], beforeRename: () -> Void = {}) throws -> EntryResult {
        // O_NOFOLLOW: never stamp through a symlink. O_NONBLOCK: opening a FIFO must not hang.
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            switch errno {
            case ENOENT: return .vanished
            case ELOOP: return .skipped("it is a symbolic link")
            default: throw SystemError("open", path: path)
            }
        }
        defer { close(fd) }
        var before = stat()
        guard fstat(fd, &before) == 0 else { throw SystemError("stat", path: path) }
        guard before.st_mode & S_IFMT == S_IFREG else { return .skipped("it is not a regular file") }
        guard before.st_nlink == 1 else { return .skipped("it has \(before.st_nlink) hard links") }
        guard Int(before.st_size) <= Self.maximumSize else {
            return .skipped("it is larger than \(Self.maximumSize >> 20) MiB")
        }
        let original = try FileIO.readAll(fd, path: path, limit: Self.maximumSize)

        let content: [UInt8]
        switch FrontMatterStamper.stamp(original, lines: lines) {
        case .stamped(let stamped): content = stamped
        case .alreadyStamped: return .alreadyStamped
        case .skipped(.empty): return .skipped("it is empty (it will be stamped once something is written to it)")
        case .skipped(let reason): return .skipped(reason.description)
        }

        let (directory, name) = FileIO.split(path)
        let mode = before.st_mode & 0o7777
        let temporary = try FileIO.createTemporary(directory: directory, name: name, mode: mode)
        do {
            defer { close(temporary.fd) }
            try FileIO.writeAll(temporary.fd, content, path: temporary.path)
            // The umask may have narrowed the mode; the owner should not change either (when we may set it).
            _ = fchmod(temporary.fd, mode)
            if geteuid() == 0 { _ = fchown(temporary.fd, before.st_uid, before.st_gid) }
            guard fsync(temporary.fd) == 0 else { throw SystemError("fsync", path: temporary.path) }
        } catch {
            unlink(temporary.path)
            throw error
        }
        beforeRename()
        // Last look before the rename: same file, same size, same modification time as what we read.
        var now = stat()
        guard lstat(path, &now) == 0, now.st_ino == before.st_ino, now.st_dev == before.st_dev,
            now.st_size == before.st_size, now.st_mtim.tv_sec == before.st_mtim.tv_sec,
            now.st_mtim.tv_nsec == before.st_mtim.tv_nsec
        else {
            unlink(temporary.path)
            return FileIO.exists(path) ? .changedWhileStamping : .vanished
        }
        guard rename(temporary.path, path) == 0 else {
            let error = SystemError("rename", path: path)
            unlink(temporary.path)
            throw error
        }
        try FileIO.fsyncDirectory(directory)
        return .stamped
    }
}
