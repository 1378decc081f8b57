/// Markdown as the plain words a person reads: what an excerpt shows in `entries`, `/v1/entries`, waybar and the
/// timeline. An image becomes nothing (Day One's `![](dayone-moment://…)` among them), a link its text, a heading,
/// a quote or a list item its words; emphasis, code spans and fences, HTML tags and comments, tables' pipes and
/// escapes are taken away.
///
/// Why not a Markdown library: the mirror has Ink, whose output is HTML (to be stripped again) and which imports
/// Foundation, and an excerpt needs only the words of a diary's first lines. This reads a line at a time, left to
/// right, with no recursion; a bracket or a tag looks ahead at most `lookAhead` characters for its end, and a code
/// span's search that found no end is not repeated, so a hostile line costs time in proportion to its length. Nested links do not exist in Markdown; an image inside a link's text is dropped whole.
package struct MarkdownText: Sendable {
    /// What a line's meaning depends on from the lines before it.
    private enum Block: Equatable {
        case text
        case fence(marker: Character, length: Int)
        case htmlComment
    }

    private var block = Block.text

    /// How far a `[` looks for the end of its link (its text and its destination) and a `<` for its `>`: longer
    /// ones stay as written.
    static let lookAhead = 512

    package init() {}

    /// The plain words of `line`, the next line of a text read from its start (empty when it holds none).
    package mutating func plain(_ line: Substring) -> String {
        // Most of a diary's lines are sentences: one that starts with a letter (or any non-ASCII character) and
        // does not end with a pipe opens no block and is no table row, so only its inline marks are read. The checks
        // it skips cost two thirds of an excerpt's line (`plainByBlocks` is the whole way, and gives the same).
        if self.block == .text, let sentence = Self.sentence(line) {
            return Self.words(Self.inline(sentence, block: &self.block))
        }
        return self.plainByBlocks(line)
    }

    /// The line after its spaces and tabs when it starts with an ASCII letter (or, with no spaces before, a non-ASCII
    /// byte) and its last byte is not `|`; nil otherwise. No block starts with a letter (markers, fences, rules, references and tables
    /// start with punctuation or a digit), and a character that is not ASCII is none of those marks. A last byte
    /// other than `|` means a last `Character` other than `|`, and the other way round is left to the whole way.
    private static func sentence(_ line: Substring) -> Substring? {
        let utf8 = line.utf8
        guard let start = utf8.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }), let last = utf8.last,
            last != UInt8(ascii: "|")
        else { return nil }
        let first = utf8[start]
        // (After spaces, a non-ASCII character may be a combining mark, one `Character` with the space before it.)
        let nonASCII = first >= 0x80 && start == utf8.startIndex
        guard nonASCII || (first | 0x20 >= UInt8(ascii: "a") && first | 0x20 <= UInt8(ascii: "z")) else {
            return nil
        }
        return line[start...]
    }

    /// `plain(_:)` the whole way: the blocks a line can open or continue, then its inline marks.
    package mutating func plainByBlocks(_ line: Substring) -> String {
        var rest = line.drop { $0 == " " || $0 == "\t" }
        switch self.block {
        case .fence(let marker, let length):
            if Self.fence(rest).map({ $0.marker == marker && $0.length >= length && $0.info.isEmpty }) == true {
                self.block = .text
                return ""
            }
            return String(line)
        case .htmlComment:
            guard let end = rest.firstRange(ofASCII: "-->") else { return "" }
            self.block = .text
            rest = rest[end.upperBound...].drop { $0 == " " }
        case .text:
            break
        }
        if let fence = Self.fence(rest) {
            self.block = .fence(marker: fence.marker, length: fence.length)
            return ""
        }
        if Self.isRule(rest) || Self.isReferenceDefinition(rest) { return "" }
        rest = Self.withoutBlockMarkers(rest)
        if rest.hasPrefix("|") || rest.hasSuffix("|") {
            if rest.allSatisfy({ "|-: \t".contains($0) }) { return "" }
            rest = Substring(rest.map { $0 == "|" ? " " : $0 })
        }
        return Self.words(Self.inline(rest, block: &self.block))
    }

    /// The plain words of a whole text.
    package static func plain(_ text: Substring) -> String {
        var reader = MarkdownText()
        return text.lines().filter { !$0.isEmpty }.map { reader.plain($0) }.filter { !$0.isEmpty }
            .joined(separator: " ")
    }

    // MARK: Blocks

    /// "```swift" or "~~~": the fence's character, its length and what follows it.
    private static func fence(_ line: Substring) -> (marker: Character, length: Int, info: Substring)? {
        guard let marker = line.first, marker == "`" || marker == "~" else { return nil }
        let run = line.prefix { $0 == marker }
        guard run.count >= 3 else { return nil }
        let info = line.dropFirst(run.count).trimmingWhitespace()
        if marker == "`" && info.contains("`") { return nil }
        return (marker, run.count, Substring(info))
    }

    /// A thematic break (`---`, `* * *`) or a setext heading's underline (`===`).
    private static func isRule(_ line: Substring) -> Bool {
        guard let first = line.first, "-*_=".contains(first) else { return false }
        let marks = line.filter { $0 != " " && $0 != "\t" }
        return marks.count >= 2 && marks.allSatisfy { $0 == first } && (marks.count >= 3 || first == "=")
    }

    /// `[label]: https://…`, which shows nothing where it stands.
    private static func isReferenceDefinition(_ line: Substring) -> Bool {
        guard line.first == "[", let close = line.firstIndex(of: "]") else { return false }
        return line[line.index(after: close)...].first == ":"
    }

    /// The line without its heading hashes, quote marks, list marker and task box.
    private static func withoutBlockMarkers(_ line: Substring) -> Substring {
        var rest = line
        while rest.first == ">" { rest = rest.dropFirst().drop { $0 == " " } }
        if rest.first == "#" {
            let hashes = rest.prefix { $0 == "#" }
            let after = rest.dropFirst(hashes.count)
            if hashes.count <= 6, after.isEmpty || after.first == " " || after.first == "\t" {
                rest = after.drop { $0 == " " || $0 == "\t" }
                while rest.last == "#" || rest.last == " " { rest = rest.dropLast() }
                return rest
            }
        }
        if let first = rest.first, "-*+".contains(first), rest.dropFirst().first == " " {
            rest = rest.dropFirst(2).drop { $0 == " " }
        } else {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            let after = rest.dropFirst(digits.count)
            if (1...9).contains(digits.count), let mark = after.first, mark == "." || mark == ")",
                after.dropFirst().first == " " || after.count == 1
            {
                rest = after.dropFirst().drop { $0 == " " }
            }
        }
        for box in ["[ ] ", "[x] ", "[X] "] where rest.hasPrefix(box) { rest = rest.dropFirst(box.count) }
        return rest
    }

    // MARK: Inline

    /// What inline Markdown starts with: a line without any of these is its own text.
    private static let inlineMarks = ASCIISet("\\`[<*_~&")

    /// One line's inline Markdown as text. A comment left open (`<!--` without `-->`) carries on in `block`.
    private static func inline(_ line: Substring, block: inout Block) -> String {
        // Most of a diary's lines are words alone: each character would be taken as it is.
        if line.holdsNone(of: Self.inlineMarks) { return String(line) }
        let characters = Array(line)
        var text = ""
        text.reserveCapacity(characters.count)
        var index = 0
        // Where the link whose text is being read ends: its `]` and the index just past its destination.
        var link: (close: Int, after: Int)?
        // Searches that found no end from an earlier index find none from a later one either.
        var unclosedRuns: Set<Int> = []
        while index < characters.count {
            if let open = link, index == open.close {
                index = open.after
                link = nil
                continue
            }
            let character = characters[index]
            switch character {
            case "\\" where index + 1 < characters.count && Self.isASCIIPunctuation(characters[index + 1]):
                text.append(characters[index + 1])
                index += 2
            case "`":
                let run = Self.run(of: "`", in: characters, from: index)
                let close =
                    unclosedRuns.contains(run)
                    ? nil : Self.closingRun(of: "`", length: run, in: characters, from: index + run)
                if close == nil { unclosedRuns.insert(run) }
                if let close {
                    text += String(characters[(index + run)..<close]).trimmingWhitespace()
                    index = close + run
                } else {
                    text += String(repeating: "`", count: run)
                    index += run
                }
            case "!" where index + 1 < characters.count && characters[index + 1] == "[":
                if let end = Self.linkEnd(characters, open: index + 1) {
                    index = end.after
                } else {
                    text.append("!")
                    index += 1
                }
            case "[" where link == nil:
                if let end = Self.linkEnd(characters, open: index) {
                    link = end
                } else {
                    text.append("[")
                }
                index += 1
            case "<":
                if let (end, autolink) = Self.tag(characters, from: index, block: &block) {
                    if let autolink { text += autolink }
                    index = end
                    if block == .htmlComment { return text }
                } else {
                    text.append("<")
                    index += 1
                }
            case "*", "_", "~":
                let run = Self.run(of: character, in: characters, from: index)
                if !Self.isDelimiter(character, run: run, in: characters, at: index) {
                    text += String(repeating: character, count: run)
                }
                index += run
            case "&":
                if let (decoded, end) = Self.entity(characters, from: index) {
                    text += decoded
                    index = end
                } else {
                    text.append("&")
                    index += 1
                }
            default:
                text.append(character)
                index += 1
            }
        }
        return text
    }

    private static func run(of character: Character, in characters: [Character], from start: Int) -> Int {
        var end = start
        while end < characters.count && characters[end] == character { end += 1 }
        return end - start
    }

    /// The start of the next run of exactly `length` of `character`.
    private static func closingRun(
        of character: Character, length: Int, in characters: [Character], from start: Int
    )
        -> Int?
    {
        var index = start
        while index < characters.count {
            guard characters[index] == character else {
                index += 1
                continue
            }
            let run = Self.run(of: character, in: characters, from: index)
            if run == length { return index }
            index += run
        }
        return nil
    }

    /// `[text](destination)` or `[text][label]` starting at `open`: where its text closes and the index after it.
    private static func linkEnd(_ characters: [Character], open: Int) -> (close: Int, after: Int)? {
        var depth = 0
        var index = open
        var close: Int?
        let limit = min(characters.count, open + Self.lookAhead)
        while index < limit {
            switch characters[index] {
            case "\\": index += 1
            case "[": depth += 1
            case "]":
                depth -= 1
                if depth == 0 { close = index }
            default: break
            }
            if close != nil { break }
            index += 1
        }
        guard let close, close + 1 < limit else { return nil }
        let opener = characters[close + 1]
        guard opener == "(" || opener == "[" else { return nil }
        let closer: Character = opener == "(" ? ")" : "]"
        var nesting = 0
        index = close + 1
        while index < limit {
            if characters[index] == opener { nesting += 1 }
            if characters[index] == closer {
                nesting -= 1
                if nesting == 0 { return (close, index + 1) }
            }
            index += 1
        }
        return nil
    }

    /// An HTML tag or comment (nothing shown), or an autolink (its address shown), at `start`: the index after it.
    private static func tag(
        _ characters: [Character], from start: Int, block: inout Block
    )
        -> (end: Int, autolink: String?)?
    {
        let rest = characters[(start + 1)...]
        if rest.starts(with: ["!", "-", "-"]) {
            let body = String(rest.dropFirst(3))
            guard let end = body.firstRange(of: "-->") else {
                block = .htmlComment
                return (characters.count, nil)
            }
            return (start + 4 + body.distance(from: body.startIndex, to: end.upperBound), nil)
        }
        guard let close = rest.prefix(Self.lookAhead).firstIndex(of: ">") else { return nil }
        let inside = characters[(start + 1)..<close]
        guard let first = inside.first, !inside.contains("<") else { return nil }
        if first.isLetter || first == "/" {
            let name = inside.drop { $0 == "/" }.prefix { $0.isLetter || $0.isNumber || $0 == "-" }
            let afterName = inside.drop { $0 == "/" }.dropFirst(name.count).first
            if !name.isEmpty, afterName == nil || afterName == " " || afterName == "/" || afterName == "\t" {
                return (close + 1, nil)
            }
        }
        let address = String(inside)
        if !address.contains(" "), address.contains("://") || address.contains("@") { return (close + 1, address) }
        return nil
    }

    /// Whether a run of `*`, `_` or `~~` opens or closes emphasis (and is taken away), by CommonMark's flanking
    /// rules for `_`: it opens before a word (not after one), closes after a word (not before one), and touches
    /// punctuation on the other side when it does both. Inside a word (snake_case, 2*3) or between spaces it stays,
    /// and so does a single `~`.
    private static func isDelimiter(
        _ character: Character, run: Int, in characters: [Character], at index: Int
    )
        -> Bool
    {
        if character == "~" && run < 2 { return false }
        let before = index > 0 ? characters[index - 1] : " "
        let after = index + run < characters.count ? characters[index + run] : " "
        let punctuation = { (character: Character) in character.isPunctuation || character.isSymbol }
        let opens = !after.isWhitespace && (!punctuation(after) || before.isWhitespace || punctuation(before))
        let closes = !before.isWhitespace && (!punctuation(before) || after.isWhitespace || punctuation(after))
        return (opens && (!closes || punctuation(before))) || (closes && (!opens || punctuation(after)))
    }

    private static let entities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "#39": "'", "nbsp": " ",
    ]

    private static func entity(_ characters: [Character], from start: Int) -> (String, Int)? {
        var index = start + 1
        var name = ""
        while index < characters.count && index - start <= 6 {
            if characters[index] == ";" { return Self.entities[name].map { ($0, index + 1) } }
            name.append(characters[index])
            index += 1
        }
        return nil
    }

    private static func isASCIIPunctuation(_ character: Character) -> Bool {
        character.isASCII && (character.isPunctuation || character.isSymbol)
    }

    private static func words(_ text: String) -> String {
        text.collapsingWhitespace()
    }
}
