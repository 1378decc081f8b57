/// What decoding a configuration asks of the filesystem: the configuration file itself, the key files, whether the
/// inbox is a folder. The core only asks; the daemon's edge answers from the disk (`LocalConfigurationFiles`), and
/// tests can answer from memory.
package protocol ConfigurationFiles: Sendable {
    /// The file's bytes, or nil when it cannot be read.
    func contents(_ path: String) -> [UInt8]?
    /// What is at `path` (symbolic links followed, as `stat` sees it); nil when nothing is.
    func kind(_ path: String) -> ConfigurationFileKind?
    /// The permission bits (`0o600`), or nil when they cannot be read.
    func permissions(_ path: String) -> Int?
}

package enum ConfigurationFileKind: Sendable, Equatable {
    case file, folder, other
}
