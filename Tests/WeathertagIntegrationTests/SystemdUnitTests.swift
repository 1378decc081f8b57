import Foundation
import Testing
import WeathertagTestSupport

@Suite("systemd unit")
struct SystemdUnitTests {
    /// `systemd-analyze verify` exits 0 even on unknown keys, so its output is what counts. Only the binary's path is
    /// changed, to the one just built (verify checks that ExecStart exists).
    @Test func unitFilePassesSystemdAnalyzeVerify() async throws {
        let analyze = try #require(which("systemd-analyze"), "systemd-analyze is needed: apt-get install systemd")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let unit = try String(contentsOfFile: Fixtures.repositoryRoot + "/systemd/weathertag.service", encoding: .utf8)
        #expect(unit.contains("Type=notify"))
        #expect(unit.contains("ExecStart=/usr/local/bin/weathertag serve --config /etc/weathertag/config.json"))
        #expect(unit.contains("LoadCredential=openweather-api-key:"))
        for directive in ["StateDirectory=weathertag", "CacheDirectory=weathertag", "RuntimeDirectory=weathertag"] {
            #expect(unit.contains(directive))
        }
        try directory.write(
            "weathertag.service",
            unit.replacingOccurrences(of: "/usr/local/bin/weathertag", with: DaemonProcess.binary)
        )
        let result = try await ChildProcess.run(
            [analyze, "verify", directory.file("weathertag.service")],
            in: directory
        )
        #expect(result.status == 0)
        #expect(!result.stderr.contains("weathertag.service"), "\(result.stderr)")
        #expect(!result.stdout.contains("weathertag.service"), "\(result.stdout)")
    }
}
