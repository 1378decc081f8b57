import ArgumentParser
import FoundationEssentials
import WeathertagCore
import WeathertagDaemon
import WeathertagHTTP

/// `--socket` / `--config`: where the commands that talk to the running daemon find it.
struct DaemonConnection: ParsableArguments {
    @Option(help: "The daemon's socket (default: socket.path of --config, else the default socket path).")
    var socket: String?

    @Option(name: .shortAndLong, help: "Read the socket path from this configuration file.")
    var config: String?

    /// The socket's path; throws `ConfigurationError` when --config cannot be read.
    func socketPath(_ environment: [String: String]) throws -> String {
        if let socket { return PathResolver(environment: environment, base: "").absolute(socket) }
        if let config {
            return try Configuration.socketPath(
                configPath: config, environment: environment, files: LocalConfigurationFiles())
        }
        return PathResolver(environment: environment, base: "").defaultSocketPath
    }

    /// The configuration given, else the user's, else the system's; nil when none exists.
    func configurationFile() -> String? {
        Self.configurationFile(given: self.config)
    }

    /// `given`, else the user's configuration, else the system's; nil when none exists.
    static func configurationFile(given: String?) -> String? {
        let environment = ProcessInfo.processInfo.environment
        let candidates = [
            given,
            (environment["XDG_CONFIG_HOME"] ?? (environment["HOME"] ?? "") + "/.config") + "/weathertag/config.json",
            "/etc/weathertag/config.json",
        ]
        return candidates.compactMap { $0 }.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// `GET path` on the daemon's socket.
    static func get(_ path: String, socketPath: String, timeout: Duration = .seconds(30)) async throws -> HTTPResponse {
        try await Runtime.client().get(
            HTTPRequest(url: "http://localhost" + path, timeout: timeout, unixSocketPath: socketPath)
        )
    }

    /// One of the API's documents (`APIDocuments.swift`) from a response body.
    static func decode<Document: Decodable>(_ type: Document.Type, _ response: HTTPResponse) throws -> Document {
        try JSONDecoder().decode(type, from: Data(response.body))
    }

    /// Why the daemon could not be asked, for a person: where nothing listens on the socket, that, without
    /// libcurl's words about a TCP port that has nothing to do with it.
    static func unreachable(_ error: any Error, socketPath: String) -> String {
        if let error = error as? HTTPClientError, error.kind == .couldNotConnect {
            return "cannot reach the daemon: nothing answers on \(socketPath) (is `weathertag serve` running?)"
        }
        return "cannot reach the daemon at \(socketPath): \(error) (is `weathertag serve` running?)"
    }

    /// What a refusal says (`{"error": …}`), else the body as it is.
    static func errorMessage(_ response: HTTPResponse) -> String {
        (try? Self.decode(ErrorDocument.self, response))?.error ?? String(decoding: response.body, as: UTF8.self)
    }
}
