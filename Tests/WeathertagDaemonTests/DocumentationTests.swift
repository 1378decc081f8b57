import Foundation
import Testing
import WeathertagTestSupport

/// README.md and the pages in docs/: every relative link names a file of the repository, every `#anchor` a heading
/// of the page it points into (GitHub's slugs), and the README stays a front door.
@Suite("the documentation's links")
struct DocumentationTests {
    static let root = Fixtures.repositoryRoot

    /// README.md and every docs/*.md, as paths from the repository's root.
    static var pages: [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: Self.root + "/docs")) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    /// The lines outside fenced code blocks.
    static func prose(_ text: String) -> [Substring] {
        var fenced = false
        return text.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            if line.hasPrefix("```") {
                fenced.toggle()
                return false
            }
            return !fenced
        }
    }

    /// GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`.
    static func slug(_ heading: some StringProtocol) -> String {
        String(
            heading.lowercased().unicodeScalars.filter {
                $0 == " " || $0 == "-" || $0 == "_" || CharacterSet.alphanumerics.contains($0)
            }
            .map { $0 == " " ? "-" : Character($0) })
    }

    static func anchors(ofPage path: String) throws -> Set<String> {
        let text = try String(contentsOfFile: Self.root + "/" + path, encoding: .utf8)
        return Set(
            Self.prose(text).compactMap { line -> String? in
                guard line.hasPrefix("#") else { return nil }
                let text = line.drop { $0 == "#" }
                guard text.hasPrefix(" ") else { return nil }
                return Self.slug(text.dropFirst().trimmingCharacters(in: .whitespaces))
            })
    }

    /// `[text](target)` targets on a line (not images' data, not code spans).
    static func links(in line: Substring) -> [String] {
        var targets: [String] = []
        var rest = line[...]
        while let open = rest.range(of: "](") {
            let after = rest[open.upperBound...]
            guard let close = after.firstIndex(of: ")") else { break }
            targets.append(String(after[..<close]))
            rest = after[close...]
        }
        return targets
    }

    @Test func everyLinkAndAnchorResolves() throws {
        var checked = 0
        for page in Self.pages {
            let text = try String(contentsOfFile: Self.root + "/" + page, encoding: .utf8)
            let folder = (page as NSString).deletingLastPathComponent
            for line in Self.prose(text) {
                for target in Self.links(in: line) {
                    if target.hasPrefix("http://") || target.hasPrefix("https://") || target.hasPrefix("mailto:") {
                        continue
                    }
                    checked += 1
                    let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                    let file = String(parts[0])
                    let path =
                        file.isEmpty
                        ? page
                        : ((folder as NSString).appendingPathComponent(file) as NSString)
                            .standardizingPath
                    #expect(
                        FileManager.default.fileExists(atPath: Self.root + "/" + path),
                        "\(page): \(target) names no file")
                    if parts.count == 2, path.hasSuffix(".md") {
                        #expect(
                            try Self.anchors(ofPage: path).contains(String(parts[1])),
                            "\(page): \(target) names no heading of \(path)")
                    }
                }
            }
        }
        #expect(checked > 50, "the links were found")
    }

    /// The README is a front door: the two commands first, at most 300 lines, and a link to every reference page.
    @Test func theReadmeIsAFrontDoor() throws {
        let text = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count <= 300)
        #expect(lines.prefix(6).contains { $0.hasPrefix("make run") })
        #expect(lines.prefix(6).contains { $0.hasPrefix("make test") })
        for page in Self.pages where page.hasPrefix("docs/") {
            #expect(text.contains("](\(page))"), "README links to \(page)")
        }
    }
}
