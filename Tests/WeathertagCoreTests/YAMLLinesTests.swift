import Foundation
import Testing
import Yams

@testable import WeathertagCore

/// `YAMLLines` reads the common shape of front matter without libyaml, and only text that libyaml composes to the
/// same nodes: every text here is read both ways, and what the line reader takes must be what libyaml gives.
@Suite struct YAMLLinesTests {
    /// The line reader's answer for `yaml` held to libyaml's, with and without looking past the document; whether
    /// it took the text.
    @discardableResult
    static func agrees(_ yaml: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        var taken = false
        for past in [false, true] {
            guard let lines = YAMLNode.composeByLines(yaml, lookingPastTheDocument: past) else { continue }
            taken = true
            let libyaml = Result { () throws(YAMLError) in
                try YAMLNode.composeWithLibYAML(yaml, lookingPastTheDocument: past)
            }
            let theirs = try? libyaml.get()
            #expect(
                theirs == lines,
                "\(yaml.debugDescription) is read as libyaml reads it: \(Self.brief(lines)) against \(Self.brief(theirs))",
                sourceLocation: sourceLocation)
        }
        return taken
    }

    /// A composed document in a line: its tree, its nodes, whether it takes keys after it.
    static func brief(_ composed: YAMLNode.Composed?) -> String {
        guard let composed else { return "an error" }
        return "\(composed.node.map(YAMLSuiteTests.canonical) ?? "nothing") (\(composed.nodes) nodes, "
            + "\(composed.takesKeysAfterIt ? "takes keys" : "takes none"))"
    }

    /// What diaries hold: read by lines, as libyaml and Yams (the tests' oracle) read it.
    @Test(arguments: [
        // The bench's stamped entry.
        "title: \"Entry 7\"\ndate: 2016-01-02T09:30:00Z\nweather:\n  condition: Rain\n  description: light rain\n"
            + "  icon: 10d\n  temperature: -3.5\n  units: metric\n  place: Seoul\n  country: KR\n  kind: current\n"
            + "  location:\n    latitude: 37.512\n    longitude: 126.931\n    source: gpsd\n",
        "title: 제주의 바람\ndate: 2019-05-01 08:30\ntimezone: Asia/Seoul\nmood: 4\n",
        "# written on the train\ntitle: 'Rain, again'   # a comment\n\ntags: diary, rain\nplace:\nlocation: x\n",
        "a:\n  b:\n    c: 1\n  d:\ne: ~\nf: null # none\ng: \"\"\nh: ''\ni: \"é ü → 👩‍👩‍👧\"\nj: -x\nk: http://x/y#z\n",
        "weather:\n  place: Seoul\n# a note\n  kind: current\ndone: yes\n",
        "a: b :c\nb: \"say: hi\"\n",
        "title: \"Entry 2\"\ntags: [diary, bench]\n",
        "tags: []\nb: [ x ,'y z', \"w\" ]  # c\nc: [new york, -3, 2.5, ~, é/한, a+b]\nd: [\"\"]\n",
    ])
    func readsTheCommonShapeAsLibYAMLAndYamsDo(yaml: String) throws {
        let lines = try #require(YAMLNode.composeByLines(yaml, lookingPastTheDocument: true), "read by lines")
        #expect(lines.takesKeysAfterIt)
        #expect(Self.agrees(yaml))
        let node = try #require(lines.node)
        #expect(YAMLSuiteTests.canonical(node) == (try Yams.compose(yaml: yaml)).map { YAMLSuiteTests.canonical($0) })
    }

    /// Everything past the shape's edges is left to libyaml: errors, the YAML the shape does not cover, and bytes it
    /// leaves alone.
    @Test(arguments: [
        "", "\n", "# only a comment\n", "  \n", "a: 1\n  \n", "a:\tb\n", "a: b\r\n", "\u{FEFF}a: b\n", "a: b\u{85}c\n",
        "a: b\u{2028}\n", "a: \u{7F}\n", "a: \u{1}\n", "a: \u{9F}\n", "a: \u{FFFE}\n", " a: 1\n", "a: 1\n b: 2\n",
        "a: 1\n  more\n", "a:\n  b: 1\n c: 2\n", "a: 1\na: 2\n", "a:\na: 2\n", "a:\n  x: 1\na: 2\n", "a:b\n",
        "a : b\n", "a: b: c\n", "a: b:\n", "a: - b\n", "a: -\n", "- a\n", "a:\n- b\n", "a: {b: 1}\n",
        "a: &x b\n", "a: *x\n", "a: !!str b\n", "a: |\n  b\n", "a: >\n  b\n", "? a\n: b\n", "---\na: b\n",
        "a: b\n...\n", "a: b\n---\nc: d\n", "%YAML 1.1\n---\na: b\n", "a: \"b\\nc\"\n", "a: 'it''s'\n",
        "a: \"b\"c\n", "a: \"b\"#c\n", "a: \"b\n", "a: 'b\n", "\"a\": b\n", "1a: b\n", "a.b: c\n", "é: b\n",
        "a: @b\n", "a: `b\n", "a: %b\n", "a: ,b\n", "a: ?b\n", "a: :b\n", "a: |b\n",
        String(repeating: "k", count: 1024) + ": v\n", "a: [b, ]\n", "a: [b,,c]\n", "a: [,b]\n", "a: [b\n",
        "a: [b] c\n", "a: [b]#c\n", "a: [b: c]\n", "a: [[b]]\n", "a: [{b: c}]\n", "a: [b #c]\n", "a: [- b]\n",
        "a: [\"b\\\"\"]\n", "a: ['b''c']\n", "a: [b, 'c]\n", "a: [&x b]\n", "a: [b\tc]\n", "a: [?b]\n",
    ])
    func leavesTheRestToLibYAML(yaml: String) {
        #expect(YAMLNode.composeByLines(yaml, lookingPastTheDocument: true) == nil, "\(yaml.debugDescription)")
        #expect(YAMLNode.composeByLines(yaml, lookingPastTheDocument: false) == nil)
    }

    /// The bounds are the composer's: a mapping nested 64 deep or holding more than `YAMLLimit.maximumNodes` nodes
    /// goes to libyaml, which reports the limit; one level or node less is read by lines.
    @Test func theBoundsAreTheComposers() throws {
        func nested(_ depth: Int) -> String {
            (0..<depth).map { String(repeating: " ", count: $0) + "k:\n" }.joined()
                + String(repeating: " ", count: depth) + "v: 1\n"
        }
        #expect(Self.agrees(nested(YAMLLimit.maximumDepth - 1)))
        #expect(!Self.agrees(nested(YAMLLimit.maximumDepth)))
        #expect(throws: YAMLError.self) { try YAMLNode.compose(nested(YAMLLimit.maximumDepth)) }
        // A root mapping and its pairs: 1 + 2 × pairs nodes.
        func pairs(_ count: Int) -> String { (0..<count).map { "k\($0): v\n" }.joined() }
        let most = (YAMLLimit.maximumNodes - 1) / 2
        #expect(Self.agrees(pairs(most)))
        #expect(try YAMLNode.composeForAppending(pairs(most)).nodes == 1 + 2 * most)
        #expect(YAMLNode.composeByLines(pairs(most) + "k: v\n", lookingPastTheDocument: false) == nil)
        #expect(throws: YAMLError.self) { try YAMLNode.compose(pairs(most) + "x:\n") }
        #expect(YAMLNode.composeByLines(pairs(most) + "x:\n", lookingPastTheDocument: false) == nil)
        // Indexed keys: a repeated key found among many.
        #expect(YAMLNode.composeByLines(pairs(40) + "k3: again\n", lookingPastTheDocument: false) == nil)
    }

    /// Texts made at random from the pieces at the shape's edges (indentation, keys, colons, quotes, comments,
    /// escapes, tabs, CR, non-ASCII): whatever the line reader takes, libyaml reads the same.
    @Test func randomTextsAreReadAsLibYAMLReadsThem() {
        var generator = SplitMix(seed: 0x5EED_1A4E)
        // Mostly what a value holds, and now and then what may change how a line reads.
        let words = [
            "a", "b", "key", "k-1", "_x", "1", "-2.5", "x y", "é", "한", "~", "null", "\"q\"", "'q'", "[a, b]", "[x]",
            "[ 'y', -1 ]", "[]",
        ]
        let edges = [
            " ", "  ", ":", ": ", "#", " #", "\"", "'", "\\", "-", "- ", "\t", "\r", "[", "]", "{", ",", "&", "*", "!",
            "|", ">", "?", "%", "@", "...", "---", "\u{85}", "\u{FEFF}",
        ]
        var taken = 0
        for _ in 0..<20_000 {
            var yaml = ""
            for _ in 0..<Int(generator.next() % 6 + 1) {
                yaml += String(repeating: " ", count: [0, 0, 0, 2, 2, 4, 1, 3][Int(generator.next() % 8)])
                if generator.next() % 8 != 0 {
                    yaml += ["a", "b", "key", "c", "d_1", "e-f", "g", "h"][Int(generator.next() % 8)] + ":"
                }
                if generator.next() % 8 != 0 { yaml += " " }
                for _ in 0..<Int(generator.next() % 4) {
                    let pieces = generator.next() % 6 == 0 ? edges : words
                    yaml += pieces[Int(generator.next() % UInt64(pieces.count))]
                }
                yaml += "\n"
            }
            if Self.agrees(yaml) { taken += 1 }
        }
        // Not a vacuous comparison: a good share of the texts is read by lines.
        #expect(taken > 1_000, "\(taken) of 20,000 read by lines")
    }

    /// The YAML test suite's cases and the fuzzers' corpora, and each of their lines' texts as documents of their
    /// own: the same reading both ways.
    @Test func theSuiteAndTheCorporaAreReadAsLibYAMLReadsThem() throws {
        var texts: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: YAMLSuiteTests.folder.path)
        where file.hasSuffix(".yaml") {
            texts.append(try YAMLSuiteTests.document(String(file.dropLast(5))).yaml)
        }
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fuzz/corpus").standardizedFileURL
        for target in ["frontmatter", "stamper"] {
            let folder = corpus.appendingPathComponent(target)
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                let bytes = try Data(contentsOf: folder.appendingPathComponent(file))
                texts.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        #expect(texts.count > 60)
        var taken = 0
        for text in texts {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            // The whole, its front matter's lines (between `---` markers), and every run of lines from the first.
            var variants = [text]
            for end in lines.indices { variants.append(lines[...end].joined(separator: "\n") + "\n") }
            if let open = lines.firstIndex(of: "---"), let close = lines[(open + 1)...].firstIndex(of: "---") {
                variants.append(lines[(open + 1)..<close].joined(separator: "\n") + "\n")
            }
            for variant in variants where Self.agrees(variant) { taken += 1 }
        }
        #expect(taken > 50, "\(taken) read by lines")
    }
}
