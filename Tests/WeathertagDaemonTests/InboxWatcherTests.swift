import Foundation
import Glibc
import Logging
import Synchronization
import Testing
import WeathertagCore
import WeathertagTestSupport

@testable import WeathertagDaemon

@Suite("inbox watcher")
struct InboxWatcherTests {
    /// A watcher that can no longer read its events says so with an error, which stops the inbox service: it must
    /// not return quietly and leave the inbox unwatched.
    /// A folder is entered (the watcher adds its watch there) before it is read: a file made between the two is in
    /// the listing, and one made after the watch is heard by it. Before, the watch came after the read, and a file
    /// written right after `mkdir -p` could fall between them (`FolderTests` under load, once in a full run).
    @Test func aFolderIsEnteredBeforeItIsRead() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.makeDirectory("2026/11")
        var entered: [String] = []
        var listed: [String: [String]] = [:]
        InboxWalk.walk(
            inbox: directory.path, tree: InboxTree(),
            entering: { folder in
                entered.append(folder)
                // What lands the moment the watch is added.
                if folder == "2026/11" { try? directory.write("2026/11/23.md", "Monday\n") }
            },
            visit: { folder, contents in listed[folder] = contents.files })
        #expect(entered == ["", "2026", "2026/11"])
        #expect(listed["2026/11"] == ["23.md"])
    }

    @Test func aFailingReadIsAnErrorNotAQuietReturn() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let watcher = try InboxWatcher(path: directory.path, logger: Logger(label: "test"))
        // A folder's descriptor in the inotify descriptor's place: readable for poll, EISDIR for read.
        let folder = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(folder >= 0)
        defer { close(folder) }
        try #require(dup2(folder, watcher.inotify.fd) == watcher.inotify.fd)
        #expect {
            try watcher.run(into: Arrivals()) { _ in }
        } throws: { error in
            (error as? SystemError)?.code == EISDIR
        }
    }

    /// Renames pair by cookie (files and folders); deletions and moves out are removals; a stamp's own exchange
    /// and a temp file renamed over an entry are neither.
    @Test func renamesAndRemovalsAreReportedForTheMemory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let inbox = try directory.makeDirectory("inbox")
        let outside = try directory.makeDirectory("outside")
        for name in ["a.md", "b.md", "c.md", "d.md", "2026/e.md"] {
            try FileManager.default.createDirectory(
                atPath: inbox + "/" + InboxTree.split(name).folder, withIntermediateDirectories: true)
            try Data("Entry\n".utf8).write(to: URL(fileURLWithPath: inbox + "/" + name))
        }
        let watcher = try InboxWatcher(path: inbox, tree: InboxTree(), logger: Logger(label: "test"))
        let seen = Mutex<[PathChange]>([])
        let thread = Task.detached {
            try watcher.run(into: Arrivals(), changed: { changes in seen.withLock { $0 += changes } }) { _ in }
        }
        // The stamp's exchange: the entry stays where it is.
        #expect(
            try EntryFile.stamp(path: inbox + "/d.md", lines: ["weather:", "  icon: 01d"]).result
                == .stamped(
                    try #require(FileVersion.current(inbox + "/d.md"))))
        #expect(rename(inbox + "/a.md", inbox + "/2026/a.md") == 0)
        #expect(rename(inbox + "/2026", inbox + "/2027") == 0)
        try Data("Temp\n".utf8).write(to: URL(fileURLWithPath: inbox + "/.b.md.Xy12"))
        #expect(rename(inbox + "/.b.md.Xy12", inbox + "/b.md") == 0)
        #expect(unlink(inbox + "/b.md") == 0)
        #expect(rename(inbox + "/c.md", outside + "/c.md") == 0)
        let expected: [PathChange] = [
            .renamed(from: "a.md", to: "2026/a.md"), .renamed(from: "2026", to: "2027"), .removed("b.md"),
            .removed("c.md"),
        ]
        try await poll("the changes") { seen.withLock { $0.count >= expected.count ? true : nil } }
        watcher.stop()
        try await thread.value
        #expect(seen.withLock { $0 } == expected)
    }
}
