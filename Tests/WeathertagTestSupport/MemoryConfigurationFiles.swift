import WeathertagCore

/// Configuration files held in memory: a real `ConfigurationFiles` for decoding without a disk.
public struct MemoryConfigurationFiles: ConfigurationFiles {
    public var files: [String: (contents: String, permissions: Int)]
    public var folders: Set<String>

    public init(files: [String: (contents: String, permissions: Int)] = [:], folders: Set<String> = []) {
        self.files = files
        self.folders = folders
    }

    public func contents(_ path: String) -> [UInt8]? { self.files[path].map { Array($0.contents.utf8) } }

    public func kind(_ path: String) -> ConfigurationFileKind? {
        if self.folders.contains(path) { return .folder }
        return self.files[path] == nil ? nil : .file
    }

    public func permissions(_ path: String) -> Int? { self.files[path]?.permissions }
}
