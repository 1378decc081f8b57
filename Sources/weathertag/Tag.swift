import ArgumentParser
import Foundation
import WeathertagCore
import WeathertagHTTP

struct Tag: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the current weather tag from the running daemon.",
        discussion: """
            Prints one line such as `☁️ 12.3°C broken clouds · Seoul`, the daemon's JSON with --json, your own \
            template with --format, or waybar's custom-module JSON with --waybar (text, tooltip, class and alt: \
            `ok` or `stale`; `unavailable` when there is no tag). Placeholders: \
            \(TagFormatter.placeholders.map { "{\($0.key)}" }.joined(separator: " ")). \
            Text before a name inside the braces, as in `{ · place}`, only shows when the value is not empty.

            Exit status: 0 with a tag, 69 when the daemon cannot be reached, 75 when it has no weather yet.
            """
    )

    @OptionGroup var connection: DaemonConnection

    @Flag(help: "Print the daemon's JSON answer.")
    var json = false

    @Option(help: "A template, e.g. \"{icon} {temperature} {place}\".")
    var format: String?

    @Flag(help: "Print waybar's custom-module JSON (\"return-type\": \"json\"); --format sets its text.")
    var waybar = false

    func validate() throws {
        if self.json && self.format != nil { throw ValidationError("--json and --format cannot be used together") }
        if self.json && self.waybar { throw ValidationError("--json and --waybar cannot be used together") }
        // A bad template is a usage error (64), like an unknown option.
        if let format {
            do {
                _ = try TagFormatter(template: format)
            } catch {
                throw ValidationError("--format: \(error)")
            }
        }
    }

    func run() async throws {
        let socketPath: String
        do {
            socketPath = try self.connection.socketPath(ProcessInfo.processInfo.environment)
        } catch {
            self.fail("configuration error: \(error)", ExitStatus.configuration)
        }

        let response: HTTPResponse
        do {
            response = try await DaemonConnection.get("/v1/tag", socketPath: socketPath)
        } catch {
            self.fail(
                DaemonConnection.unreachable(error, socketPath: socketPath),
                ExitStatus.unavailable
            )
        }
        let body = String(decoding: response.body, as: UTF8.self)
        guard response.status == 200 else {
            self.fail(DaemonConnection.errorMessage(response), ExitStatus.temporaryFailure)
        }
        if self.json {
            print(body.hasSuffix("\n") ? String(body.dropLast()) : body)
            return
        }
        do {
            let tag = try WeatherTag(try DaemonConnection.decode(TagDocument.self, response))
            let text = try TagFormatter(template: self.format ?? TagFormatter.defaultTemplate).format(tag)
            print(self.waybar ? Waybar.module(for: tag, text: text, now: Date()).serialized : text)
        } catch {
            self.fail("the daemon's answer could not be read: \(error)", ExitStatus.software)
        }
    }

    /// Says why there is no tag, on stderr (and for waybar also as a module, whose tooltip shows it), and exits.
    private func fail(_ message: String, _ status: Int32) -> Never {
        printError(message)
        if self.waybar { print(Waybar.unavailable(message).serialized) }
        Weathertag.exit(withError: ExitCode(status))
    }
}
