import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// `weathertag new`: the next entry made where the diary keeps it, stamped at once, opened in a real vim.
@Suite("Writing the next entry", .serialized)
struct NewCommandTests {
    static let fixed = #"[{"type": "fixed", "latitude": 59.91, "longitude": 10.75}]"#
    static let history = #", "history": {"enabled": true, "source": "openweather", "max_calls_per_day": 900}"#

    static func front(_ text: String) -> String {
        guard text.hasPrefix("---\n"), let end = text.range(of: "\n---\n") else { return "" }
        return String(text[text.startIndex..<end.lowerBound])
    }

    /// Every Markdown file's text below the inbox.
    static func entries(_ harness: Harness) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: harness.inbox)
        var texts: [String] = []
        while let name = enumerator?.nextObject() as? String {
            if name.hasSuffix(".md") { texts.append(harness.read(name)) }
        }
        return texts
    }

    @Test func withoutATerminalItPrintsThePathOfTheStampedEntryAndNeverWritesOverOne() async throws {
        try await withHarness { harness in
            let config = try harness.writeConfig(providers: Self.fixed, extra: Self.history)
            let made = try await ChildProcess.run(
                [DaemonProcess.binary, "new", "Market", "day", "--at", "2019-05-01 10:00", "--config", config],
                in: harness.directory)
            #expect(made.status == 0, "\(made.stdout)\(made.stderr)")
            let path = harness.inbox + "/2019/05/2019-05-01-1000.md"
            #expect(made.stdout == path + "\n")
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let front = Self.front(text)
            #expect(front.contains("\ntitle: Market day\n") && front.contains("\ndate: 2019-05-01T10:00:00"))
            // Back-dated: its own hour's weather, from history, at once.
            #expect(front.contains("  kind: historical\n"), "\(text)")
            #expect(text.components(separatedBy: "weather:").count == 2)

            // The same name again: opened as it is, never written over.
            try Data((text + "What I wrote.\n").utf8).write(to: URL(fileURLWithPath: path))
            let again = try await ChildProcess.run(
                [DaemonProcess.binary, "new", "Other", "--at", "2019-05-01 10:00", "--config", config],
                in: harness.directory)
            #expect(again.status == 0 && again.stdout == path + "\n" && again.stderr.contains("is there already"))
            #expect(try String(contentsOfFile: path, encoding: .utf8) == text + "What I wrote.\n")

            // Now, from new.template, with the configured layout.
            try harness.directory.write(
                "template.md", "---\ntitle: {{title}}\nday: {{day}}\nmood:\n---\n\n## {{time}}\n")
            try harness.patchConfig(
                #""settle_seconds": 0}"#,
                #""settle_seconds": 0, "layout": "%Y/%Y-%m-%d %H%M.md"}, "new": {"template": "template.md"}"#)
            let now = try await ChildProcess.run(
                [DaemonProcess.binary, "new", "--no-edit", "--config", config], in: harness.directory)
            #expect(now.status == 0, "\(now.stdout)\(now.stderr)")
            let made2 = now.stdout.trimmingCharacters(in: .newlines)
            let name = URL(fileURLWithPath: made2).lastPathComponent
            #expect(
                made2.hasPrefix(harness.inbox + "/") && name.hasSuffix(".md")
                    && name.count == "2026-11-26 0941.md".count)
            let fromTemplate = try String(contentsOfFile: made2, encoding: .utf8)
            #expect(fromTemplate.contains("\nday: \(name.prefix(10))\nmood:\n"), "\(fromTemplate)")
            #expect(fromTemplate.contains("  kind: current\n") && fromTemplate.contains("\n## "), "\(fromTemplate)")
        }
    }

    /// `--at` with an offset is the author's clock: the file is named, and its front matter dated, by that clock's
    /// day and hour, not by this machine's zone (Berlin here, seven hours behind Seoul's first of May).
    @Test func aTimeGivenWithItsOffsetNamesTheEntryOnThatClock() async throws {
        try await withHarness { harness in
            let config = try harness.writeConfig(providers: Self.fixed, extra: Self.history)
            let made = try await ChildProcess.run(
                [DaemonProcess.binary, "new", "--at", "2019-05-01T01:00:00+09:00", "--no-edit", "--config", config],
                environment: ProcessInfo.processInfo.environment.merging(["TZ": "Europe/Berlin"]) { $1 },
                in: harness.directory)
            #expect(made.status == 0, "\(made.stdout)\(made.stderr)")
            let path = harness.inbox + "/2019/05/2019-05-01-0100.md"
            #expect(made.stdout == path + "\n")
            let front = Self.front((try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
            #expect(front.contains("\ndate: 2019-05-01T01:00:00+09:00"), "\(front)")
        }
    }

    /// On a terminal the entry opens in the editor ($EDITOR: a real vim in tmux) with its weather already there.
    @Test func onATerminalItOpensInTheEditorStamped() async throws {
        guard let vim = which("vim") else { throw TimeoutError(description: "vim is needed (make setup)") }
        try await withHarness { harness in
            let config = try harness.writeConfig(providers: Self.fixed)
            let command =
                "env EDITOR='\(vim) -u NONE -i NONE -N' \(DaemonProcess.binary) new By the lake --config \(config)"
            try await EditorTests.inTerminal(command, harness: harness) { terminal in
                try await poll("vim showing the stamped entry") { () -> Bool? in
                    let screen = try await terminal.screen()
                    return screen.contains("title: By the lake") && screen.contains("weather:") ? true : nil
                }
                try await terminal.type("G", "o")
                try await terminal.type("Swam at noon.", literally: true)
                try await terminal.type("Escape")
                try await terminal.type(":wq", "Enter")
                try await poll("the entry saved") { () -> Bool? in
                    Self.entries(harness).contains { $0.contains("Swam at noon.") } ? true : nil
                }
            }
            let texts = Self.entries(harness)
            #expect(texts.count == 1)
            let text = texts.first ?? ""
            #expect(text.components(separatedBy: "weather:").count == 2 && text.contains("  kind: current\n"))
            #expect(text.hasSuffix("---\n\nSwam at noon.\n"), "\(text)")
        }
    }
}
