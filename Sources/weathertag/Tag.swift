import ArgumentParser
import Foundation
import WeathertagCore
import WeathertagHTTP

struct Tag: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the current weather tag from the running daemon.",
        discussion: """
            Prints one line such as `☁️ 12.3°C broken clouds · Seoul`, the daemon's JSON with --json, or your own \
            template with --format. Placeholders: \
            \(TagFormatter.placeholders.map { "{\($0.key)}" }.joined(separator: " ")). \
            Text before a name inside the braces, as in `{ · place}`, only shows when the value is not empty.

            Exit status: 0 with a tag, 69 when the daemon cannot be reached, 75 when it has no weather yet.
            """
    )

    @Option(help: "The daemon's socket (default: socket.path of --config, else the default socket path).")
    var socket: String?

    @Option(name: .shortAndLong, help: "Read the socket path from this configuration file.")
    var config: String?

    @Flag(help: "Print the daemon's JSON answer.")
    var json = false

    @Option(help: "A template, e.g. \"{icon} {temperature} {place}\".")
    var format: String?

    func validate() throws {
        if self.json && self.format != nil { throw ValidationError("--json and --format cannot be used together") }
        if let format { _ = try TagFormatter(template: format) }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let socketPath: String
        do {
            if let socket {
                socketPath = PathResolver(environment: environment, base: "").absolute(socket)
            } else if let config {
                socketPath = try Configuration.socketPath(configPath: config, environment: environment)
            } else {
                socketPath = PathResolver(environment: environment, base: "").defaultSocketPath
            }
        } catch {
            printError("configuration error: \(error)")
            throw ExitCode(ExitStatus.configuration)
        }

        let response: HTTPResponse
        do {
            response = try await Runtime.client().get(
                HTTPRequest(url: "http://localhost/v1/tag", timeout: .seconds(30), unixSocketPath: socketPath)
            )
        } catch {
            printError("cannot reach the daemon at \(socketPath): \(error) (is `weathertag serve` running?)")
            throw ExitCode(ExitStatus.unavailable)
        }
        let body = String(decoding: response.body, as: UTF8.self)
        guard response.status == 200 else {
            let message = (try? JSONParser.parse(response.body))?["error"]?.stringValue ?? body
            printError(message)
            throw ExitCode(ExitStatus.temporaryFailure)
        }
        if self.json {
            print(body.hasSuffix("\n") ? String(body.dropLast()) : body)
            return
        }
        do {
            let tag = try WeatherTag(json: try JSONParser.parse(response.body))
            print(try TagFormatter(template: self.format ?? TagFormatter.defaultTemplate).format(tag))
        } catch {
            printError("the daemon's answer could not be read: \(error)")
            throw ExitCode(ExitStatus.software)
        }
    }
}
