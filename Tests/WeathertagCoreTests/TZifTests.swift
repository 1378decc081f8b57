import Foundation
import Testing
import WeathertagTestSupport

@testable import WeathertagCore

/// The tz database read by weathertag's own TZif reader, checked against `zdump` (the C library's reading of the
/// same files): every transition from 1900 to 2060 of zones on both hemispheres, with and without summer time,
/// past the files' last transition too (the footer's POSIX rule).
@Suite struct TZifTests {
    static let zones = [
        "Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Seoul", "Asia/Kolkata", "America/Sao_Paulo",
        "Pacific/Auckland", "Europe/London", "America/Santiago", "Asia/Tehran", "Africa/Casablanca", "UTC",
        "Pacific/Chatham", "America/St_Johns",
    ]

    /// `zdump -v`'s lines: an instant (UT) and the offset in force at it.
    static func zdump(_ zone: String, years: String) async throws -> [(Int64, Int)] {
        let output = try await ChildProcess.run(
            ["/usr/bin/zdump", "-v", "-c", years, zone], in: TemporaryDirectory())
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE MMM d HH:mm:ss yyyy"
        return output.stdout.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count > 8, let ut = parts.firstIndex(of: "UT"), ut >= 6,
                let offset = parts.last?.split(separator: "=").last.flatMap({ Int($0) }),
                let date = formatter.date(from: parts[(ut - 5)..<ut].joined(separator: " "))
            else { return nil }
            return (Int64(date.timeIntervalSince1970), offset)
        }
    }

    @Test(arguments: Self.zones)
    func everyTransitionAsZdumpReadsIt(zone: String) async throws {
        let named = try #require(Zone.named(zone))
        let lines = try await Self.zdump(zone, years: "1900,2060")
        #expect(zone == "UTC" || lines.count >= 4, "zdump said \(lines.count) lines")
        for (time, offset) in lines {
            let ours = named.secondsFromGMT(for: Date(timeIntervalSince1970: Double(time)))
            #expect(ours == offset, "\(zone) at \(time): \(ours) s, zdump \(offset) s")
        }
    }

    @Test func namesThatAreNotZonesAreRefused() {
        for name in [
            "", "../../etc/passwd", "/etc/localtime", "Europe/../Europe/Berlin", "Nowhere/City", "Europe",
            String(repeating: "A", count: 100), "Europe/Berlin\0",
        ] {
            #expect(Zone.named(name) == nil, "\(name)")
        }
        #expect(TZif(Array("TZif2".utf8)) == nil, "torn")
        #expect(TZif([]) == nil)
    }

    /// Berlin in July is an hour ahead of its winter: one answer's single offset (Open-Meteo's `utc_offset_seconds`)
    /// cannot say both.
    @Test func summerAndWinterInOneYear() throws {
        let berlin = try #require(Zone.named("Europe/Berlin"))
        #expect(berlin.secondsFromGMT(for: Date(timeIntervalSince1970: 1_561_982_400)) == 7200, "2019-07-01 12:00Z")
        #expect(berlin.secondsFromGMT(for: Date(timeIntervalSince1970: 1_546_344_000)) == 3600, "2019-01-01 12:00Z")
        #expect(PosixRule("CET-1CEST,M3.5.0,M10.5.0/3")?.offset(at: 2_540_000_000) == 7200, "2050-06-28")
        #expect(PosixRule("<+0330>-3:30")?.offset(at: 0) == 12_600)
        #expect(PosixRule("nonsense,") == nil)
    }
}
