import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// Real editors writing in the inbox, driven through tmux as a person would type.
@Suite("Editors", .serialized)
struct EditorTests {
    /// A tmux server of the test's own (its own socket), with one window running `command`.
    struct Terminal {
        let socket: String
        let directory: TemporaryDirectory

        init(_ command: String, in directory: TemporaryDirectory) async throws {
            self.socket = directory.file("tmux.sock")
            self.directory = directory
            guard let tmux = which("tmux") else { throw TimeoutError(description: "tmux is needed (make setup)") }
            let started = try await ChildProcess.run(
                [tmux, "-S", self.socket, "new-session", "-d", "-s", "diary", "-x", "120", "-y", "30", command],
                environment: Self.environment, in: directory)
            guard started.status == 0 else { throw TimeoutError(description: "tmux: \(started.stderr)") }
        }

        static var environment: [String: String] {
            ["PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "HOME": "/tmp", "LANG": "C.UTF-8"]
        }

        /// Keys as tmux's send-keys takes them (`Escape`, `Enter`, or literal text with `-l`).
        func type(_ keys: String..., literally: Bool = false) async throws {
            let tmux = which("tmux") ?? "tmux"
            let arguments = [tmux, "-S", self.socket, "send-keys", "-t", "diary"] + (literally ? ["-l"] : []) + keys
            _ = try await ChildProcess.run(arguments, environment: Self.environment, in: self.directory)
        }

        /// What the window shows now.
        func screen() async throws -> String {
            let tmux = which("tmux") ?? "tmux"
            return try await ChildProcess.run(
                [tmux, "-S", self.socket, "capture-pane", "-p", "-t", "diary"], environment: Self.environment,
                in: self.directory
            ).stdout
        }

        func close() async {
            let tmux = which("tmux") ?? "tmux"
            _ = try? await ChildProcess.run(
                [tmux, "-S", self.socket, "kill-server"], environment: Self.environment, in: self.directory)
        }
    }

    /// Runs `command` in a terminal of its own for `body`, and closes the terminal whatever happens.
    static func inTerminal(
        _ command: String, harness: Harness, _ body: (Terminal) async throws -> Void
    ) async throws {
        let terminal = try await Terminal(command, in: harness.directory)
        do {
            try await body(terminal)
        } catch {
            await terminal.close()
            throw error
        }
        await terminal.close()
    }

    /// The daemon has looked at the entry's latest save and holds it back while the editor has it open.
    static func heldBack(_ name: String, harness: Harness, daemon: DaemonProcess, what: String) async throws {
        try await poll("\(what) seen and held back") { () -> Bool? in
            let entries = try daemon.get("/v1/status").json["entries"] as? [String: Any]
            return entries?["waiting"] as? Int == 1 ? true : nil
        }
        #expect(!harness.read(name).contains("weather:"), "stamped while the editor has it open")
    }

    /// vim keeps `.NAME.swp` beside the entry while it is open: five saves, then `:wq`, leave one stamp, and vim
    /// never warns that the file changed since it read it.
    @Test func aVimSessionThatSavesFiveTimesLeavesOneStamp() async throws {
        guard let vim = which("vim") else { throw TimeoutError(description: "vim is needed (make setup)") }
        try await withHarness { harness in
            try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 59.91, "longitude": 10.75}]"#)
            let daemon = try await harness.startDaemon()
            let entry = harness.entryPath("today.md")
            // No vimrc, no viminfo: vim's defaults, swap file beside the entry.
            try await Self.inTerminal("\(vim) -u NONE -i NONE -N \(entry)", harness: harness) { terminal in
                try await Self.fiveSavesAndQuit(terminal, harness: harness, daemon: daemon)
            }
            let weather = try await harness.waitForStamp("today.md")
            #expect(weather["icon"] as? String == "04d")
            let text = harness.read("today.md")
            #expect(text.components(separatedBy: "weather:").count == 2, "one stamp: \(text)")
            #expect(text.hasSuffix("---\n" + (1...5).map { "Line \($0) of the day\n" }.joined()))
            try await poll("nothing waiting") { () -> Bool? in
                let entries = try daemon.get("/v1/status").json["entries"] as? [String: Any]
                return entries?["waiting"] as? Int == 0 ? true : nil
            }
            let entries = try daemon.get("/v1/status").json["entries"] as? [String: Any]
            #expect(entries?["stamped"] as? Int == 1)
            #expect(try await daemon.stop() == 0)
        }
    }

    static func fiveSavesAndQuit(_ terminal: Terminal, harness: Harness, daemon: DaemonProcess) async throws {
        try await poll("vim's swap file") { exists(harness.entryPath(".today.md.swp")) ? true : nil }

        for line in 1...5 {
            try await terminal.type(line == 1 ? "i" : "o")
            try await terminal.type("Line \(line) of the day", literally: true)
            try await terminal.type("Escape")
            try await terminal.type(":w", "Enter")
            try await poll("save \(line) on disk") {
                harness.read("today.md").contains("Line \(line) of the day") ? true : nil
            }
            // The daemon has looked at the save and holds it back while vim has the file open.
            try await Self.heldBack("today.md", harness: harness, daemon: daemon, what: "save \(line)")
            let screen = try await terminal.screen()
            #expect(!screen.contains("changed since"), "vim warned: \(screen)")
        }
        try await terminal.type(":wq", "Enter")
        try await poll("vim to quit") { exists(harness.entryPath(".today.md.swp")) ? nil : true }
    }
}

extension EditorTests {
    /// nano with `--locking` (`set locking` in nanorc) keeps a vim-style `.NAME.swp` lock: three saves, then exit,
    /// leave one stamp.
    @Test func aNanoSessionWithLockingLeavesOneStamp() async throws {
        guard let nano = which("nano") else { throw TimeoutError(description: "nano is needed (make setup)") }
        try await withHarness { harness in
            try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 59.91, "longitude": 10.75}]"#)
            let daemon = try await harness.startDaemon()
            let entry = harness.entryPath("nano.md")
            try await Self.inTerminal("\(nano) --ignorercfiles --locking \(entry)", harness: harness) { terminal in
                for line in 1...3 {
                    try await terminal.type("Note \(line)", literally: true)
                    try await terminal.type("Enter")
                    try await terminal.type("C-o")
                    // nano asks for the file name: the one it has is right.
                    try await poll("nano's prompt") {
                        try await terminal.screen().contains("File Name to Write") ? true : nil
                    }
                    try await terminal.type("Enter")
                    do {
                        try await poll("save \(line) on disk") {
                            harness.read("nano.md").contains("Note \(line)") ? true : nil
                        }
                    } catch {
                        // nano asks "File on disk has changed" when the entry was stamped under it.
                        let screen = try await terminal.screen()
                        Issue.record("save \(line) did not reach the disk; nano shows:\n\(screen)")
                        throw error
                    }
                    try await poll("nano's lock file") { exists(harness.entryPath(".nano.md.swp")) ? true : nil }
                    try await Self.heldBack("nano.md", harness: harness, daemon: daemon, what: "save \(line)")
                }
                try await terminal.type("C-x")
                try await poll("nano to exit") { exists(harness.entryPath(".nano.md.swp")) ? nil : true }
            }
            _ = try await harness.waitForStamp("nano.md")
            let text = harness.read("nano.md")
            #expect(text.components(separatedBy: "weather:").count == 2, "one stamp: \(text)")
            #expect(text.contains("---\nNote 1\nNote 2\nNote 3\n"), "\(text)")
            #expect(try await daemon.stop() == 0)
        }
    }
}

/// Whether anything (a dangling link too) is at `path`.
private func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
}
