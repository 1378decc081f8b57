import Foundation
import Glibc
import Testing
import WeathertagCore
import WeathertagTestSupport

@testable import WeathertagDaemon

/// A walk of the inbox reads each folder as its caller needs it: sorted, in the folder's own order for a caller that
/// sorts what it keeps (the start's listing), or only its subfolders (the watcher's first walk). Whichever, the
/// same folders are visited in the same order, parents before children.
struct InboxWalkTests {
    private static func walk(_ inbox: String, _ reading: InboxWalk.Reading) -> [(String, InboxWalk.Folder)] {
        var visits: [(String, InboxWalk.Folder)] = []
        InboxWalk.walk(inbox: inbox, tree: InboxTree(), reading: reading) { folder, contents in
            visits.append((folder, contents))
        }
        return visits
    }

    @Test func eachReadingVisitsTheSameFoldersInOrderAndReadsWhatItSays() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for folder in ["b", "a", "a/z", "a/y", "c"] { try directory.makeDirectory(folder) }
        for file in ["9.md", "1.md", "...", ".hidden.md", "a/3.md", "a/2.md", "a/y/x.md", "c/notes.txt"] {
            try directory.write(file, file)
        }

        let sorted = Self.walk(directory.path, .sorted)
        #expect(sorted.map(\.0) == ["", "a", "a/y", "a/z", "b", "c"])
        #expect(sorted[0].1.files == ["...", ".hidden.md", "1.md", "9.md"], "`.` and `..` alone left out")
        #expect(sorted[0].1.folders == ["a", "b", "c"])
        #expect(sorted[1].1.files == ["2.md", "3.md"] && sorted[1].1.folders == ["y", "z"])

        let unsorted = Self.walk(directory.path, .unsorted)
        #expect(unsorted.map(\.0) == sorted.map(\.0))
        for ((_, read), (_, expected)) in zip(unsorted, sorted) {
            #expect(read.files.sorted() == expected.files && read.folders.sorted() == expected.folders)
        }

        let folders = Self.walk(directory.path, .foldersOnly)
        #expect(folders.map(\.0) == sorted.map(\.0))
        #expect(folders.allSatisfy { $0.1.files.isEmpty }, "no file's name made")
        for ((_, read), (_, expected)) in zip(folders, sorted) { #expect(read.folders.sorted() == expected.folders) }
    }

    /// On ext4, XFS and tmpfs a folder's link count says whether it holds folders: one that holds none is not read
    /// for the watcher. (/tmp is ext4 here, and /dev/shm tmpfs.)
    @Test(arguments: ["/tmp", "/dev/shm"]) func aFolderWithoutFoldersIsKnownByItsLinkCount(base: String) throws {
        let root = base + "/wt-walk-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        #expect(mkdir(root, 0o700) == 0)
        defer { _ = try? FileManager.default.removeItem(atPath: root) }
        func holdsNoFolder(_ path: String) -> Bool {
            let fd = open(path, O_RDONLY | O_DIRECTORY)
            defer { close(fd) }
            return Filesystem.holdsNoFolder(fd)
        }
        #expect(creat(root + "/a.md", 0o600) >= 0)
        #expect(holdsNoFolder(root), "files only")
        #expect(mkdir(root + "/2024", 0o700) == 0)
        #expect(!holdsNoFolder(root), "a folder in it")
        #expect(holdsNoFolder(root + "/2024"))
        #expect(try InboxWalk.read(root, reading: .foldersOnly).folders == ["2024"])
    }
}
