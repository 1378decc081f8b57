import Foundation
import Logging
import NIOPosix
import ServiceLifecycle
import WeathertagCore

/// Everything one configuration decides, apart from the socket: the location providers, the weather service and
/// the inbox. A reload builds a new generation and stops the old one.
struct Generation {
    var services: [ServiceGroupConfiguration.ServiceConfiguration]
    var router: APIRouter
    /// For the systemd status line.
    var summary: String
}

extension Daemon {
    /// Builds a generation's services in start order (a graceful shutdown goes in reverse).
    static func makeGeneration(
        _ configuration: Configuration,
        http: any HTTPClient,
        threadPool: NIOThreadPool,
        statistics: DaemonStatistics,
        progress: StampingProgress,
        logger: Logger
    ) async -> Generation {
        let chain = LocationChain(providers: configuration.providers, strategy: configuration.locationStrategy)
        let client = OpenWeatherClient(configuration: configuration.openWeather, http: http, statistics: statistics)
        let weather = await WeatherService(
            chain: chain,
            client: client,
            ttl: configuration.cache.ttl,
            maximumCallsPerMinute: configuration.openWeather.maximumCallsPerMinute,
            store: WeatherCacheStore(directory: configuration.cache.directory, threadPool: threadPool),
            statistics: statistics,
            logger: logger,
            privacy: configuration.privacy,
            geocoding: configuration.geocoding,
            airQuality: configuration.airQuality
        )
        let memory = Self.openMemory(configuration, logger: logger)
        let history =
            configuration.history.enabled
            ? HistoryService(
                configuration: configuration.history, client: client,
                chain: chain, memory: memory, logger: logger,
                privacy: configuration.privacy)
            : nil
        let inbox = InboxService(
            configuration: configuration.inbox,
            stamp: configuration.stamp,
            weather: weather,
            threadPool: threadPool,
            statistics: statistics,
            progress: progress,
            memory: memory,
            history: history,
            logger: logger
        )
        var router = APIRouter(
            weather: weather,
            chain: chain,
            statistics: statistics,
            inbox: configuration.inbox.path,
            maximumStaleness: configuration.cache.maximumStaleness,
            now: { Date() }
        )
        router.diary = memory.map { memory in
            DiaryIndex(database: memory, live: { await inbox.waitingReasons($0) }, threadPool: threadPool)
        }
        var services = configuration.providers.map {
            ServiceGroupConfiguration.ServiceConfiguration(
                service: LocationProviderService(provider: $0),
                successTerminationBehavior: .ignore
            )
        }
        services.append(.init(service: inbox))
        let sources = configuration.providers.map(\.type).joined(separator: " → ")
        return Generation(
            services: services,
            router: router,
            summary: "watching \(configuration.inbox.path); location: \(sources)"
        )
    }

    /// The state database, or nil (stamping goes on without memory) when it is off or cannot be opened.
    static func openMemory(_ configuration: Configuration, logger: Logger) -> StateDatabase? {
        guard configuration.state.enabled else { return nil }
        do {
            return try StateDatabase.open(
                directory: configuration.state.directory, inbox: configuration.inbox.path,
                policy: RestorePolicy(forgetAfter: configuration.state.forgetAfter.seconds), logger: logger)
        } catch {
            logger.error(
                "cannot open the state database; entries are stamped without memory of earlier stamps",
                metadata: ["directory": "\(configuration.state.directory)", "error": "\(error)"])
            return nil
        }
    }
}
