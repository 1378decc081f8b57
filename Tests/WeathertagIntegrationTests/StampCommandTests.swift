import Foundation
import Testing
import WeathertagTestSupport

/// `weathertag stamp FILE…`: files outside the inbox, with the daemon's weather when it runs, by itself otherwise.
@Suite("weathertag stamp", .serialized)
struct StampCommandTests {
    @Test func stampsThroughTheRunningDaemon() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 1, "longitude": 2, "name": "Here"}]"#)
            let daemon = try await harness.startDaemon()
            let notes = try harness.directory.makeDirectory("notes")
            let plain = notes + "/plain.md"
            let withFrontMatter = notes + "/front.md"
            let stamped = notes + "/stamped.md"
            let binary = notes + "/binary.md"
            try Data("Plain note\n".utf8).write(to: URL(fileURLWithPath: plain))
            try Data("---\ntitle: Front\n---\nBody\n".utf8).write(to: URL(fileURLWithPath: withFrontMatter))
            try Data("---\nweather:\n  icon: 01d\n---\nDone\n".utf8).write(to: URL(fileURLWithPath: stamped))
            try Data([0x23, 0x00, 0x01]).write(to: URL(fileURLWithPath: binary))

            let crlf = notes + "/crlf.md"
            try Data("---\r\ntitle: CRLF\r\n---\r\nWindows body\r\n".utf8).write(to: URL(fileURLWithPath: crlf))

            // --dry-run shows the front matter and writes nothing.
            let dry = try await ChildProcess.run(
                [DaemonProcess.binary, "stamp", "--socket", harness.socketPath, "--dry-run", plain, stamped, crlf],
                in: harness.directory)
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(dry.stdout.contains("== \(plain)\n---\nweather:\n"), "\(dry.stdout)")
            #expect(dry.stdout.contains("    source: fixed\n---\n== \(stamped)\n(nothing to write: already stamped)"))
            #expect(try String(contentsOfFile: plain, encoding: .utf8) == "Plain note\n")
            // Only the front matter, whatever the line ends: not the body.
            #expect(dry.stdout.contains("== \(crlf)\n---\r\ntitle: CRLF\r\nweather:\r\n"), "\(dry.stdout)")
            #expect(dry.stdout.hasSuffix("    source: fixed\r\n---\r\n"), "\(dry.stdout)")
            #expect(!dry.stdout.contains("Windows body"))

            let result = try await ChildProcess.run(
                [
                    DaemonProcess.binary, "stamp", "--socket", harness.socketPath, plain, withFrontMatter, stamped,
                    binary,
                ],
                in: harness.directory)
            #expect(result.status == 65, "one file is left alone")
            #expect(result.stdout.contains("2 stamped, 1 already stamped, 1 left alone"), "\(result.stdout)")
            #expect(result.stdout.contains("weather from the daemon"))
            #expect(
                result.stderr.contains("binary.md: left as it is: the file is binary (contains NUL bytes)"),
                "\(result.stderr)")
            #expect(try String(contentsOfFile: plain, encoding: .utf8).hasSuffix("---\nPlain note\n"))
            let front = try String(contentsOfFile: withFrontMatter, encoding: .utf8)
            #expect(front.hasPrefix("---\ntitle: Front\nweather:\n") && front.hasSuffix("---\nBody\n"))
            #expect(try String(contentsOfFile: stamped, encoding: .utf8) == "---\nweather:\n  icon: 01d\n---\nDone\n")
            // The daemon's cached weather: no call of the command's own.
            #expect(try harness.standIn.calls("weather") == 1)

            // On a terminal (script(1) gives it one) a progress bar is drawn, then cleared for the summary.
            let script = try #require(which("script"), "script(1) from util-linux is needed")
            let more = (1...3).map { notes + "/more-\($0).md" }
            for file in more { try Data("More\n".utf8).write(to: URL(fileURLWithPath: file)) }
            let command = ([DaemonProcess.binary, "stamp", "--socket", harness.socketPath] + more)
                .map { "'\($0)'" }.joined(separator: " ")
            let onTerminal = try await ChildProcess.run([script, "-qec", command, "/dev/null"], in: harness.directory)
            #expect(onTerminal.status == 0, "\(onTerminal.stdout)")
            #expect(onTerminal.stdout.contains("[........................] 0/3  more-1.md"), "\(onTerminal.stdout)")
            #expect(onTerminal.stdout.contains("] 2/3  more-3.md"), "\(onTerminal.stdout)")
            #expect(onTerminal.stdout.contains("3 stamped"))
            #expect(try await daemon.stop() == 0)
        }
    }

    /// Mistakes a newcomer makes get a usage error or the configuration error that names them.
    @Test func usageAndConfigurationMistakesAreNamed() async throws {
        try await withHarness { harness in
            let template = try await ChildProcess.run(
                [DaemonProcess.binary, "tag", "--socket", harness.socketPath, "--format", "{icon} {wind}"],
                in: harness.directory)
            #expect(template.status == 64, "an unknown placeholder is a usage error: \(template.stderr)")
            #expect(template.stderr.contains("wind"))

            let folder = try await ChildProcess.run(
                [DaemonProcess.binary, "check", "--config", harness.directory.path], in: harness.directory)
            #expect(folder.status == 78)
            #expect(folder.stdout.contains("\(harness.directory.path) is a folder, not a configuration file"))

            try harness.directory.write(
                "typo.json", #"{"openweather": {"api_key": "k"}, "inbox": {"pathh": "inbox"}}"#)
            let typo = try await ChildProcess.run(
                [DaemonProcess.binary, "check", "--config", harness.directory.file("typo.json")], in: harness.directory)
            #expect(typo.status == 78)
            #expect(typo.stdout.contains("inbox.pathh: unknown key; did you mean inbox.path?"), "\(typo.stdout)")
        }
    }

    @Test func stampsByItselfWhenNoDaemonRuns() async throws {
        try await withHarness { harness in
            let config = try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 1, "longitude": 2}]"#)
            let note = harness.directory.file("alone.md")
            try Data("# Alone\n".utf8).write(to: URL(fileURLWithPath: note))
            let result = try await ChildProcess.run(
                [DaemonProcess.binary, "stamp", "--config", config, note], in: harness.directory)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("1 stamped ("), "\(result.stdout)")
            #expect(result.stdout.contains("weather from OpenWeather"))
            let text = try String(contentsOfFile: note, encoding: .utf8)
            #expect(text.contains("description: broken clouds") && text.hasSuffix("---\n# Alone\n"))
            #expect(try harness.standIn.calls("weather") == 1)
            // The cache it shares with the daemon now holds that weather: a second run makes no call.
            let again = harness.directory.file("again.md")
            try Data("Again\n".utf8).write(to: URL(fileURLWithPath: again))
            let second = try await ChildProcess.run(
                [DaemonProcess.binary, "stamp", "--config", config, again], in: harness.directory)
            #expect(second.status == 0)
            #expect(try harness.standIn.calls("weather") == 1)

            let nowhere = try await ChildProcess.run(
                [DaemonProcess.binary, "stamp", "--socket", harness.directory.file("none.sock"), note],
                environment: ["HOME": harness.directory.path, "PATH": "/usr/bin:/bin"],
                in: harness.directory)
            #expect(nowhere.status == 69)
            #expect(nowhere.stderr.contains("no daemon answers"))
        }
    }

    /// A command stamps as the daemon does: `stamp.keep_mtime: false` gives the file the stamp's time (the command
    /// kept the file's own, whatever the configuration said).
    @Test func theStampSectionIsHonoured() async throws {
        try await withHarness { harness in
            let config = try harness.writeConfig(
                providers: #"[{"type": "fixed", "latitude": 1, "longitude": 2}]"#,
                extra: #", "stamp": {"keep_mtime": false}"#)
            let note = harness.directory.file("note.md")
            try Data("A note\n".utf8).write(to: URL(fileURLWithPath: note))
            // Written twenty minutes ago: current, and an hour older than any time the stamp can have.
            let written = Date().addingTimeInterval(-1200)
            try FileManager.default.setAttributes([.modificationDate: written], ofItemAtPath: note)
            let result = try await ChildProcess.run(
                [DaemonProcess.binary, "stamp", "--config", config, note], in: harness.directory)
            #expect(result.status == 0 && result.stdout.hasPrefix("1 stamped ("), "\(result.stdout)\(result.stderr)")
            let modified = try FileManager.default.attributesOfItem(atPath: note)[.modificationDate] as? Date
            #expect((modified ?? written).timeIntervalSince(written) > 600, "the stamp's time, not the note's")
        }
    }
}
