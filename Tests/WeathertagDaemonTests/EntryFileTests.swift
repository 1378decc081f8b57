import Foundation
import Glibc
import Testing
import WeathertagCore
import WeathertagTestSupport

@testable import WeathertagDaemon

/// Stamping one file on a real filesystem.
@Suite("Stamping a file on disk")
final class EntryFileTests {
    let directory: TemporaryDirectory
    let lines = Fixtures.tag.stampLines

    init() throws {
        self.directory = try TemporaryDirectory()
    }

    deinit {
        self.directory.remove()
    }

    func contents(_ name: String) throws -> String {
        try String(contentsOfFile: self.directory.file(name), encoding: .utf8)
    }

    /// No `*.weathertag-tmp` file may be left behind, whatever happened.
    func temporaries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: self.directory.path).filter {
            $0.hasSuffix("weathertag-tmp")
        }
    }

    @Test func stampsKeepingModeAndLeavingNoTemporaryFile() throws {
        try self.directory.write("entry.md", "Dear diary\n")
        chmod(self.directory.file("entry.md"), 0o600)
        #expect(try EntryFile.stamp(path: self.directory.file("entry.md"), lines: self.lines) == .stamped)
        #expect(try self.contents("entry.md").hasPrefix("---\nweather:\n"))
        #expect(try self.contents("entry.md").hasSuffix("---\nDear diary\n"))
        var info = stat()
        #expect(stat(self.directory.file("entry.md"), &info) == 0 && info.st_mode & 0o7777 == 0o600)
        #expect(try self.temporaries().isEmpty)
        #expect(try EntryFile.stamp(path: self.directory.file("entry.md"), lines: self.lines) == .alreadyStamped)
    }

    @Test func anEditDuringStampingIsNeverOverwritten() throws {
        try self.directory.write("entry.md", "first draft\n")
        let path = self.directory.file("entry.md")
        let result = try EntryFile.stamp(path: path, lines: self.lines) {
            // The author saves again between our read and our rename.
            try? Data("second draft, longer\n".utf8).write(to: URL(fileURLWithPath: path))
        }
        #expect(result == .changedWhileStamping)
        #expect(try self.contents("entry.md") == "second draft, longer\n")
        #expect(try self.temporaries().isEmpty)
        // Tried again, it stamps the new content.
        #expect(try EntryFile.stamp(path: path, lines: self.lines) == .stamped)
        #expect(try self.contents("entry.md").hasSuffix("---\nsecond draft, longer\n"))
    }

    @Test func aFileRemovedDuringStampingIsNotRecreated() throws {
        try self.directory.write("entry.md", "gone soon\n")
        let path = self.directory.file("entry.md")
        let result = try EntryFile.stamp(path: path, lines: self.lines) { unlink(path) }
        #expect(result == .vanished)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try self.temporaries().isEmpty)
        #expect(try EntryFile.stamp(path: path, lines: self.lines) == .vanished)
    }

    @Test func symlinksFIFOsFoldersAndHardLinksAreLeftAlone() throws {
        try self.directory.write("target.md", "outside\n")
        try FileManager.default.createSymbolicLink(
            atPath: self.directory.file("link.md"),
            withDestinationPath: self.directory.file("target.md")
        )
        #expect(mkfifo(self.directory.file("pipe.md"), 0o644) == 0)
        try self.directory.makeDirectory("folder.md")
        try self.directory.write("linked.md", "two names\n")
        #expect(link(self.directory.file("linked.md"), self.directory.file("other-name.md")) == 0)

        for name in ["link.md", "pipe.md", "folder.md", "linked.md"] {
            let result = try EntryFile.stamp(path: self.directory.file(name), lines: self.lines)
            guard case .skipped = result else {
                Issue.record("\(name): \(result)")
                continue
            }
        }
        #expect(try self.contents("target.md") == "outside\n")
        #expect(try self.contents("linked.md") == "two names\n")
        #expect(try self.temporaries().isEmpty)
    }

    @Test func emptyAndUnparsableFilesAreLeftAlone() throws {
        try self.directory.write("empty.md", "")
        try self.directory.write("bad.md", "---\ntitle: [oops\n---\n")
        for name in ["empty.md", "bad.md"] {
            guard case .skipped = try EntryFile.stamp(path: self.directory.file(name), lines: self.lines) else {
                Issue.record("\(name) was not skipped")
                continue
            }
        }
        #expect(try self.contents("bad.md") == "---\ntitle: [oops\n---\n")
    }

    @Test func writeAtomicallyReplacesTheWholeFile() throws {
        let path = self.directory.file("cache.json")
        try FileIO.writeAtomically(Array("old, longer content".utf8), to: path)
        try FileIO.writeAtomically(Array("new".utf8), to: path)
        #expect(try self.contents("cache.json") == "new")
        #expect(try self.temporaries().isEmpty)
    }
}

@Suite("systemd notify")
struct SystemdNotifierTests {
    @Test func sendsOneDatagramAndNothingWithoutTheVariable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("notify.sock")
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        defer { close(fd) }
        let address = try #require(UnixSocketAddress(path))
        #expect(address.withSockaddr { bind(fd, $0, $1) } == 0)

        #expect(!SystemdNotifier(environment: [:]).notify("READY=1"))
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": path]).notify("READY=1\nSTATUS=ok"))
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        #expect(count > 0)
        #expect(String(decoding: buffer[0..<max(count, 0)], as: UTF8.self) == "READY=1\nSTATUS=ok")
    }

    @Test func abstractNamespace() throws {
        let name = "@weathertag-test-\(UInt32.random(in: 0...UInt32.max))"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        defer { close(fd) }
        let address = try #require(UnixSocketAddress(name))
        #expect(address.withSockaddr { bind(fd, $0, $1) } == 0)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": name]).notify("WATCHDOG=1"))
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        #expect(String(decoding: buffer[0..<max(count, 0)], as: UTF8.self) == "WATCHDOG=1")
    }
}
