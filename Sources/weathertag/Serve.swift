import ArgumentParser
import Logging
import WeathertagCore
import WeathertagDaemon

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the daemon in the foreground (this is what systemd runs).",
        discussion: """
            Watches the inbox, stamps new entries, and answers on the Unix socket until SIGTERM or SIGINT, then \
            exits 0. SIGHUP reloads the configuration file; an invalid one is logged and the running one stays. With $NOTIFY_SOCKET set it tells systemd READY=1 once the socket listens. A configuration \
            error names the field and exits 78 before anything is touched.
            """
    )

    @Option(name: .shortAndLong, help: "The configuration file (JSON).")
    var config: String

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: Logger.Level = Self.defaultLogLevel

    static let defaultLogLevel = Logger.Level.info

    init() {}

    /// The command as `line` gives it (`ServeCommandLine`, read without ArgumentParser): every option set, as
    /// ArgumentParser's own values are.
    init(_ line: ServeCommandLine) {
        self.config = line.config
        self.logLevel = line.logLevel ?? Self.defaultLogLevel
    }

    func run() async throws {
        let runtime = Runtime(logLevel: self.logLevel)
        let configuration: Configuration
        do {
            configuration = try runtime.loadConfiguration(self.config)
        } catch {
            printError("configuration error: \(error)")
            throw ExitCode(ExitStatus.configuration)
        }
        for warning in configuration.warnings {
            runtime.logger.warning("configuration: \(warning)")
        }
        let path = self.config
        let daemon = Daemon(
            configuration: configuration,
            environment: runtime.environment,
            logger: runtime.logger
        ) { () throws(ConfigurationError) -> Configuration in
            try runtime.loadConfiguration(path)
        }
        do {
            try await daemon.run(http: runtime.http, threadPool: runtime.threadPool)
        } catch let error as SocketInUseError {
            runtime.logger.critical("not started", metadata: ["error": "\(error)"])
            throw ExitCode(ExitStatus.socketInUse)
        } catch {
            runtime.logger.critical("stopped on an error", metadata: ["error": "\(error)"])
            throw ExitCode(ExitStatus.software)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
