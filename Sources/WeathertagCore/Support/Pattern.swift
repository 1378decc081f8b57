/// A regular expression, in Swift's own regex engine (the standard library's, which needs no ICU: see `Zone` for
/// why weathertag links none).
///
/// `@unchecked Sendable`: a compiled `Regex` is never changed; it is not declared `Sendable` only because its
/// output type (`AnyRegexOutput`) is not.
package struct Pattern: @unchecked Sendable {
    private let regex: Regex<AnyRegexOutput>

    /// Nil when `source` is not an expression.
    package init?(_ source: String) {
        guard let regex = try? Regex(source) else { return nil }
        self.regex = regex
    }

    /// The first match's groups: 0 the whole match, then each group (nil where it took no part).
    package func firstMatch(in text: String) -> [String?]? {
        guard let match = try? self.regex.firstMatch(in: text) else { return nil }
        return match.output.map { $0.substring.map(String.init) }
    }

    /// Whether the whole of `text` matches.
    package func wholeMatches(_ text: String) -> Bool {
        (try? self.regex.wholeMatch(in: text)) != nil
    }

    /// `text` with every character that means something in an expression escaped.
    package static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            if #"\^$.|?*+()[]{}"#.contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
