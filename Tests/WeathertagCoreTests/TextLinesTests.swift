import Testing
import WeathertagCore

/// The byte-level line and word helpers the diary index reads every entry with give what their `Character` twins
/// give, on the texts that tell them apart.
@Suite("Lines and words by bytes")
struct TextLinesTests {
    static let texts: [String] = [
        "", "\n", "\n\n", "one", "one\n", "one\ntwo", "one\r\ntwo\rthree\n\nfour", "a\u{0B}b\u{0C}c",
        "next\u{85}line", "line\u{2028}separator\u{2029}paragraph", "\r", "\r\n\r\n", "é\u{301}\ncafé\r\n",
        "한국어 일기\n비가 왔다", "emoji 👩‍👩‍👧\n🇰🇷 flag", "trailing\r", "\u{2028}", "\u{E2}\u{80} not a separator",
        "crlf at end\r\n", "\n\u{301} a combining mark after a break",
        "  spaced \t words\u{A0}nbsp\u{3000}ideographic ",
        "tab\tand\u{0B}vertical\u{0C}feed", "---\ntitle: x\n...\nbody",
    ]

    @Test func linesSplitWhereCharactersDo() {
        for text in Self.texts {
            let expected = text[...].split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            #expect(text[...].lines() == expected, "\(text.debugDescription)")
        }
        // A slice of a larger text keeps its bounds.
        let whole = "skip\nthis\npart\r\nand\u{2028}that"
        let slice = whole[whole.index(whole.startIndex, offsetBy: 5)...]
        #expect(slice.lines() == slice.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline))
    }

