import Glibc
import Logging
import NIOPosix
import ServiceLifecycle
import WeathertagCore

/// The running daemon: the socket, the reloadable generation (providers, weather, inbox) and the systemd
/// notifications, as services of one `ServiceGroup`, stopped gracefully by SIGTERM or SIGINT and reloaded by
/// SIGHUP.
package struct Daemon: Sendable {
    package let configuration: Configuration
    package let environment: [String: String]
    package let logger: Logger
    /// Reads the configuration file again, for SIGHUP.
    package let reloadConfiguration: @Sendable () throws(ConfigurationError) -> Configuration

    package init(
        configuration: Configuration,
        environment: [String: String],
        logger: Logger,
        reloadConfiguration: @escaping @Sendable () throws(ConfigurationError) -> Configuration
    ) {
        self.configuration = configuration
        self.environment = environment
        self.logger = logger
        self.reloadConfiguration = reloadConfiguration
    }

    /// Runs until a shutdown signal; returns normally on a graceful stop.
    package func run(http: any HTTPClient, threadPool: NIOThreadPool) async throws {
        // SIGHUP means reload from here on, never the default exit (ReloadService listens for it).
        signal(SIGHUP, SIG_IGN)
        let notifier = SystemdNotifier(environment: self.environment)
        let statistics = DaemonStatistics()
        let progress = StampingProgress()
        let logger = self.logger
        // Each generation (the first, and one per reload) from the one factory, sharing the daemon's counters.
        let factory = { @Sendable (configuration: Configuration) in
            ServiceFactory(
                configuration: configuration, http: http, threadPool: threadPool, statistics: statistics,
                logger: logger)
        }
        // The socket's event loops start on a thread of their own while the first generation is built (the state
        // database opened, the caches read): READY=1 waits for both, and one after the other they were a millisecond
        // more of a start.
        async let eventLoops: Void = onThread("weathertag-loops") { _ = MultiThreadedEventLoopGroup.singleton }
        let first = await factory(self.configuration).generation(progress: progress)
        try await eventLoops
        let router = CurrentRouter(first.router)
        let activatedSocket = self.activatedSocket()
        // Before anything starts (the inbox among it): a second daemon on a live socket stops here.
        if activatedSocket == nil { try SocketServer.prepare(self.configuration.socket.path) }
        let socket = SocketServer(
            configuration: self.configuration.socket,
            router: router,
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            activatedSocket: activatedSocket,
            logger: logger
        ) {
            notifier.notify("READY=1")
            logger.info("ready", metadata: ["status": "\(first.summary)"])
        }
        let generations = ReloadService(
            configuration: self.configuration,
            first: first,
            router: router,
            notifier: notifier,
            logger: logger,
            reload: self.reloadConfiguration
        ) { configuration in
            await factory(configuration).generation(progress: progress)
        }
        var configuration = ServiceGroupConfiguration(
            services: [
                // Each named here: without a name, ServiceLifecycle writes the service with `"\(service)"`, which
                // for a type that is not CustomStringConvertible reflects it, a tenth of a start's CPU.
                .init(service: socket, serviceName: "SocketServer"),
                .init(service: generations, serviceName: "ReloadService"),
                .init(
                    service: SystemdSupervision(
                        notifier: notifier,
                        watchdog: SystemdSupervision.watchdogInterval(self.environment),
                        progress: progress,
                        statistics: statistics,
                        router: router,
                        eventLoops: MultiThreadedEventLoopGroup.singleton,
                        logger: logger
                    ),
                    successTerminationBehavior: .ignore,
                    serviceName: "SystemdSupervision"
                ),
                // Last in the list, first to hear of a graceful shutdown.
                .init(
                    service: SystemdStoppingService(notifier: notifier), successTerminationBehavior: .ignore,
                    serviceName: "SystemdStoppingService"),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: self.logger
        )
        configuration.maximumGracefulShutdownDuration = .seconds(5)
        configuration.maximumCancellationDuration = .seconds(2)
        try await ServiceGroup(configuration: configuration).run()
        self.logger.info("stopped")
    }

    /// The listening socket systemd passed (socket activation), or nil: none, or one that cannot be used (said in
    /// the log), and `socket.path` is bound instead.
    private func activatedSocket() -> Int32? {
        switch SocketActivation.listeningSocket(self.environment) {
        case .none: return nil
        case .socket(let fd): return fd
        case .unusable(let reason):
            self.logger.warning(
                "ignoring the socket systemd passed, binding socket.path instead",
                metadata: ["reason": "\(reason)", "socket": "\(self.configuration.socket.path)"]
            )
            return nil
        }
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
