import FoundationEssentials
import Logging
import NIOPosix
import ServiceLifecycle
import Synchronization
import WeathertagCore

/// Keeps the timeline page (`timeline.output`) and the map alone (`timeline.map_output`) current: a shell around `PageRefreshMachine`, which decides when
/// (changes settled, at most once a minute, never during a batch); this service only performs its actions. A write
/// reads the diary index, renders the page and replaces the file atomically (temp file, fsync, rename, fsync the
/// folder), on the thread pool. A failure is logged once per kind and tried again by the machine.
package final class TimelinePageService: Service, Sendable {
    typealias Machine = PageRefreshMachine<ContinuousClock>

    /// What `/v1/status` shows of it.
    package struct Snapshot: Sendable {
        package var path: String
        package var writtenAt: Date?
        package var entries: Int?
        package var stale = true
        package var lastError: String?
    }

    let index: DiaryIndex
    let configuration: TimelineConfiguration
    let output: String
    let iconCache: String?
    let privacy: PrivacyPolicy
    /// The page's and the map's words (`timeline.lang`), read once at start.
    let words: Messages
    let inbox: String
    let threadPool: NIOThreadPool
    let logger: Logger
    private let events: AsyncStream<Machine.Input>
    private let continuation: AsyncStream<Machine.Input>.Continuation
    private let state: Mutex<Snapshot>

    /// nil without `timeline.output` or `timeline.map_output`.
    package init?(
        configuration: TimelineConfiguration, index: DiaryIndex, iconCache: String?, privacy: PrivacyPolicy,
        inbox: String, threadPool: NIOThreadPool, logger: Logger
    ) {
        guard let output = configuration.output ?? configuration.mapOutput else { return nil }
        (self.configuration, self.output, self.index, self.iconCache) = (configuration, output, index, iconCache)
        (self.privacy, self.inbox) = (privacy, inbox)
        self.words = Translations.messages(configuration.languages, directory: configuration.localeDirectory)
        (self.threadPool, self.logger) = (threadPool, logger)
        (self.events, self.continuation) = AsyncStream.makeStream(of: Machine.Input.self)
        self.state = Mutex(Snapshot(path: output))
    }

    /// Tells the machine of a change or a batch (`InboxService.DiaryListener`); any thread.
    package var listener: InboxService.DiaryListener {
        let continuation = self.continuation
        return { continuation.yield($0) }
    }

    package var snapshot: Snapshot { self.state.withLock { $0 } }

    package func run() async throws {
        var machine = Machine(clock: ContinuousClock(), interval: Self.interval)
        await withDiscardingTaskGroup { group in
            // The page of the diary as it is at the start, once the first listing has settled.
            for action in machine.receive(.changed) { self.perform(action, in: &group) }
            for await input in self.events.cancelOnGracefulShutdown() {
                for action in machine.receive(input) { self.perform(action, in: &group) }
                self.state.withLock { $0.stale = machine.isStale }
            }
            group.cancelAll()
        }
        self.continuation.finish()
    }

    private func perform(_ action: Machine.Action, in group: inout DiscardingTaskGroup) {
        let continuation = self.continuation
        switch action {
        case .write:
            group.addTask {
                continuation.yield(await self.write() ? .written : .failed)
            }
        case .wakeUp(let deadline):
            group.addTask {
                guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
                continuation.yield(.wokeUp)
            }
        }
    }

    /// Writes the page from the index; false (logged when the reason is new) when it cannot.
    private func write() async -> Bool {
        let now = Date()
        do {
            let count = try await self.writeFiles(at: now)
            // Every entry's document was read for the page and is freed now: the heap's free pages go back to the
            // system rather than staying with the daemon (after a page of 50,000 entries: 9.5 MiB private, not 45.7).
            _ = try? await self.threadPool.runIfActive { ProcessMemory.trim() }
            let recovered = self.state.withLock { state in
                defer { (state.writtenAt, state.entries, state.lastError) = (now, count, nil) }
                return state.lastError != nil
            }
            if recovered {
                self.logger.notice("the timeline page is written again", metadata: ["page": "\(self.output)"])
            }
            self.logger.debug(
                "timeline page written", metadata: ["page": "\(self.output)", "entries": "\(count)"])
            return true
        } catch {
            let message = "\(error)"
            let isNew = self.state.withLock { state in
                defer { state.lastError = message }
                return state.lastError != message
            }
            if isNew {
                self.logger.error(
                    "cannot write the timeline page; trying again in a minute",
                    metadata: ["page": "\(self.output)", "error": "\(message)"])
            }
            return false
        }
    }
}

extension TimelinePageService {
    /// The page (and the map) from the index, on the thread pool; how many entries it holds.
    private func writeFiles(at now: Date) async throws -> Int {
        let entries = try await self.index.all(EntryQuery(limit: EntryQuery.maximumLimit))
        let onThisDay = try await self.index.all(TimelineRendering.onThisDay(now), limit: 20)
        let settings = TimelineRendering.Settings(
            title: self.configuration.title, environment: ProcessInfo.processInfo.environment,
            iconCache: self.iconCache, map: self.configuration.map, privacy: self.privacy, words: self.words)
        let (page, map, inbox) = (self.configuration.output, self.configuration.mapOutput, self.inbox)
        try await self.threadPool.runIfActive {
            if let page {
                try TimelineRendering.writePage(
                    entries, onThisDay: onThisDay, settings: settings, generatedAt: now, file: page, inbox: inbox)
            }
            if let map {
                let svg = TimelineRendering.map(entries, settings: settings, inbox: inbox, file: map)
                try FileIO.writeAtomically(Array(svg.utf8), to: map)
            }
        }
        return entries.count
    }

    /// A minute. A debug build takes `WEATHERTAG_TEST_PAGE_INTERVAL` (seconds), so that the tests see a page
    /// written again without waiting a minute; the release binary has no such knob.
    static var interval: Duration {
        #if DEBUG
            if let seconds = ProcessInfo.processInfo.environment["WEATHERTAG_TEST_PAGE_INTERVAL"].flatMap(Double.init) {
                return .milliseconds(Int64(seconds * 1000))
            }
        #endif
        return .seconds(60)
    }
}
