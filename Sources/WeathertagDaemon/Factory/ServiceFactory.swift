import Foundation
import Glibc
import Logging
import NIOPosix
import WeathertagCore

/// The one place weathertag's parts are built from a configuration (as Hummingbird's `buildApplication`): the
/// daemon's generations, and what `stamp`, `check` and `entries` need. Commands take their parts from here and
/// never wire services of their own, so a command behaves as the daemon does (the same privacy, cache, memory and
/// history rules).
public struct ServiceFactory: Sendable {
    public let configuration: Configuration
    /// The running providers of `location.providers`, built once per factory (a generation, a command) from their
    /// settings: the chain, history and the service group share them.
    public let providers: [any LocationProvider]
    let http: any HTTPClient
    let threadPool: NIOThreadPool
    let statistics: DaemonStatistics
    let logger: Logger
    /// The clock of everything built here (a test's own).
    let now: @Sendable () -> Date

    public init(
        configuration: Configuration,
        http: any HTTPClient,
        threadPool: NIOThreadPool,
        statistics: DaemonStatistics = DaemonStatistics(),
        logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.now = now
        let context = LocationProviderContext(http: http, logger: logger, now: now)
        self.providers = configuration.providers.map { $0.makeProvider(context) }
        self.http = http
        self.threadPool = threadPool
        self.statistics = statistics
        self.logger = logger
    }

    /// The configured providers (or some of them, as `check` tries each), in order, as `location.strategy` picks
    /// among them.
    public func locationChain(_ providers: [any LocationProvider]? = nil) -> LocationChain {
        LocationChain(
            providers: providers ?? self.providers, strategy: self.configuration.locationStrategy, now: self.now)
    }

    /// OpenWeather, counted in this factory's statistics. It takes only positions `privacy` made.
    public func weatherClient() -> OpenWeatherClient {
        OpenWeatherClient(configuration: self.configuration.openWeather, http: self.http, statistics: self.statistics)
    }

    /// The weather here: the chain, the client, the cache on disk, the per-minute ceiling and the privacy rules.
    public func weatherService(
        chain: LocationChain? = nil, client: OpenWeatherClient? = nil
    ) async -> WeatherService {
        let configuration = self.configuration
        return await WeatherService(
            chain: chain ?? self.locationChain(),
            client: client ?? self.weatherClient(),
            ttl: configuration.cache.ttl,
            maximumCallsPerMinute: configuration.openWeather.maximumCallsPerMinute,
            store: WeatherCacheStore(directory: configuration.cache.directory, threadPool: self.threadPool),
            statistics: self.statistics,
            logger: self.logger,
            privacy: configuration.privacy,
            geocoding: configuration.geocoding,
            airQuality: configuration.airQuality,
            now: self.now
        )
    }

    /// The state database, or nil (stamping goes on without memory) when it is off or cannot be opened. Opened on
    /// the thread pool: opening migrates, and waits out another process's write.
    public func stateDatabase() async -> StateDatabase? {
        let configuration = self.configuration
        guard configuration.state.enabled else { return nil }
        let logger = self.logger
        do {
            return try await self.threadPool.runIfActive {
                try StateDatabase.open(
                    directory: configuration.state.directory, inbox: configuration.inbox.path,
                    policy: RestorePolicy(forgetAfter: configuration.state.forgetAfter.seconds), logger: logger)
            }
        } catch {
            self.logger.error(
                "cannot open the state database; entries are stamped without memory of earlier stamps",
                metadata: ["directory": "\(configuration.state.directory)", "error": "\(error)"])
            return nil
        }
    }

    /// The weather of back-dated entries' time, or nil with `history.enabled` off. Its answers and calls are kept
    /// in `store` (the state database), else in the process.
    public func historyService(
        store: (any HistoryStore)?, chain: LocationChain? = nil, client: OpenWeatherClient? = nil
    ) -> HistoryService? {
        guard self.configuration.history.enabled else { return nil }
        return HistoryService(
            configuration: self.configuration.history, client: client ?? self.weatherClient(),
            chain: chain ?? self.locationChain(), store: store ?? InMemoryHistoryStore(), logger: self.logger,
            privacy: self.configuration.privacy, now: self.now)
    }

    /// The memory `stamp` shares with the daemon (through `database`) for files in its inbox.
    public func stampMemory(_ database: StateDatabase) -> FileStamper.Memory? {
        guard let inbox = realpath(self.configuration.inbox.path, nil) else { return nil }
        defer { free(inbox) }
        return FileStamper.Memory(database: database, inbox: String(cString: inbox))
    }

    /// The diary index the daemon keeps, read without the daemon; nil when there is none yet (the daemon builds it).
    public func diaryIndex() async throws -> DiaryIndex? {
        let configuration = self.configuration
        let file = configuration.state.directory + "/" + StateDatabase.fileName
        guard configuration.state.enabled, FileManager.default.fileExists(atPath: file) else { return nil }
        let logger = self.logger
        let database = try await self.threadPool.runIfActive {
            try StateDatabase.open(
                directory: configuration.state.directory, inbox: configuration.inbox.path, logger: logger)
        }
        return DiaryIndex(database: database, threadPool: self.threadPool)
    }

    /// Runs `body` while the providers' background work runs (gpsd's connection, a track folder's indexing), as
    /// under the daemon, and stops that work when `body` returns. Providers retry on their own; a `run` that ends
    /// early (most providers have no background work) just leaves the others running.
    public func withProvidersRunning<T: Sendable>(
        only providers: [any LocationProvider]? = nil,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let providers = providers ?? self.providers
        return try await withThrowingTaskGroup(of: T?.self) { group in
            for provider in providers {
                group.addTask {
                    try? await provider.run()
                    return nil
                }
            }
            group.addTask { try await body() }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
            }
            throw CancellationError()
        }
    }
}
