/// Day One's text as Markdown a person reads. Day One escapes Markdown's punctuation wherever it stands
/// (`This is my second diary\.`, `\- not a list`, `\(yes\)`); an escape is taken away where the character means
/// nothing there, and kept where taking it away would make a list, a heading, a quote, emphasis, code or a link of
/// what was text. Links to the export's photos (`![](dayone-moment://ID)`) become links to the copied files.
package enum DayOneText {
    /// Characters whose escape is always kept: they make emphasis, code, links, HTML or escapes anywhere in a line.
    private static let meaningful: Set<Character> = ["\\", "`", "*", "_", "[", "]", "<", ">", "|", "~"]
    /// Characters whose escape is kept at the start of a line (after blanks): a list item, a heading, a quote, a
    /// rule, a setext underline, a table or a code fence.
    private static let meaningfulFirst: Set<Character> = ["-", "+", "#", "=", ">", "|", "~", "`"]

    /// The text without the escapes that mean nothing.
    package static func unescaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var atLineStart = true
        var digitsOnly = true
        var characters = text.makeIterator()
        var pending: Character? = characters.next()
        while let character = pending {
            pending = characters.next()
            if character == "\\", let next = pending, next.isASCII, next.isPunctuation || next.isSymbol {
                let keep =
                    Self.meaningful.contains(next)
                    || (atLineStart && Self.meaningfulFirst.contains(next))
                    // `1\.` or `1\)` at a line's start: an ordered list once unescaped.
                    || (digitsOnly && !atLineStart && (next == "." || next == ")"))
                if keep { result.append(character) }
                result.append(next)
                pending = characters.next()
                atLineStart = false
                digitsOnly = false
                continue
            }
            result.append(character)
            if character == "\n" {
                atLineStart = true
                digitsOnly = true
            } else if character == " " || character == "\t" {
                if !atLineStart { digitsOnly = false }
            } else {
                if !(character.isASCII && character.isNumber) { digitsOnly = false }
                atLineStart = false
            }
        }
        return result
    }

    /// `dayone-moment://ID` (and `dayone-moment:/ID`, as some exports write it) replaced by `links[ID]` where
    /// there is one; other links as they are.
    package static func rewritingLinks(_ text: String, _ links: [String: String]) -> String {
        guard !links.isEmpty, text.contains("dayone-moment:") else { return text }
        var result = ""
        var rest = text[...]
        while let range = rest.firstRange(of: "dayone-moment:") {
            result += rest[..<range.lowerBound]
            var after = rest[range.upperBound...]
            while after.first == "/" { after = after.dropFirst() }
            let identifier = after.prefix { $0.isLetter || $0.isNumber || $0 == "-" }
            if let link = links[String(identifier)] {
                result += link
                rest = after.dropFirst(identifier.count)
            } else {
                result += rest[range]
                rest = rest[range.upperBound...]
            }
        }
        return result + rest
    }

    /// The identifiers the text links to, in order, each once.
    package static func linkedIdentifiers(_ text: String) -> [String] {
        var found: [String] = []
        var rest = text[...]
        while let range = rest.firstRange(of: "dayone-moment:") {
            var after = rest[range.upperBound...]
            while after.first == "/" { after = after.dropFirst() }
            let identifier = String(after.prefix { $0.isLetter || $0.isNumber || $0 == "-" })
            if !identifier.isEmpty, !found.contains(identifier) { found.append(identifier) }
            rest = after
        }
        return found
    }

    /// A title from the text: its first line that says something (a Markdown heading's words, or the line), at most
    /// 120 characters; nil when the text has no words.
    package static func title(of text: String) -> String? {
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            var words = line.trimmingWhitespace()
            if words.hasPrefix("#") { words = String(words.drop { $0 == "#" }).trimmingWhitespace() }
            // A line that is only a photo says nothing.
            if words.hasPrefix("!["), words.hasSuffix(")") { continue }
            if words.isEmpty { continue }
            return words.count > 120 ? String(words.prefix(119)) + "…" : words
        }
        return nil
    }
}
