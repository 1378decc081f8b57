import ArgumentParser
import FoundationEssentials
import WeathertagCore
import WeathertagHTTP

struct Where: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "where",
        abstract: "Print where the machine is, or was at a time, as the running daemon's providers say.",
        discussion: """
            Without TIME: the position the daemon would stamp with now (`location.strategy` picks among the \
            providers). With TIME (2026-11-22, "2026-11-22 09:41" or 2026-11-22T09:41:00Z, as stamp --at \
            takes it; a bare day means its noon): where the providers that know the past \
            (track, owntracks, homeassistant, fixed, and a command whose argv holds {time}) say the machine was \
            then, as a back-dated entry written then is placed. Coordinates are shown as privacy allows.

            Exit status: 0 with a position, 69 when the daemon cannot be reached, 75 when no provider has one.
            """
    )

    @OptionGroup var connection: DaemonConnection

    @Argument(help: "A moment in the past (2026-11-22, \"2026-11-22 09:41\", RFC 3339); now when left out.")
    var time: String?

    @Flag(help: "Print the daemon's JSON answer.")
    var json = false

    func validate() throws {
        if let time, EntryTime.given(time) == nil {
            throw ValidationError("\(time) is not \(EntryTime.grammar)")
        }
    }

    func run() async throws {
        let socketPath: String
        do {
            socketPath = try self.connection.socketPath(ProcessInfo.processInfo.environment)
        } catch {
            printError("configuration error: \(error)")
            throw ExitCode(ExitStatus.configuration)
        }
        var target = "/v1/location"
        if let time {
            var components = URLComponents()
            components.queryItems = [URLQueryItem(name: "at", value: time)]
            target += "?" + (components.percentEncodedQuery ?? "")
        }
        let response: HTTPResponse
        do {
            response = try await DaemonConnection.get(target, socketPath: socketPath)
        } catch {
            printError(DaemonConnection.unreachable(error, socketPath: socketPath))
            throw ExitCode(ExitStatus.unavailable)
        }
        guard response.status == 200 else {
            printError(DaemonConnection.errorMessage(response))
            throw ExitCode(ExitStatus.temporaryFailure)
        }
        if self.json {
            print(String(decoding: response.body, as: UTF8.self).trimming(while: \.isNewline))
            return
        }
        do {
            print(Self.line(try DaemonConnection.decode(LocationDocument.self, response)))
        } catch {
            printError("the daemon's answer could not be read: \(error)")
            throw ExitCode(ExitStatus.software)
        }
    }

    /// `59.91, 10.75 ±10 m · Oslo (track, 2026-11-23T18:00:16Z)`.
    static func line(_ location: LocationDocument) -> String {
        var text: String
        if let latitude = location.latitude, let longitude = location.longitude {
            text = "\(latitude), \(longitude)"
        } else {
            text = "(coordinates withheld)"
        }
        if let accuracy = location.accuracyM { text += " ±\(Int(accuracy.rounded())) m" }
        if let name = location.name, !name.isEmpty { text += " · \(name)" }
        return text + " (\(location.source), \(location.takenAt))"
    }
}
