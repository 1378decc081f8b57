import Testing
import Yams

@testable import WeathertagCore

/// `YAMLNode.compose` (libyaml and weathertag's composer) reads front matter as Yams does: checked against Yams here.
@Suite struct YAMLTests {
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
}
