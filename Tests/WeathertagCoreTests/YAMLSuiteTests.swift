import Foundation
import Testing
import Yams

@testable import WeathertagCore

/// Cases of the YAML test suite (`YAMLSuite/`, provenance in its PROVENANCE.md) read by weathertag's composer and by
/// Yams, the tests' oracle: both read the same tree, or both refuse, and what the suite says must fail is refused.
@Suite("the YAML test suite, against Yams")
struct YAMLSuiteTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("YAMLSuite")

    /// The case's document, its markers turned into what they stand for, and whether it must fail.
    static func document(_ id: String) throws -> (yaml: String, fail: Bool) {
        let text = try String(contentsOf: Self.folder.appendingPathComponent(id + ".yaml"), encoding: .utf8)
        let cases = try #require(try Yams.load(yaml: text) as? [[String: Any]])
        let first = try #require(cases.first)
        var yaml = try #require(first["yaml"] as? String)
        for (marker, meaning) in [("<TAB>", "\t"), ("—»", "\t"), ("→", "\t"), ("·", " "), ("␣", " ")] {
            yaml = yaml.replacingOccurrences(of: marker, with: meaning)
        }
        yaml = yaml.replacingOccurrences(of: "—", with: "")
        if yaml.hasSuffix("∎\n") { yaml = String(yaml.dropLast(2)) }
        return (yaml, first["fail"] as? Bool ?? false)
    }

    /// A tree as text, the same for both: scalars by their value, collections in order, aliases resolved.
    static func canonical(_ node: YAMLNode) -> String {
        switch node {
        case .scalar(let scalar): return "=" + scalar.string
        case .sequence(let items): return "[" + items.map(Self.canonical).joined(separator: ",") + "]"
        case .mapping(let mapping):
            return "{"
                + mapping.pairs.map { Self.canonical($0.key) + ":" + Self.canonical($0.value) }
                .joined(separator: ",") + "}"
        }
    }

    static func canonical(_ node: Yams.Node) -> String {
        switch node {
        case .scalar(let scalar): return "=" + scalar.string
        case .sequence(let items): return "[" + items.map { Self.canonical($0) }.joined(separator: ",") + "]"
        case .mapping(let mapping):
            return "{"
                + mapping.map { Self.canonical($0.key) + ":" + Self.canonical($0.value) }
                .joined(separator: ",") + "}"
        case .alias: return "*"
        }
    }

    @Test(arguments: ["229Q", "26DV", "2SXE", "4CQQ", "4Q9F", "4EJS", "6JTT", "9MAG", "5LLU", "7BUB", "5C5M", "6JQW"])
    func readsAsYamsReads(id: String) throws {
        let (yaml, fail) = try Self.document(id)
        let ours = Result { () throws(YAMLError) in try YAMLNode.compose(yaml) }
        let yams = Result { try Yams.compose(yaml: yaml) }
        switch (ours, yams) {
        case (.success(let mine), .success(let theirs)):
            #expect(!fail, "\(id): the suite says it must fail")
            #expect(mine.map(Self.canonical) == theirs.map(Self.canonical), "\(id)")
        case (.failure, .failure):
            break
        case (.success(let mine), .failure(let error)):
            Issue.record("\(id): read as \(mine.map(Self.canonical) ?? "nothing"), Yams refuses it: \(error)")
        case (.failure(let error), .success):
            Issue.record("\(id): refused (\(error)), Yams reads it")
        }
        if fail { #expect(throws: YAMLError.self, "\(id) must fail") { try YAMLNode.compose(yaml) } }
    }
}
