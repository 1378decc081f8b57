import Glibc
import Logging
import Testing
import WeathertagTestSupport

@testable import WeathertagDaemon

@Suite("inbox watcher")
struct InboxWatcherTests {
    /// A watcher that can no longer read its events says so with an error, which stops the inbox service: it must
    /// not return quietly and leave the inbox unwatched.
    @Test func aFailingReadIsAnErrorNotAQuietReturn() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let watcher = try InboxWatcher(path: directory.path, logger: Logger(label: "test"))
        // A folder's descriptor in the inotify descriptor's place: readable for poll, EISDIR for read.
        let folder = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(folder >= 0)
        defer { close(folder) }
        try #require(dup2(folder, watcher.inotifyFD) == watcher.inotifyFD)
        #expect {
            try watcher.run(into: Arrivals()) { _ in }
        } throws: { error in
            (error as? SystemError)?.code == EISDIR
        }
    }
}
