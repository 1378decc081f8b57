import FoundationEssentials
import Glibc
import Logging
import NIOPosix
import WeathertagCore

/// The one place weathertag's parts are built from a configuration (as Hummingbird's `buildApplication`): the
/// daemon's generations, and what `stamp`, `check` and `entries` need. Commands take their parts from here and
/// never wire services of their own, so a command behaves as the daemon does (the same privacy, cache, memory and
/// history rules).
package struct ServiceFactory: Sendable {
    package let configuration: Configuration
    /// The running providers of `location.providers`, built once per factory (a generation, a command) from their
    /// settings: the chain, history and the service group share them.
    package let providers: [any LocationProvider]
    let http: any HTTPClient
    let threadPool: NIOThreadPool
    let statistics: DaemonStatistics
    let logger: Logger
    /// The clock of everything built here (a test's own).
    let now: @Sendable () -> Date

    package init(
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
    package func locationChain(_ providers: [any LocationProvider]? = nil) -> LocationChain {
        LocationChain(
            providers: providers ?? self.providers, strategy: self.configuration.locationStrategy, now: self.now)
    }

    /// The running sources of `weather.providers`, in order, counted in this factory's statistics. They take only
    /// positions `privacy` made.
    package func weatherSources() -> [any WeatherSource] {
        self.configuration.weather.sources.map { $0.makeSource(self.weatherSourceContext(for: $0.type)) }
    }

    /// What a running source of `type` is built with: the transport, the log, the clock, and this factory's count
    /// of its calls.
    func weatherSourceContext(for type: String) -> WeatherSourceContext {
        let statistics = self.statistics
        return WeatherSourceContext(
            http: self.http, logger: self.logger, now: self.now, countCall: { statistics.recordCall(source: type) })
    }

    /// The weather here: the chain, the sources, the cache on disk, each source's gate and the privacy rules.
    package func weatherService(
        chain: LocationChain? = nil, sources: [any WeatherSource]? = nil
    ) async -> WeatherService {
        let configuration = self.configuration
        let sources = sources ?? self.weatherSources()
        let statistics = self.statistics
        // Icon images from the first source that has them (`WeatherSource.iconImages`): none for a keyless one.
        let icons = sources.lazy.compactMap(\.iconImages).first.map { images in
            IconDownloader(
                baseURL: images.baseURL, timeout: images.timeout, http: self.http,
                countDownload: { statistics.update { $0.iconDownloads += 1 } })
        }
        return await WeatherService(
            chain: chain ?? self.locationChain(),
            sources: sources,
            namesSource: !configuration.weather.origin.isImplied,
            ttl: configuration.cache.ttl,
            store: WeatherCacheStore(directory: configuration.cache.directory, threadPool: self.threadPool),
            statistics: self.statistics,
            logger: self.logger,
            privacy: configuration.privacy,
            geocoder: self.geocoder(),
            lang: configuration.weather.lang,
            airQuality: configuration.airQuality,
            icons: icons,
            now: self.now
        )
    }

    /// Who names places (`geocoding`).
    func geocoder() -> WeatherService.Geocoder? {
        switch self.configuration.geocoding {
        case .none: return nil
        case .service(let spec):
            let service = spec.make(self.weatherSourceContext(for: spec.type))
            return .remote(source: service.type, ceilingName: service.ceilingSetting) {
                try await service.placeName(at: $0)
            }
        case .geoNames(let directory):
            let index = LazyGeoNamesIndex(
                stateDirectory: self.configuration.state.directory, geonamesDirectory: directory,
                threadPool: self.threadPool, logger: self.logger)
            return .local { await index.place(near: $0) }
        }
    }

    /// The state database, or nil (stamping goes on without memory) when it is off or cannot be opened. Opened on
    /// the thread pool: opening migrates, and waits out another process's write.
    package func stateDatabase() async -> StateDatabase? {
        let configuration = self.configuration
        guard configuration.state.enabled else { return nil }
        let logger = self.logger
        let threadPool = self.threadPool
        do {
            return try await threadPool.runIfActive {
                try StateDatabase.open(
                    directory: configuration.state.directory, inbox: configuration.inbox.path,
                    policy: RestorePolicy(forgetAfter: configuration.state.forgetAfter.seconds), threadPool: threadPool,
                    logger: logger)
            }
        } catch {
            self.logger.error(
                "cannot open the state database; entries are stamped without memory of earlier stamps",
                metadata: ["directory": "\(configuration.state.directory)", "error": "\(error)"])
            return nil
        }
    }

    /// The weather of back-dated entries' time, or nil with `history.enabled` off: the weather source
    /// `history.source` names, built as `weather.providers` builds its sources. Its answers and spends are kept in
    /// `store` (the state database), else in the process.
    package func historyService(store: (any HistoryStore)?, chain: LocationChain? = nil) -> HistoryService? {
        let configuration = self.configuration
        guard configuration.history.enabled, let spec = configuration.history.sourceSpec,
            let source = spec.makePast(self.weatherSourceContext(for: spec.type))
        else { return nil }
        return HistoryService(
            source: source, maximumCallsPerDay: configuration.history.maximumCallsPerDay,
            units: configuration.weather.units, lang: configuration.weather.lang,
            chain: chain ?? self.locationChain(), store: store ?? InMemoryHistoryStore(), logger: self.logger,
            privacy: configuration.privacy, placeName: self.localPlaceName(), now: self.now)
    }

    /// A place's name and zone, from the geocoder when it names places on this machine (the towns index, GeoNames):
    /// asked with no more precision than `privacy` lets leave, though nothing leaves.
    func localPlaceName() -> @Sendable (Position) async -> PlaceName? {
        guard case .local(let name)? = self.geocoder() else { return { _ in nil } }
        let privacy = self.configuration.privacy
        return { position in await name(privacy.requestPosition(position)) }
    }

    /// The memory `stamp` shares with the daemon (through `database`) for files in its inbox.
    package func stampMemory(_ database: StateDatabase) -> FileStamper.Memory? {
        guard let inbox = realpath(self.configuration.inbox.path, nil) else { return nil }
        defer { free(inbox) }
        return FileStamper.Memory(database: database.entries, inbox: String(cString: inbox))
    }

    /// How a command stamps files, as the daemon stamps its entries (`inbox.max_bytes`, `stamp.*`): a file of the
    /// inbox its vault names as a template is one (`InboxTree.template`).
    package func stampOptions(backdating: BackdatingPolicy?, replacing: Bool) -> StampOptions {
        var options = StampOptions(self.configuration, backdating: backdating, replacing: replacing)
        let tree = self.configuration.inbox.tree
        if tree.vault != nil, let real = realpath(self.configuration.inbox.path, nil) {
            let inbox = String(cString: real)
            free(real)
            options.template = { path in FileStamper.relative(path, to: inbox).flatMap(tree.template) }
        }
        return options
    }

    /// The diary index the daemon keeps, read without the daemon; nil when there is none yet (the daemon builds it).
    package func diaryIndex() async throws -> DiaryIndex? {
        let configuration = self.configuration
        let file = configuration.state.directory + "/" + StateDatabase.fileName
        guard configuration.state.enabled, FileManager.default.fileExists(atPath: file) else { return nil }
        let logger = self.logger
        let threadPool = self.threadPool
        let database = try await threadPool.runIfActive {
            try StateDatabase.open(
                directory: configuration.state.directory, inbox: configuration.inbox.path, threadPool: threadPool,
                logger: logger)
        }
        return DiaryIndex(database: database.diary, threadPool: threadPool, privacy: configuration.privacy)
    }

    /// Runs `body` while the providers' background work runs (gpsd's connection, a track folder's indexing), as
    /// under the daemon, and stops that work when `body` returns. Providers retry on their own; a `run` that ends
    /// early (most providers have no background work) just leaves the others running.
    package func withProvidersRunning<T: Sendable>(
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

/// The GeoNames index, opened (and built, the first time) on the thread pool when a place is first named, so that
/// start-up does not wait for it. A failure is logged once; places then go unnamed.
actor LazyGeoNamesIndex {
    private let stateDirectory: String
    private let geonamesDirectory: String
    private let threadPool: NIOThreadPool
    private let logger: Logger
    private var opening: Task<GeoNamesIndex?, Never>?

    init(stateDirectory: String, geonamesDirectory: String, threadPool: NIOThreadPool, logger: Logger) {
        self.stateDirectory = stateDirectory
        self.geonamesDirectory = geonamesDirectory
        self.threadPool = threadPool
        self.logger = logger
    }

    func place(near request: RequestPosition) async -> PlaceName? {
        let (state, geonames, threadPool, logger) = (
            self.stateDirectory, self.geonamesDirectory, self.threadPool, self.logger
        )
        let opening =
            self.opening
            ?? Task {
                do {
                    return try await threadPool.runIfActive {
                        try GeoNamesIndex.open(stateDirectory: state, geonamesDirectory: geonames, logger: logger)
                    }
                } catch {
                    logger.error("cannot name places from GeoNames", metadata: ["error": "\(error)"])
                    return nil
                }
            }
        self.opening = opening
        return await opening.value?.place(near: request.latitude, request.longitude)
    }
}
