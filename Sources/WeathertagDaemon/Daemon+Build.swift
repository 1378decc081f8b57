import Foundation
import Logging
import NIOPosix
import ServiceLifecycle
import WeathertagCore

extension Daemon {
    /// Builds the services from the configuration, in start order (a graceful shutdown goes in reverse).
    func build(
        http: any HTTPClient,
        threadPool: NIOThreadPool,
        notifier: SystemdNotifier
    ) async -> [ServiceGroupConfiguration.ServiceConfiguration] {
        let configuration = self.configuration
        let statistics = DaemonStatistics()
        let chain = LocationChain(providers: configuration.providers)
        let client = OpenWeatherClient(configuration: configuration.openWeather, http: http, statistics: statistics)
        let weather = await WeatherService(
            chain: chain,
            client: client,
            ttl: configuration.cache.ttl,
            maximumCallsPerMinute: configuration.openWeather.maximumCallsPerMinute,
            store: WeatherCacheStore(directory: configuration.cache.directory, threadPool: threadPool),
            statistics: statistics,
            logger: self.logger
        )
        let inbox = InboxService(
            configuration: configuration.inbox,
            maximumWeatherAge: configuration.stamp.maximumAge,
            weather: weather,
            threadPool: threadPool,
            statistics: statistics,
            logger: self.logger
        )
        let router = APIRouter(
            weather: weather,
            chain: chain,
            statistics: statistics,
            inbox: configuration.inbox.path,
            maximumStaleness: configuration.cache.maximumStaleness,
            now: { Date() }
        )
        let logger = self.logger
        let sources = configuration.providers.map(\.type).joined(separator: " → ")
        let socket = SocketServer(
            configuration: configuration.socket,
            router: router,
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: self.logger
        ) {
            notifier.notify("READY=1\nSTATUS=watching \(configuration.inbox.path); location: \(sources)")
            logger.info("ready", metadata: ["inbox": "\(configuration.inbox.path)", "location": "\(sources)"])
        }

        var services = configuration.providers.map {
            ServiceGroupConfiguration.ServiceConfiguration(
                service: LocationProviderService(provider: $0),
                successTerminationBehavior: .ignore
            )
        }
        services.append(.init(service: socket))
        services.append(.init(service: inbox))
        // Last in the list, first to hear of a graceful shutdown.
        services.append(.init(service: SystemdStoppingService(notifier: notifier), successTerminationBehavior: .ignore))
        return services
    }
}
