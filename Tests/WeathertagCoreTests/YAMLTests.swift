import Testing
import Yams

@testable import WeathertagCore

/// `YAMLNode.compose` (libyaml and weathertag's composer) reads front matter as Yams does: checked against Yams here.
@Suite struct YAMLTests {
    /// A quoted scalar (the blocks weathertag writes, every string of the socket's JSON) is the same whether its text
    /// goes in runs or a scalar at a time (the way quoting was written first), and reads back as the text (Yams).
    @Test func quotedTextIsWholeOrEscapedTheSame() throws {
        let texts = [
            "", "Seoul", "Light rain, 7 °C", "\"quoted\"", "back\\slash", "tab\there", "line\nbreak", "cr\r",
            "del\u{7F}", "nel\u{85}", "c1 \u{9F}", "nbsp\u{A0}", "bom\u{FEFF}", "ls\u{2028}ps\u{2029}", "arrow →",
            "한국어 일기", "emoji 👩‍👩‍👧", "\u{1}\u{1F}", "ÿ\u{FFFD}", "zero\u{0}",
        ]
        #expect(YAMLScalar.quotedByScalar("nel\u{85} ls\u{2028} bom\u{FEFF}") == #""nel\u0085 ls\u2028 bom\uFEFF""#)
        #expect(YAMLScalar.quotedByScalar("\"a\\b\"\t\u{1}") == #""\"a\\b\"\t\u0001""#)
        for text in texts {
            #expect(YAMLScalar.quoted(text) == YAMLScalar.quotedByScalar(text), "\(text.debugDescription)")
            var appended = "prefix "
            YAMLScalar.appendQuoted(text, to: &appended)
            #expect(appended == "prefix " + YAMLScalar.quotedByScalar(text))
            var bytes = Array("prefix ".utf8)
            YAMLScalar.appendQuoted(text, to: &bytes)
            #expect(bytes == Array(("prefix " + YAMLScalar.quotedByScalar(text)).utf8), "\(text.debugDescription)")
            if !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\t" && $0 != "\r" }) {
                #expect(try Yams.load(yaml: "k: " + YAMLScalar.quoted(text)) as? [String: String] == ["k": text])
            }
        }
    }

    @Test func nodesAsWritten() throws {
        let yaml = "title: Walk\ntags: [diary, \"rain\"]\nweather:\n  icon: 10d\n  temp: -2.5\nempty:\n"
        let node = try #require(try YAMLNode.compose(yaml))
        let mapping = try #require(node.mapping)
        #expect(mapping.count == 4)
        #expect(mapping["title"]?.string == "Walk")
        #expect(mapping["tags"]?.sequence?.map(\.string) == ["diary", "rain"])
        #expect(mapping["tags"]?.sequence?.map { $0.scalar?.plain } == [true, false])
        #expect(mapping["weather"]?.mapping?["temp"]?.string == "-2.5")
        #expect(mapping["empty"]?.string == "")
        #expect(try YAMLNode.compose("") == nil)
        #expect(try YAMLNode.compose("# only a comment\n") == nil)
        let anchored = try #require(try YAMLNode.compose("base: &b {a: 1}\ncopy: *b\n")?.mapping)
        #expect(anchored["copy"] == anchored["base"])
    }

    /// Duplicate keys as YAML 1.1's default schema tells them apart, the verdict Yams gives for each.
    @Test(arguments: [
        "a: 1\na: 2\n", "a: 1\n\"a\": 2\n", "1: x\n\"1\": y\n", "yes: x\n'yes': y\n", "~: x\n\"~\": y\n",
        "!!str 1: x\n\"1\": y\n", "2019-05-01: x\n\"2019-05-01\": y\n", "1.5: x\n'1.5': y\n", "x: 1\ny: 2\n",
        "0x1F: a\n\"0x1F\": b\n", "[a, b]: 1\n[a, b]: 2\n",
    ])
    func duplicatesAsYamsJudgesThem(yaml: String) {
        let yams = (try? Yams.compose(yaml: yaml)) != nil
        let ours = (try? YAMLNode.compose(yaml)) != nil
        #expect(ours == yams, "Yams \(yams ? "reads" : "refuses") it")
    }

    /// The same verdicts in mappings long enough for the composer to index their keys by text (from
    /// `indexedPairs` on), and across that bound: the duplicate before it, after it, and on either side.
    @Test(arguments: [0, 14, 15, 16, 17, 40])
    func duplicatesInLongMappingsAsYamsJudgesThem(fillers: Int) {
        let filler = (0..<fillers).map { "k\($0): v\($0)\n" }.joined()
        let cases = [
            "a: 1\na: 2\n", "a: 1\n\"a\": 2\n", "1: x\n\"1\": y\n", "yes: x\n'yes': y\n", "[a, b]: 1\n[a, b]: 2\n",
            "x: 1\ny: 2\n", "{a: 1}: x\n{a: 1}: y\n", "{a: 1}: x\n{a: 2}: y\n",
        ]
        for pair in cases {
            for yaml in [filler + pair, pair + filler, "k0: first\n" + filler + pair] {
                let yams = (try? Yams.compose(yaml: yaml)) != nil
                let ours = (try? YAMLNode.compose(yaml)) != nil
                #expect(ours == yams, "Yams \(yams ? "reads" : "refuses") \(yaml.debugDescription)")
            }
        }
    }

    @Test func errorsSayWhere() {
        #expect(throws: YAMLError.self) { try YAMLNode.compose("a: [1, 2\n") }
        do {
            _ = try YAMLNode.compose("title: ok\nbad: a: b\n")
            Issue.record("read")
        } catch {
            #expect(error.line == 2 && error.column == 7, "\(error)")
            #expect(error.problem == "mapping values are not allowed in this context")
        }
        do {
            _ = try YAMLNode.compose("a: *nowhere\n")
            Issue.record("read")
        } catch {
            #expect(error.problem.contains("undefined alias"), "\(error)")
        }
        do {
            _ = try YAMLNode.compose("a: 1\nb: 2\na: 3\n")
            Issue.record("read")
        } catch {
            #expect(error.description == "line 3, column 1: found duplicate key 'a'")
        }
    }

    /// Hostile front matter: nesting a recursive composer would overflow the stack on (it did: SIGSEGV), aliases that
    /// repeat each other (the "billion laughs"), and sheer size are refused with the bound, not read.
    @Test(arguments: [
        (String(repeating: "[", count: 100_000), YAMLLimit.depth),
        (String(repeating: "{a: ", count: 50_000), .depth),
        (String(repeating: "- ", count: 5_000) + "x\n", .depth),
        (Self.laughs, .nodes),
        ("a: " + String(repeating: "x", count: YAMLLimit.maximumBytes) + "\n", .bytes),
    ])
    func boundsAreKept(yaml: String, limit: YAMLLimit) {
        do {
            _ = try YAMLNode.compose(yaml)
            Issue.record("read")
        } catch {
            #expect(error.limit == limit, "\(error)")
        }
    }

    /// Ten anchors, each a list of ten of the one before: 10¹⁰ nodes once expanded.
    static let laughs =
        "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        + (1..<10).map {
            "a\($0): &a\($0) [" + Array(repeating: "*a\($0 - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        .joined()

    /// Just inside the bounds, YAML reads as Yams reads it.
    @Test func insideTheBoundsAsYams() throws {
        let deep = String(repeating: "[", count: YAMLLimit.maximumDepth) + String(repeating: "]", count: 64)
        let node = try #require(try YAMLNode.compose(deep))
        var depth = 0
        var current: YAMLNode? = node
        while let items = current?.sequence {
            depth += 1
            current = items.first
        }
        #expect(depth == YAMLLimit.maximumDepth)
        // Three anchors of ten: 1,000 nodes once expanded, well inside the bound.
        let fewLaughs = Self.laughs.split(separator: "\n").prefix(3).joined(separator: "\n") + "\n"
        #expect(try YAMLNode.compose(fewLaughs) != nil)
        for yaml in [deep, fewLaughs, Self.everyStyle] {
            let ours = try #require(try YAMLNode.compose(yaml))
            let yams = try #require(try Yams.compose(yaml: yaml))
            #expect(Self.tree(ours) == Self.tree(yams), "\(yaml)")
        }
    }

    static let everyStyle = """
        title: "Walk, \\"quoted\\""
        plain: a b c
        single: 'it''s'
        literal: |
          two
          lines
        folded: >
          one
          line
        list:
          - a
          - [b, {c: d}]
          - e: f
            g: [h]
        base: &b {x: 1}
        copy: *b
        empty:
        """

    /// A tree both composers can be compared by: scalars by text, collections by their items in order.
    enum Tree: Equatable {
        case scalar(String)
        indirect case sequence([Tree])
        indirect case mapping([Tree])
    }

    static func tree(_ node: YAMLNode) -> Tree {
        switch node {
        case .scalar(let scalar): return .scalar(scalar.string)
        case .sequence(let items): return .sequence(items.map(Self.tree))
        case .mapping(let mapping): return .mapping(mapping.pairs.flatMap { [Self.tree($0.key), Self.tree($0.value)] })
        }
    }

    static func tree(_ node: Yams.Node) -> Tree {
        switch node {
        case .scalar(let scalar): return .scalar(scalar.string)
        case .sequence(let sequence): return .sequence(sequence.map(Self.tree))
        case .mapping(let mapping): return .mapping(mapping.flatMap { [Self.tree($0.key), Self.tree($0.value)] })
        case .alias: return .scalar("*alias")
        }
    }
}