    /// The scans go eight bytes at a time: a break, a CR or a character that is not ASCII at each place of a word,
    /// in texts long enough to hold several, is found where the `Character` view finds it.
    @Test func eachPlaceOfAWordIsLookedAt() {
        for special in ["\n", "\r", "\r\n", "\u{0B}", "é", "\u{85}", "\u{2028}", "\u{2029}", "\t", "\u{7F}", "\u{0E}"] {
            for length in [7, 8, 9, 15, 16, 17, 31, 40] {
                for place in 0...length {
                    var text = String(repeating: "x", count: length)
                    text.insert(contentsOf: special, at: text.index(text.startIndex, offsetBy: place))
                    let described = "\(special.debugDescription) at \(place) of \(length)"
                    #expect(
                        text[...].lines()
                            == text[...].split(omittingEmptySubsequences: false, whereSeparator: \.isNewline),
                        "\(described)")
                    #expect(text.characterCount == text.count, "\(described)")
                    #expect(text.prefix(characters: place + 1) == text.prefix(place + 1), "\(described)")
                }
            }
        }
    }

    @Test func wordsCollapseAsCharactersDo() {
        for text in Self.texts {
            let expected = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(text.collapsingWhitespace() == expected, "\(text.debugDescription)")
            #expect(text[...].collapsingWhitespace() == expected, "\(text.debugDescription)")
        }
    }

    /// `collapses(to:)` agrees with making the collapsed string and comparing it, for each text against its own
    /// collapse, that collapse changed at each place, and the other texts.
    @Test func aTextCollapsesToWhatItsWordsJoinedAre() {
        for text in Self.texts + ["  Title  ", "Title\t\tof\u{00A0}it", "a \u{0301}b", "Ti tle", "Tit"] {
            let collapsed = text.collapsingWhitespace()
            var others = Self.texts + ["", " ", collapsed + " ", " " + collapsed, collapsed + "x"]
            for place in collapsed.indices {
                var changed = collapsed
                changed.replaceSubrange(place...place, with: collapsed[place] == "x" ? "y" : "x")
                others.append(changed)
                others.append(String(collapsed[..<place]))
            }
            #expect(text.collapses(to: collapsed), "\(text.debugDescription)")
            #expect(text[...].collapses(to: collapsed), "\(text.debugDescription)")
            for other in others {
                #expect(
                    text[...].collapses(to: other) == (collapsed == other),
                    "\(text.debugDescription) against \(other.debugDescription)")
            }
        }
    }

    @Test func prefixesAndCountsAreCharacters() {
        for text in Self.texts + ["a\r\nb\r\nc", "abc\r", String(repeating: "word ", count: 300)] {
            for count in [0, 1, 2, 3, 5, 200, 800, 2000] {
                #expect(text.prefix(characters: count) == text.prefix(count), "\(text.debugDescription) \(count)")
                #expect(text[...].prefix(characters: count) == text[...].prefix(count))
            }
            #expect(text.characterCount == text.count, "\(text.debugDescription)")
        }
    }

    @Test func asciiSearchFindsWhatStringSearchFinds() {
        let haystacks = ["", "!", "![", "a ![b](c) ![d](e)", "é![x](y.png)", "!!![", "--->", "<!-- a -- b -->", "][("]
        for haystack in haystacks {
            for needle: StaticString in ["![", "](", "-->", "---"] {
                let text = haystack[...]
                #expect(
                    text.firstRange(ofASCII: needle) == text.firstRange(of: "\(needle)"),
                    "\(haystack.debugDescription) \(needle)")
            }
        }
        // In a slice of a larger text, from the slice's start: a match before it or across its end is not found.
        let whole = "![a](b) then ![c](d) and ]("
        let slice = whole[whole.index(whole.startIndex, offsetBy: 3)..<whole.index(whole.endIndex, offsetBy: -1)]
        for needle: StaticString in ["![", "](", "("] {
            #expect(slice.firstRange(ofASCII: needle) == slice.firstRange(of: "\(needle)"), "\(needle)")
        }
    }

    @Test func linesAreJoinedAsJoinedDoes() {
        for lines in [[], [""], ["", ""], ["weather:"], ["a", "", "b"], ["한국어", "é\u{301}", "👩‍👩‍👧", "\r"]] {
            #expect(lines.joinedLines() == lines.joined(separator: "\n"), "\(lines)")
        }
        #expect(Self.texts.joinedLines() == Self.texts.joined(separator: "\n"))
    }

    @Test func pathsSplitAtTheirLastSlashAsCharactersDo() {
        let paths = [
            "", "/", "//", "a.md", "2019/a.md", "2019/05/a.md", "/abs/a.md", "a/b/", "a//b", "trailing//",
            "한국/일기.md", "emoji 👩‍👩‍👧/🇰🇷.md", "é\u{301}/café.md", ".hidden/.e000001.md.123.x-1.weathertag-tmp",
            "crlf\r\n/name",
        ]
        for path in paths {
            #expect(path.lastIndex(ofASCII: UInt8(ascii: "/")) == path.lastIndex(of: "/"), "\(path.debugDescription)")
            #expect(
                path[...].lastIndex(ofASCII: UInt8(ascii: "/")) == path[...].lastIndex(of: "/"),
                "\(path.debugDescription)")
            #expect(
                Paths.fileName(path) == path.split(separator: "/").last.map(String.init) ?? path,
                "\(path.debugDescription)")
            if let slash = path.lastIndex(of: "/") {
                let expected = (String(path[..<slash]), String(path[path.index(after: slash)...]))
                #expect(InboxTree.split(path) == expected, "\(path.debugDescription)")
            } else {
                #expect(InboxTree.split(path) == ("", path), "\(path.debugDescription)")
            }
        }
        // Where they differ: a combining mark after the slash makes one `Character` of the two, which is not "/";
        // the kernel splits the path at the slash, and so do the bytes.
        let combining = "folder/\u{301}name.md"
        #expect(combining.lastIndex(of: "/") == nil)
        #expect(InboxTree.split(combining) == ("folder", "\u{301}name.md"))
        #expect(Paths.fileName(combining) == "\u{301}name.md")
    }

    @Test func asciiSets() {
        let marks = ASCIISet("\\`[<*_~&")
        #expect(marks.contains(UInt8(ascii: "\\")) && marks.contains(UInt8(ascii: "&")))
        #expect(!marks.contains(UInt8(ascii: "a")) && !marks.contains(0xC3) && !marks.contains(0))
        #expect("plain words, é and 한".dropFirst(0).holdsNone(of: marks))
        #expect(!"a *word*"[...].holdsNone(of: marks))
        let text = "*plain* words *"
        #expect(text.dropFirst(7).dropLast(1).holdsNone(of: marks) && !text.dropFirst(6).holdsNone(of: marks))
    }
}
