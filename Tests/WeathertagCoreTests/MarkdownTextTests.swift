import Testing
import WeathertagCore
import WeathertagTestSupport

/// Excerpts are words: Markdown's images, links, headings, emphasis, code, HTML and tables taken away.
@Suite("Markdown as plain words")
struct MarkdownTextTests {
    static func plain(_ text: String) -> String { MarkdownText.plain(text[...]) }

    /// A sentence's line (a letter first, no pipe last) skips the block checks: what it gives is what the whole
    /// way gives, line after line, on the lines that come near the edge of that shortcut.
    @Test func aSentenceReadsAsTheWholeWayReadsIt() {
        let lines: [Substring] = [
            "Plain words.", "  indented words", "\tTabbed", "word | cell |", "a|b", "ends with a pipe|",
            "Ünïcode first", "한국어 일기", " \u{301}a combining mark after a space", "\u{301}combining first",
            "\u{A0}- after a no-break space", "\u{600}| a prepended pipe", "x ![img](a.png) y", "word `code` **bold**",
            "an <!-- opening comment", "inside it", "--> and out", "text with a \\* escape", "Z", "zebra|\u{301}",
            "# heading", "1. one", "- item", "> quote", "```", "Code line", "```", "~~~", "[x] box", "| a |",
            "", "   ", "Mixed ordinary line with trailing spaces   ", "é",
        ]
        var fast = MarkdownText()
        var whole = MarkdownText()
        for line in lines {
            #expect(fast.plain(line) == whole.plainByBlocks(line), "\(line.debugDescription)")
        }
    }

    @Test func imagesGoLinksKeepTheirText() {
        #expect(Self.plain("![](dayone-moment://76F9B0AC37954B51BF8B9146498B29C2)") == "")
        #expect(Self.plain("Before ![a cat](photos/cat.jpeg \"Tom\") after") == "Before after")
        #expect(Self.plain("See [the market](https://example.org/a_(b)) today") == "See the market today")
        #expect(Self.plain("[ref link][1] and [another][]") == "ref link and another")
        #expect(Self.plain("[![badge](b.svg)](https://x)") == "", "an image inside a link's text")
        #expect(Self.plain("<https://example.org> and <me@example.org>") == "https://example.org and me@example.org")
        #expect(Self.plain("[1]: https://example.org/one") == "", "a reference definition shows nothing")
        #expect(Self.plain("[not a link] and [half](") == "[not a link] and [half](")
    }

    @Test func blocksGiveTheirWords() {
        #expect(Self.plain("# Dinner in Cairns #") == "Dinner in Cairns")
        #expect(Self.plain("###### six") == "six" && Self.plain("####### seven") == "####### seven")
        #expect(Self.plain("#hashtag") == "#hashtag", "a tag is not a heading")
        #expect(Self.plain("> quoted\n> > twice") == "quoted twice")
        #expect(Self.plain("- one\n* two\n+ three\n1. four\n2) five") == "one two three four five")
        #expect(Self.plain("- [ ] to do\n- [x] done") == "to do done")
        #expect(Self.plain("Title\n=====\n\n---\n***\nText") == "Title Text")
        #expect(Self.plain("| day | rain |\n|-----|:----:|\n| Mon | 3 mm |") == "day rain Mon 3 mm")
    }

    @Test func codeFencesKeepTheirTextWithoutTheFences() {
        #expect(Self.plain("```swift\nlet a = 1\n```\nafter") == "let a = 1 after")
        #expect(Self.plain("~~~~\n```\nstill code\n~~~~") == "``` still code", "only its own fence closes it")
        #expect(Self.plain("use `make run` or ``a ` b``") == "use make run or a ` b")
        #expect(Self.plain("an `unclosed code span") == "an `unclosed code span")
    }

    @Test func emphasisGoesWordsInsideWordsStay() {
        #expect(Self.plain("**bold**, *it* and _this_ and ~~gone~~.") == "bold, it and this and gone.")
        #expect(Self.plain("snake_case_name and 2*3*4 stay") == "snake_case_name and 2*3*4 stay")
        #expect(Self.plain("a * b and a ~ b") == "a * b and a ~ b")
        #expect(Self.plain("***both***") == "both")
    }

    @Test func htmlEscapesAndEntities() {
        #expect(Self.plain("<div class=\"x\">inside</div><br/>") == "inside")
        #expect(Self.plain("a <!-- hidden --> b") == "a b")
        #expect(Self.plain("a <!-- over\ntwo lines --> b\nc") == "a b c")
        #expect(Self.plain("1 < 2 and 3 > 2") == "1 < 2 and 3 > 2")
        #expect(Self.plain(#"\*not emphasis\* and 1999\. a\\b"#) == #"*not emphasis* and 1999. a\b"#)
        #expect(Self.plain("fish &amp; chips &nbsp;&copy;") == "fish & chips &copy;")
    }

    /// Real Day One text: entries of a trip exported by Day One for iOS 14.4 (2021), as published in the repository
    /// gokuvinoth/Cairns (app.js, `tripExportData`), escapes and all.
    @Test func realDayOneTextReadsAsWords() {
        let packed = #"""
            # All packed up finally \.\. still checking on weather \.\.\. 

            ![](dayone-moment://76F9B0AC37954B51BF8B9146498B29C2)

            Cairns here we come\. Gud nit canberra\.
            """#
        #expect(
            Self.plain(packed)
                == "All packed up finally .. still checking on weather ... Cairns here we come. Gud nit canberra.")
        let bus = #"""
            # We made to 🚌

            ![](dayone-moment://3A0B48391D074104BD579A943571A2E7)

            Masks on \.\.\. got ours seats 3A n 3B\.\. look out sydney  here we come
            """#
        #expect(Self.plain(bus) == "We made to 🚌 Masks on ... got ours seats 3A n 3B.. look out sydney here we come")
    }

    /// The excerpt an entry shows: the words after its title, the title a heading's words.
    @Test func anEntrysExcerptAndTitleAreWords() {
        let text = """
            ---
            date: 2021-03-10T20:25:00+10:00
            ---
            # **Dinners** at [the pier](https://example.org)

            ![](photos/8D0C6.jpeg)

            > Prawns, _lots_ of them. `#seafood`
            """
        let entry = DiaryEntry.read(Array(text.utf8), fileName: "dinner.md", modified: Fixtures.observedAt)
        #expect(entry.title == "Dinners at the pier")
        #expect(entry.excerpt == "Prawns, lots of them. #seafood")
    }

    /// Lines of unclosed brackets, stars and code marks are read whole without recursion, and an entry's excerpt
    /// reads only the start of a half-megabyte line (its time is `make bench`'s, not a test's).
    @Test func hostileLinesAreReadInOnePass() {
        let brackets = String(repeating: "[![", count: 20_000)
        #expect(Self.plain(brackets).count == brackets.count)
        let entry = DiaryEntry.read(
            Array(("# t\n" + String(repeating: "*_`<[", count: 100_000)).utf8), fileName: "x.md",
            modified: Fixtures.observedAt)
        #expect(entry.excerpt.count <= DiaryEntry.excerptLength)
    }
}
