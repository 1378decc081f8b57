import FoundationEssentials

/// weathertag's one glob syntax, for `inbox.exclude` and a `track` provider's `path`: `*` any characters but `/`,
/// `?` one character but `/`, `**` any number of folders (`a/**/b`, `**/x`, or at the end everything below),
/// `[abc]`, `[a-z]` and `[!abc]` a class; everything else stands for itself. It matches a whole relative path
/// (`2019/05/walk.gpx`), `/` only where the pattern has one.
package struct Glob: Sendable, CustomStringConvertible {
    package let description: String
    private let expression: Pattern

    /// Nil when the pattern cannot be read (an unclosed class that makes no expression). With `anywhere`, it may
    /// also match below any folders (`*.md` matches `a/b/c.md`), as a `.gitignore` line without a `/` does.
    package init?(_ pattern: String, anywhere: Bool = false) {
        self.description = pattern
        let source = "^" + (anywhere ? "(?:.*/)?" : "") + Self.regex(fromGlob: pattern) + "$"
        guard let expression = Pattern(source) else { return nil }
        self.expression = expression
    }

    /// Whether the whole of `path` matches.
    package func matches(_ path: String) -> Bool {
        self.expression.firstMatch(in: path) != nil
    }

    /// Whether `text` holds a wildcard (`*`, `?` or `[`).
    package static func hasWildcards(_ text: some StringProtocol) -> Bool {
        text.contains { $0 == "*" || $0 == "?" || $0 == "[" }
    }

    private static func regex(fromGlob glob: String) -> String {
        var out = ""
        var characters = Array(glob)[...]
        while let character = characters.popFirst() {
            switch character {
            case "*":
                if characters.first == "*" {
                    characters.removeFirst()
                    if characters.first == "/" {
                        characters.removeFirst()
                        out += "(?:.*/)?"
                    } else {
                        out += ".*"
                    }
                } else {
                    out += "[^/]*"
                }
            case "?": out += "[^/]"
            case "[":
                if let close = characters.dropFirst().firstIndex(of: "]") {
                    var members = String(characters[..<close]).replacing("\\", with: "\\\\")
                    if members.hasPrefix("!") { members = "^" + members.dropFirst() }
                    out += "[" + members + "]"
                    characters = characters[(close + 1)...]
                } else {
                    out += "\\["
                }
            default: out += Pattern.escaped(String(character))
            }
        }
        return out
    }
}
