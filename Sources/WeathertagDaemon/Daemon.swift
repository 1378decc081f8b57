import Logging
import NIOPosix
import ServiceLifecycle
import WeathertagCore
import WeathertagHTTP

/// The running daemon: every long-lived part as a `Service` in one `ServiceGroup`, stopped gracefully by SIGTERM
/// or SIGINT.
public struct Daemon: Sendable {
    public let configuration: Configuration
    public let environment: [String: String]
    public let logger: Logger

    public init(configuration: Configuration, environment: [String: String], logger: Logger) {
        self.configuration = configuration
        self.environment = environment
        self.logger = logger
    }

    /// Runs until a shutdown signal; returns normally on a graceful stop.
    public func run(http: any HTTPClient, threadPool: NIOThreadPool) async throws {
        let notifier = SystemdNotifier(environment: self.environment)
        let services = await self.build(http: http, threadPool: threadPool, notifier: notifier)
        var configuration = ServiceGroupConfiguration(
            services: services,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: self.logger
        )
        configuration.maximumGracefulShutdownDuration = .seconds(5)
        configuration.maximumCancellationDuration = .seconds(2)
        let group = ServiceGroup(configuration: configuration)
        try await group.run()
        self.logger.info("stopped")
    }
}

/// Keeps a provider's background work (a gpsd connection) running until shutdown.
struct LocationProviderService: Service, CustomStringConvertible {
    let provider: any LocationProvider

    var description: String { "LocationProvider(\(self.provider.type))" }

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            try await self.provider.run()
        }
    }
}
