import FoundationEssentials
import Logging
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

extension ServiceFactory {
    /// Builds a generation's services in start order (a graceful shutdown goes in reverse).
    func generation(progress: StampingProgress) async -> Generation {
        let configuration = self.configuration
        let chain = self.locationChain()
        let weather = await self.weatherService(chain: chain)
        let memory = await self.stateDatabase()
        let history = self.historyService(store: memory?.history, chain: chain)
        let files = InboxFiles(
            configuration: configuration.inbox, stamp: configuration.stamp, memory: memory?.entries,
            asksHistory: history != nil, threadPool: self.threadPool, progress: progress,
            reporter: InboxReporter(statistics: self.statistics, logger: self.logger),
            conflicts: SyncConflictRegistry(tree: configuration.inbox.tree, logger: self.logger),
            crashGuard: CrashGuard(directory: configuration.state.directory))
        let inbox = InboxService(
            files: files, weather: weather, history: history, maximumAge: configuration.stamp.maximumAge,
            statistics: self.statistics, logger: self.logger)
        var router = APIRouter(
            weather: weather,
            chain: chain,
            statistics: self.statistics,
            inbox: configuration.inbox.path,
            maximumStaleness: configuration.cache.maximumStaleness,
            now: { Date() }
        )
        router.history = history
        router.conflicts = files.conflicts
        let threadPool = self.threadPool
        router.diary = memory.map { memory in
            DiaryIndex(database: memory.diary, live: { await inbox.waitingReasons($0) }, threadPool: threadPool)
        }
        var services = self.providers.map {
            ServiceGroupConfiguration.ServiceConfiguration(
                service: LocationProviderService(provider: $0),
                successTerminationBehavior: .ignore
            )
        }
        services.append(.init(service: inbox))
        let providers = configuration.providers.map(\.type).joined(separator: " → ")
        let sources = configuration.weather.sources.map(\.type).joined(separator: " → ")
        return Generation(
            services: services,
            router: router,
            summary: "watching \(configuration.inbox.path); location: \(providers); weather: \(sources)"
        )
    }
}
