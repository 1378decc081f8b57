import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Path arithmetic on strings, as `NSString`'s path methods did (they are Foundation's, not FoundationEssentials').
package enum Paths {
    /// `/a/./b//c/../d` → `/a/b/d`, then symbolic links resolved when the path exists (as `standardizingPath`).
    package static func standardized(_ path: String) -> String {
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

    /// The relative way up from `file`'s folder to `folder` (`""`, `../`, `../../`) when `file` is inside `folder`;
    /// nil when it is not. Both are standardized first.
    package static func wayUp(from file: String, to folder: String) -> String? {
        let folder = Self.standardized(folder)
        let own = Self.deletingLastComponent(Self.standardized(file))
        guard own == folder || own.hasPrefix(folder == "/" ? "/" : folder + "/") else { return nil }
        return String(repeating: "../", count: own.dropFirst(folder.count).split(separator: "/").count)
    }

    /// A path as a URL's path: each component percent-encoded, the slashes kept (`a b/c.png` → `a%20b/c.png`).
    package static func urlEncoded(_ path: String) -> String {
        path.split(separator: "/").map { percentEncoded(String($0)) }.joined(separator: "/")
    }

    /// The last component of a path, as `split(separator: "/").last ?? path` gives it (`2019/05/a.md` → `a.md`,
    /// `a/b/` → `b`), by bytes (`lastIndex(ofASCII:)`): every entry a batch indexes and every name a listing notices
    /// goes through here.
    package static func fileName(_ path: String) -> String {
        let slash = UInt8(ascii: "/")
        let utf8 = path.utf8
        var end = utf8.endIndex
        while end > utf8.startIndex, utf8[utf8.index(before: end)] == slash { end = utf8.index(before: end) }
        guard end > utf8.startIndex else { return path }
        let trimmed = path[..<end]
        guard let last = trimmed.lastIndex(ofASCII: slash) else { return String(trimmed) }
        return String(trimmed[trimmed.utf8.index(after: last)...])
    }

    /// `/a/b/c.md` → `/a/b`; `/a` → `/`; `c.md` → ``.
    package static func deletingLastComponent(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// `/a/b/c.md` → `c.md`.
    package static func lastComponent(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/"), trimmed.count > 1 else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// The home folder of the user running this process, from the password database.
    package static var home: String {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return "/" }
        return String(cString: directory)
    }
}

extension StringProtocol {
    /// The text without the characters `drop` picks at either end.
    package func trimming(while drop: (Character) -> Bool) -> String {
        guard let first = self.firstIndex(where: { !drop($0) }), let last = self.lastIndex(where: { !drop($0) })
        else { return "" }
        return String(self[first...last])
    }
}

extension StringProtocol {
    /// Without spaces and tabs at either end (as `trimmingWhitespace()`).
    package func trimmingWhitespace() -> String {
        self.trimming { $0.isWhitespace && !$0.isNewline }
    }

    /// Without spaces, tabs and line breaks at either end.
    package func trimmingWhitespaceAndNewlines() -> String {
        self.trimming(while: \.isWhitespace)
    }
}

extension String {
    /// `value` in decimal with at least `width` characters, zeros after the sign, as `%0*d` writes it: without
    /// `vsnprintf` and a `va_list`, which were an eighth of writing an index row from a file's name.
    package init(_ value: Int, zeroPaddedTo width: Int) {
        let digits = String(value.magnitude)
        let zeros = Swift.max(0, width - digits.utf8.count - (value < 0 ? 1 : 0))
        self = (value < 0 ? "-" : "") + String(repeating: "0", count: zeros) + digits
    }

    /// `printf`'s formatting (`%.5f`, `%02d`), from the C library: `String(format:)` is Foundation's, not
    /// FoundationEssentials'.
    package init(cFormat format: String, _ arguments: any CVarArg...) {
        let first = Self.printed(format, arguments, capacity: 128)
        self = first.needed < 128 ? first.text : Self.printed(format, arguments, capacity: first.needed + 1).text
    }

    private static func printed(
        _ format: String, _ arguments: [any CVarArg], capacity: Int
    ) -> (
        text: String, needed: Int
    ) {
        var buffer = [CChar](repeating: 0, count: capacity)
        let needed = Int(withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) })
        let bytes = buffer[..<Swift.min(Swift.max(0, needed), capacity - 1)].map { UInt8(bitPattern: $0) }
        return (String(decoding: bytes, as: UTF8.self), needed)
    }
}
