import ArgumentParser
import FoundationEssentials
import WeathertagCore
import WeathertagHTTP

struct Tag: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tag",
        abstract: "Print the current weather tag from the running daemon.",
        discussion: """
            Prints one line such as `☁️ 12.3°C broken clouds · Seoul`, the daemon's JSON with --json, your own \
            template with --format, or waybar's custom-module JSON with --waybar (text, tooltip, class and alt: \
            `ok` or `stale`; `unavailable` when there is no tag). Placeholders: \
            \(TagFormatter.placeholders.map { "{\($0.key)}" }.joined(separator: " ")). \
            Text before a name inside the braces, as in `{ · place}`, only shows when the value is not empty.

            For status bars: with --waybar, or with --fallback, there is always a line to show and the exit status \
            is 0 (waybar hides a module that prints nothing or fails): the fallback text (`n/a` for waybar) with \
            the class `unavailable`, and the reason on stderr. A daemon that does not answer within --timeout \
            seconds (2) counts as unreachable.

            Exit status: 0 with a tag (or a fallback), 69 when the daemon cannot be reached, 75 when it has no \
            weather yet.
            """
    )

    @OptionGroup var connection: DaemonConnection

    @Flag(help: "Print the daemon's JSON answer.")
    var json = false

    @Option(help: "A template, e.g. \"{icon} {temperature} {place}\".")
    var format: String?

    @Flag(help: "Print waybar's custom-module JSON (\"return-type\": \"json\"); --format sets its text.")
    var waybar = false

    @Option(help: "Print this instead of failing when there is no tag (for status bars); the reason goes to stderr.")
    var fallback: String?

    @Option(help: "How long to wait for the daemon, in seconds.")
    var timeout: Double = 2

    func validate() throws {
        if self.json && self.format != nil { throw ValidationError("--json and --format cannot be used together") }
        if self.json && self.waybar { throw ValidationError("--json and --waybar cannot be used together") }
        guard self.timeout > 0, self.timeout <= 300 else {
            throw ValidationError("--timeout \(self.timeout): give seconds, more than 0 and at most 300")
        }
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
            response = try await DaemonConnection.get(
                "/v1/tag", socketPath: socketPath, timeout: .milliseconds(Int64(self.timeout * 1000)))
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
            let document = try DaemonConnection.decode(TagDocument.self, response)
            let tag = try WeatherTag(document)
            let text = try TagFormatter(template: self.format ?? TagFormatter.defaultTemplate).format(tag)
            let conflicts = document.syncConflicts ?? 0
            guard self.waybar else {
                print(text)
                return
            }
            let earlier = await Self.onThisDay(socketPath: socketPath, timeout: self.timeout)
            print(
                Waybar.module(for: tag, text: text, now: Date(), syncConflicts: conflicts, onThisDay: earlier)
                    .serialized)
        } catch {
            self.fail("the daemon's answer could not be read: \(error)", ExitStatus.software)
        }
    }

    /// Up to three entries of earlier years written on today's month and day, for waybar's tooltip; none when the
    /// daemon does not answer in time (the bar still shows the weather).
    static func onThisDay(socketPath: String, timeout: Double) async -> [EntryDocument] {
        var query = EntryQuery(limit: 3)
        query.restrict(toEarlierYearsOf: Date(), zone: .current)
        let target =
            "/v1/entries?" + query.parameters.map { "\($0.0)=\(DiarySource.encoded($0.1))" }.joined(separator: "&")
        guard
            let response = try? await DaemonConnection.get(
                target, socketPath: socketPath, timeout: .milliseconds(Int64(timeout * 1000))),
            response.status == 200,
            let list = try? DaemonConnection.decode(EntryListDocument.self, response)
        else { return [] }
        return list.entries
    }

    /// Says why there is no tag on stderr and exits; for a bar (waybar, or a fallback given) it prints something
    /// to show instead and exits 0, since bars hide a module that fails or prints nothing.
    private func fail(_ message: String, _ status: Int32) -> Never {
        printError(message)
        if self.waybar {
            print(Waybar.unavailable(message, text: self.fallback ?? "n/a").serialized)
            Weathertag.exit()
        }
        if let fallback = self.fallback {
            print(fallback)
            Weathertag.exit()
        }
        Weathertag.exit(withError: ExitCode(status))
    }
}
