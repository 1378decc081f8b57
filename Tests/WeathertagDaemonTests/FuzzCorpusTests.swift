import Foundation
import Testing
import WeathertagFuzzing
import WeathertagTestSupport

/// The fuzzers' checks over the committed corpus (seeds and every reproducer a fuzz run found): what `make fuzz`
/// once found stays fixed.
@Suite("Fuzz corpus replay")
struct FuzzCorpusTests {
    static func inputs(_ target: String) -> [[UInt8]] {
        CorpusReplay.files([Fixtures.repositoryRoot + "/Fuzz/corpus/" + target]).compactMap {
            FileManager.default.contents(atPath: $0).map(Array.init)
        }
    }

    @Test(arguments: ["stamper", "frontmatter", "request", "json"])
    func corpusPassesItsChecks(target: String) {
        let inputs = Self.inputs(target)
        #expect(inputs.count >= 5, "a seed corpus for \(target)")
        let check: ([UInt8]) -> Void =
            switch target {
            case "stamper": FuzzChecks.stamper
            case "frontmatter": FuzzChecks.frontMatter
            case "request": FuzzChecks.request
            default: FuzzChecks.json
            }
        for input in inputs { check(input) }
    }
}
