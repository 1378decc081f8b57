/// Where in the diary an entry of a given time lives: a relative path made from a pattern (`inbox.layout`,
/// `import --layout`) whose `%Y %m %d %H %M %S` are the entry's own local year, month, day, hour, minute and second
/// and `%%` a percent sign. The default, `%Y/%m/%Y-%m-%d-%H%M.md`, puts 2019-05-01 10:00 at
/// `2019/05/2019-05-01-1000.md`: a folder a year, one a month, names that sort by time and that the entry-time reader
/// (`EntryTime`) reads back.
package struct DiaryLayout: Sendable, Equatable, CustomStringConvertible {
    package static let `default` = DiaryLayout(checked: "%Y/%m/%Y-%m-%d-%H%M.md")

    private init(checked pattern: String) {
        self.pattern = pattern
    }

    package let pattern: String

    /// Why a pattern is refused, in words for a configuration error.
    package struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
    }

    /// A relative path of at most 16 folders that ends in `.md` or `.markdown`, with no `.` or `..` part, no hidden
    /// part and no empty part, and with `%d` in it (a name a day at least, so that entries of different days never
    /// share one).
    package init(_ pattern: String) throws(Invalid) {
        guard !pattern.hasPrefix("/") else { throw Invalid(description: "must be relative to the diary's folder") }
        let lower = pattern.lowercased()
        guard lower.hasSuffix(".md") || lower.hasSuffix(".markdown") else {
            throw Invalid(description: "must end in .md or .markdown")
        }
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 16 else { throw Invalid(description: "has more than 16 folders") }
        for part in parts {
            guard !part.isEmpty, !part.hasPrefix(".") else {
                throw Invalid(description: "has an empty, hidden, `.` or `..` part (\"\(part)\")")
            }
        }
        var cursor = pattern.unicodeScalars.makeIterator()
        var hasDay = false
        while let scalar = cursor.next() {
            guard scalar == "%" else { continue }
            guard let next = cursor.next(), "YmdHMS%".unicodeScalars.contains(next) else {
                throw Invalid(description: "knows only %Y, %m, %d, %H, %M, %S and %%")
            }
            if next == "d" { hasDay = true }
        }
        guard hasDay else { throw Invalid(description: "must hold %d, the day") }
        self.pattern = pattern
    }

    package var description: String { self.pattern }

    /// The path for an entry at `time`, with `n` (2, 3, …) before the extension for the nth entry that would
    /// otherwise share the name: `2019/05/2019-05-01-1000-2.md`.
    package func path(for time: WallClock, ordinal: Int = 1) -> String {
        var path = ""
        var cursor = self.pattern.makeIterator()
        while let character = cursor.next() {
            guard character == "%", let next = cursor.next() else {
                path.append(character)
                continue
            }
            switch next {
            case "Y": path += String(cFormat: "%04d", time.year)
            case "m": path += String(cFormat: "%02d", time.month)
            case "d": path += String(cFormat: "%02d", time.day)
            case "H": path += String(cFormat: "%02d", time.hour)
            case "M": path += String(cFormat: "%02d", time.minute)
            case "S": path += String(cFormat: "%02d", time.second)
            default: path.append(next)
            }
        }
        guard ordinal > 1, let dot = path.lastIndex(of: ".") else { return path }
        return path[..<dot] + "-\(ordinal)" + path[dot...]
    }
}
