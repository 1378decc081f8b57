import Glibc
import WeathertagCore

/// Makes a new entry's file, never over one that is there (`O_EXCL`), its folders first; all of it on the disk when
/// it returns (the file, its folder and the folders made for it fsynced), since `new` prints the path as made.
package enum NewEntryFile {
    package enum Result: Sendable {
        case created
        /// A file of that name is there: it is kept as it is.
        case existing
        case failed(SystemError)
    }

    package static func create(_ path: String, text: String) -> Result {
        do {
            try FileIO.makeDirectories(FileIO.split(path).directory, syncing: true)
        } catch let error as SystemError {
            return .failed(error)
        } catch {
            return .failed(SystemError("mkdir", path: path))
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            return errno == EEXIST ? .existing : .failed(SystemError("open", path: path))
        }
        defer { close(fd) }
        do {
            try FileIO.writeAll(fd, Array(text.utf8), path: path)
            guard fsync(fd) == 0 else { throw SystemError("fsync", path: path) }
            try FileIO.fsyncDirectory(FileIO.split(path).directory)
        } catch {
            unlink(path)
            return .failed((error as? SystemError) ?? SystemError("write", path: path))
        }
        return .created
    }
}
