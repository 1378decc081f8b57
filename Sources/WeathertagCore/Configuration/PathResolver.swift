import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Expands `~`, resolves relative paths against the configuration's folder and picks the default folders from
/// systemd's and XDG's environment variables.
package struct PathResolver: Sendable {
    package var environment: [String: String]
    /// The folder relative paths are resolved against.
    package var base: String

    package init(environment: [String: String], base: String) {
        self.environment = environment
        self.base = base
    }

    package func absolute(_ path: String) -> String {
        var path = path
        if path == "~" || path.hasPrefix("~/") {
            path = (self.environment["HOME"] ?? Paths.home) + path.dropFirst()
        }
        if !path.hasPrefix("/") {
            let base = self.base.isEmpty ? FileManager.default.currentDirectoryPath : self.base
            path = base + "/" + path
        }
        return Paths.standardized(path)
    }

    /// `$CACHE_DIRECTORY` (systemd), else `$XDG_CACHE_HOME/weathertag`, else `~/.cache/weathertag`.
    package var defaultCacheDirectory: String {
        if let first = self.firstEntry("CACHE_DIRECTORY") { return first }
        if let xdg = self.firstEntry("XDG_CACHE_HOME") { return xdg + "/weathertag" }
        return self.absolute("~/.cache/weathertag")
    }

    /// `$STATE_DIRECTORY` (systemd), else `$XDG_STATE_HOME/weathertag`, else `~/.local/state/weathertag`.
    package var defaultStateDirectory: String {
        if let first = self.firstEntry("STATE_DIRECTORY") { return first }
        if let xdg = self.firstEntry("XDG_STATE_HOME") { return xdg + "/weathertag" }
        return self.absolute("~/.local/state/weathertag")
    }

    /// `$RUNTIME_DIRECTORY/weathertag.sock` (systemd), else `$XDG_RUNTIME_DIR/weathertag.sock`, else one in /tmp
    /// named after the user.
    package var defaultSocketPath: String {
        if let first = self.firstEntry("RUNTIME_DIRECTORY") { return first + "/weathertag.sock" }
        if let xdg = self.firstEntry("XDG_RUNTIME_DIR") { return xdg + "/weathertag.sock" }
        return "/tmp/weathertag-\(getuid()).sock"
    }

    /// systemd passes several folders separated by colons; the first is ours.
    private func firstEntry(_ name: String) -> String? {
        guard let value = self.environment[name], let first = value.split(separator: ":").first, first.hasPrefix("/")
        else { return nil }
        return String(first)
    }
}
