import Glibc
import Logging
import ServiceLifecycle
import UnixSignals
import WeathertagCore

/// Runs the current generation (location providers, weather, inbox) and replaces it on SIGHUP.
///
/// A configuration that fails to load is logged with the field it names and the running generation stays in
/// force. A valid one stops the old generation gracefully (the entry being written is finished) and starts the
/// new one, which rescans the inbox: nothing queued is lost, because the inbox is the queue. The socket stays
/// open throughout; only its router is swapped. systemd hears `RELOADING=1` with `MONOTONIC_USEC`, then `READY=1`.
final class ReloadService: Service, CustomStringConvertible {
    private let initial: Configuration
    private let first: Generation
    private let router: CurrentRouter
    private let notifier: SystemdNotifier
    private let logger: Logger
    private let reload: @Sendable () throws(ConfigurationError) -> Configuration
    private let makeGeneration: @Sendable (Configuration) async -> Generation

    var description: String { "Generations" }

    init(
        configuration: Configuration,
        first: Generation,
        router: CurrentRouter,
        notifier: SystemdNotifier,
        logger: Logger,
        reload: @escaping @Sendable () throws(ConfigurationError) -> Configuration,
        makeGeneration: @escaping @Sendable (Configuration) async -> Generation
    ) {
        self.initial = configuration
        self.first = first
        self.router = router
        self.notifier = notifier
        self.logger = logger
        self.reload = reload
        self.makeGeneration = makeGeneration
    }

    func run() async throws {
        // SIGHUP means reload, never the default exit. The sequence allows one iterator; each generation waits on
        // the stream it feeds.
        let signals = await UnixSignalsSequence(trapping: .sighup)
        let (hangups, hangup) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        try await withThrowingDiscardingTaskGroup { forwarding in
            forwarding.addTask {
                for await _ in signals { hangup.yield() }
            }
            defer { forwarding.cancelAll() }
            try await self.runGenerations(hangups)
        }
    }

    private func runGenerations(_ hangups: AsyncStream<Void>) async throws {
        var configuration = self.initial
        var generation = self.first
        while true {
            // The socket answers through this generation's router: the first's from the start (`Daemon`), a
            // reload's from before it is said to be in force (below).
            let group = ServiceGroup(
                configuration: ServiceGroupConfiguration(services: generation.services, logger: self.logger)
            )
            let current = configuration
            // A graceful shutdown of the daemon reaches the generation's group by itself: a nested ServiceGroup
            // listens to its parent's.
            let next = try await withThrowingTaskGroup(of: Configuration?.self, returning: Configuration?.self) {
                tasks in
                tasks.addTask {
                    try await group.run()
                    return nil
                }
                tasks.addTask { await self.nextConfiguration(hangups, replacing: current) }
                defer { tasks.cancelAll() }
                guard let first = try await tasks.next(), let replacement = first else { return nil }
                // A new configuration: stop this generation (its services finish what they are doing).
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return replacement
            }
            guard let next, !Task.isShuttingDownGracefully, !Task.isCancelled else { return }
            configuration = next
            generation = await self.makeGeneration(next)
            // The socket answers with the new configuration before the log and systemd are told it is in force
            // (READY=1 after RELOADING=1 means it is): a client asking right after saw the old one.
            self.router.replace(with: generation.router)
            self.logger.notice("configuration reloaded", metadata: ["status": "\(generation.summary)"])
            // STATUS= stays SystemdSupervision's: one voice for the status line.
            self.notifier.notify("READY=1")
        }
    }

    /// Waits for a SIGHUP that brings a valid configuration; nil on shutdown.
    private func nextConfiguration(
        _ hangups: AsyncStream<Void>, replacing current: Configuration
    ) async
        -> Configuration?
    {
        for await _ in hangups.cancelOnGracefulShutdown() {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let microseconds = now.tv_sec * 1_000_000 + now.tv_nsec / 1000
            self.notifier.notify("RELOADING=1\nMONOTONIC_USEC=\(microseconds)")
            self.logger.notice("SIGHUP: reloading the configuration")
            do {
                let configuration = try self.reload()
                for warning in configuration.warnings { self.logger.warning("configuration: \(warning)") }
                if configuration.socket.path != current.socket.path
                    || configuration.socket.maximumConnections != current.socket.maximumConnections
                    || configuration.socket.idleTimeout != current.socket.idleTimeout
                {
                    self.logger.warning("socket settings change only with a restart; the socket stays as it is")
                }
                return configuration
            } catch {
                self.logger.error(
                    "configuration not reloaded, the running one stays in force",
                    metadata: ["field": "\(error.field)", "error": "\(error)"]
                )
                self.notifier.notify("READY=1")
            }
        }
        return nil
    }
}
