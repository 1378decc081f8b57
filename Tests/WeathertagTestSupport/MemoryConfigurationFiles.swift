import WeathertagCore

/// Configuration files held in memory: a real `ConfigurationFiles` for decoding without a disk.
package struct MemoryConfigurationFiles: ConfigurationFiles {
    package var files: [String: (contents: String, permissions: Int)]
    package var folders: Set<String>

    package init(files: [String: (contents: String, permissions: Int)] = [:], folders: Set<String> = []) {
        self.files = files
        self.folders = folders
    }

    package func contents(_ path: String) -> [UInt8]? { self.files[path].map { Array($0.contents.utf8) } }

    package func kind(_ path: String) -> ConfigurationFileKind? {
        if self.folders.contains(path) { return .folder }
        return self.files[path] == nil ? nil : .file
    }

    package func permissions(_ path: String) -> Int? { self.files[path]?.permissions }
}
