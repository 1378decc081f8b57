import Logging
import Testing
import WeathertagDaemon

/// `ServeCommandLine` reads the daemon's start without ArgumentParser: it must read exactly the forms ArgumentParser
/// would read the same way, and leave every other line (nil) to ArgumentParser, which answers and explains it.
/// (`CommandLineTests` in the integration tests runs both through the binary.)
@Suite("serve's command line, read directly")
struct ServeCommandLineTests {
    @Test func readsTheFormsTheUnitAndPeopleWrite() {
        let read: [([String], ServeCommandLine)] = [
            (["serve", "--config", "/etc/weathertag.json"], ServeCommandLine(config: "/etc/weathertag.json")),
            (["serve", "-c", "w.json"], ServeCommandLine(config: "w.json")),
            (["serve", "--config=w.json"], ServeCommandLine(config: "w.json")),
            (
                ["serve", "--config", "w.json", "--log-level", "debug"],
                ServeCommandLine(config: "w.json", logLevel: .debug)
            ),
            (["serve", "--log-level=trace", "-c", "w.json"], ServeCommandLine(config: "w.json", logLevel: .trace)),
            (["serve", "--config=a=b.json"], ServeCommandLine(config: "a=b.json")),
            (["serve", "--config", "my diary/ü.json"], ServeCommandLine(config: "my diary/ü.json")),
        ]
        for (arguments, expected) in read {
            #expect(ServeCommandLine(arguments) == expected, "\(arguments)")
        }
        // Every level ArgumentParser knows (`Logger.Level`'s raw values).
        for level in Logger.Level.allCases {
            #expect(ServeCommandLine(["serve", "-c", "w.json", "--log-level", level.rawValue])?.logLevel == level)
        }
    }

    @Test func leavesEverythingElseToArgumentParser() {
        let others: [[String]] = [
            [], ["tag"], ["stamp", "--config", "w.json"], ["--config", "w.json", "serve"],
            ["serve"], ["serve", "--help"], ["serve", "-h"], ["serve", "--version"], ["serve", "--config"],
            ["serve", "--config="], ["serve", "--config", ""], ["serve", "--config", "--log-level", "debug"],
            ["serve", "--config", "-w.json"], ["serve", "-c=w.json"], ["serve", "-cw.json"],
            ["serve", "--config", "a.json", "--config", "b.json"], ["serve", "-c", "a.json", "--config=b.json"],
            ["serve", "--config", "w.json", "--log-level", "loud"],
            ["serve", "--config", "w.json", "--log-level", "DEBUG"],
            ["serve", "--config", "w.json", "--log-level"],
            ["serve", "--config", "w.json", "--log-level", "info", "--log-level", "debug"],
            ["serve", "--config", "w.json", "extra"], ["serve", "--config", "w.json", "--"],
            ["serve", "--config", "w.json", "--verbose"], ["serve", "--configuration", "w.json"],
            ["serve", "--config", "w.json", "--log-level=debug", "--help"],
        ]
        for arguments in others {
            #expect(ServeCommandLine(arguments) == nil, "\(arguments)")
        }
    }
}
