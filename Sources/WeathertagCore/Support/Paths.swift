import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Path arithmetic on strings, as `NSString`'s path methods did (they are Foundation's, not FoundationEssentials').
public enum Paths {
    /// `/a/./b//c/../d` → `/a/b/d`, then symbolic links resolved when the path exists (as `standardizingPath`).
    public static func standardized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..":
                if path.hasPrefix("/") || !(parts.last.map { $0 == ".." } ?? true) {
                    _ = parts.popLast()
                } else {
                    parts.append(part)
                }
            default: parts.append(part)
            }
        }
        let lexical = (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
        guard lexical.hasPrefix("/"), let resolved = realpath(lexical, nil) else {
            return lexical.isEmpty ? "." : lexical
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `/a/b/c.md` → `/a/b`; `/a` → `/`; `c.md` → ``.
    public static func deletingLastComponent(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// `/a/b/c.md` → `c.md`.
    public static func lastComponent(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/"), trimmed.count > 1 else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// The home folder of the user running this process, from the password database.
    public static var home: String {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return "/" }
        return String(cString: directory)
    }
}

extension StringProtocol {
    /// The text without the characters `drop` picks at either end.
    public func trimming(while drop: (Character) -> Bool) -> String {
        guard let first = self.firstIndex(where: { !drop($0) }), let last = self.lastIndex(where: { !drop($0) })
        else { return "" }
        return String(self[first...last])
    }
}
