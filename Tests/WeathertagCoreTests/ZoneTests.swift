import Foundation
import Testing

@testable import WeathertagCore

/// `Zone`: weathertag's clock offsets without ICU (the machine's from the C library, or fixed).
@Suite struct ZoneTests {
    static let oslo = Zone(TimeZone(identifier: "Europe/Oslo") ?? .gmt)

    @Test func wallClockTimesBecomeMomentsWithSummerTime() throws {
        let summer = try #require(Self.oslo.date(from: DateComponents(year: 2019, month: 6, day: 1, hour: 10)))
        #expect(summer.timeIntervalSince1970 == 1_559_376_000)
        let winter = try #require(Self.oslo.date(from: DateComponents(year: 2019, month: 1, day: 1, hour: 10)))
        #expect(winter.timeIntervalSince1970 == 1_546_333_200)
        let fixed = Zone.fixed(secondsFromGMT: -5 * 3600 - 1800)
        let noon = try #require(fixed.date(from: DateComponents(year: 2019, month: 6, day: 1, hour: 12)))
        #expect(noon.timeIntervalSince1970 == 1_559_410_200)
        #expect(fixed.secondsFromGMT(for: noon) == -19_800)
    }

    /// The night the clocks go back, 02:30 happens twice: the first (CEST, 00:30Z) is the one meant, so a diary's
    /// "02:30" written then is not an hour ahead of now. In the gap the clocks jump over, as the offset before it.
    @Test func aTimeThatHappensTwiceIsTheFirst() throws {
        let berlin = Zone(TimeZone(identifier: "Europe/Berlin") ?? .gmt)
        let twice = try #require(
            berlin.date(from: DateComponents(year: 2027, month: 10, day: 31, hour: 2, minute: 30)))
        #expect(twice.timeIntervalSince1970 == 1_824_942_600)  // 2027-10-31T00:30:00Z
        let gap = try #require(
            berlin.date(from: DateComponents(year: 2027, month: 3, day: 28, hour: 2, minute: 30)))
        #expect(gap.timeIntervalSince1970 == 1_806_197_400)  // 2027-03-28T01:30:00Z
    }

    /// The machine's zone, read by the C library, agrees with Foundation's reading of it (the test binary links
    /// Foundation's zone data) through a year.
    @Test func theMachinesZoneIsTheCLibrarys() {
        for day in stride(from: 0, to: 365, by: 7) {
            let date = Date(timeIntervalSince1970: 1_735_689_600 + Double(day) * 86_400)
            #expect(Zone.system.secondsFromGMT(for: date) == TimeZone.current.secondsFromGMT(for: date))
        }
    }

    @Test func httpPathsAndDatesWithoutFoundation() {
        #expect(percentEncoded("a b/ü~") == "a%20b%2F%C3%BC~")
        #expect(Paths.deletingLastComponent("/a/b/c.md") == "/a/b")
        #expect(Paths.deletingLastComponent("/a") == "/")
        #expect(Paths.lastComponent("/a/b/c.md/") == "c.md")
        #expect(Paths.standardized("/nonexistent-weathertag/./a//b/../c") == "/nonexistent-weathertag/a/c")
        #expect(Paths.standardized("a/../../b") == "../b")
    }
}
