import Testing
import WeathertagCore
import WeathertagTestSupport

@testable import WeathertagDaemon

@Suite("The stamp's lines, made once a tag")
struct StampLinesTests {
    @Test func theSameTagGivesItsLinesAndAnotherTagOrOtherFieldsNewOnes() {
        let stampLines = StampLines()
        let fields = StampField.allCases
        let tag = Fixtures.tag
        #expect(stampLines.lines(for: tag, fields: fields, format: .block) == tag.stampLines(fields: fields))
        #expect(stampLines.lines(for: tag, fields: fields, format: .block) == tag.stampLines(fields: fields))
        var warmer = tag
        warmer.weather.temperature += 3
        #expect(stampLines.lines(for: warmer, fields: fields, format: .block) == warmer.stampLines(fields: fields))
        #expect(stampLines.lines(for: warmer, fields: fields, format: .block) != tag.stampLines(fields: fields))
        let fewer: [StampField] = [.condition, .temperature]
        #expect(stampLines.lines(for: warmer, fields: fewer, format: .block) == warmer.stampLines(fields: fewer))
        // Another form: other lines.
        #expect(
            stampLines.lines(for: warmer, fields: fewer, format: .properties)
                == warmer.stampLines(fields: fewer, format: .properties))
    }
}
