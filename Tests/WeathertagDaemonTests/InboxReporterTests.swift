import Logging
import Synchronization
import Testing
import WeathertagCore
import WeathertagTestSupport

@testable import WeathertagDaemon

/// What comes of an entry is logged, then counted: whoever sees a count in `/v1/status` (a status bar, a test that
/// polls it) finds the result's line in the log already.
struct InboxReporterTests {
    /// Keeps each line's message with the counters as they were when it was logged.
    private struct SnapshotHandler: LogHandler {
        let recorded: Recorded
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { self.metadata[key] }
            set { self.metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let counters = self.recorded.statistics.snapshot
            self.recorded.lines.withLock { $0.append(("\(event.message)", counters)) }
        }
    }

    private final class Recorded: Sendable {
        let statistics = DaemonStatistics()
        let lines = Mutex<[(message: String, counters: DaemonStatistics.Counters)]>([])

        var reporter: InboxReporter {
            let handler = SnapshotHandler(recorded: self)
            return InboxReporter(statistics: self.statistics, logger: Logger(label: "test") { _ in handler })
        }

        /// The counters when the line `message` was logged.
        func counters(at message: String) -> DaemonStatistics.Counters? {
            self.lines.withLock { lines in lines.first { $0.message == message }?.counters }
        }
    }

    private struct DiskFull: Error {}

    private static let version = FileVersion(
        device: 1, inode: 2, size: 3, modifiedSeconds: 4, modifiedNanoseconds: 5)

    @Test func eachResultIsInTheLogBeforeItIsCounted() {
        let recorded = Recorded()
        let reporter = recorded.reporter
        typealias Telling = InboxStateMachine<ContinuousClock>.Telling
        reporter.record(.entry("a.md", .stamped(Self.version), Telling(tag: Fixtures.tag)))
        reporter.record(.entry("b.md", .restored(Self.version), Telling()))
        reporter.record(.entry("c.md", .leftAlone(.notRegularFile(.fifo), nil), Telling()))
        reporter.record(.entry("d.md", .failed(DiskFull()), Telling()))

        #expect(recorded.counters(at: "stamped")?.entriesStamped == 0)
        #expect(recorded.counters(at: "restored its weather block")?.entriesRestored == 0)
        #expect(recorded.counters(at: "entry left as it is")?.entriesSkipped == 0)
        #expect(recorded.counters(at: "cannot stamp entries, they wait untouched")?.lastError == nil)
        let after = recorded.statistics.snapshot
        #expect(
            (after.entriesStamped, after.entriesRestored, after.entriesSkipped) == (1, 1, 1)
                && after.lastError != nil)
    }
}
