import Glibc
import WeathertagCore

/// The configuration's files, read from the disk.
package struct LocalConfigurationFiles: ConfigurationFiles {
    package init() {}

    package func contents(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // A configuration or a key is small: a huge file is refused by the limit (O_NONBLOCK: a FIFO does not hang).
        return try? FileIO.readAll(fd, path: path, limit: 1 << 20)
    }

    package func kind(_ path: String) -> ConfigurationFileKind? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .folder
        default: return .other
        }
    }

    package func permissions(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mode & 0o777)
    }
}
