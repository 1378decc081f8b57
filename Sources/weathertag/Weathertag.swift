import ArgumentParser
import WeathertagCore
import WeathertagDaemon

@main
struct Weathertag: AsyncParsableCommand {
    // Every command names itself (`commandName`): without it ArgumentParser derives each name from the type with
    // `String(describing:)`, whose dynamic casts were a sixth of a start's CPU before READY=1.
    static let configuration = CommandConfiguration(
        commandName: "weathertag",
        abstract: "Stamps the current weather into new diary entries and serves the weather tag on a Unix socket.",
        discussion: """
            Drop a Markdown file into the inbox folder and `weathertag serve` adds a `weather:` block to its YAML \
            front matter: condition, temperature, icon and where the machine was (gpsd, IP geolocation, a command \
            or a fixed place). Status bars and scripts ask `weathertag tag` for the current tag.

            Start with `weathertag check --config FILE`, then run `weathertag serve --config FILE`.
            """,
        version: WeathertagVersion.current,
        subcommands: [
            Serve.self, Tag.self, Status.self, Stamp.self, Entries.self, Why.self, Timeline.self, Map.self, Where.self,
            Check.self, Import.self, New.self, Stats.self,
        ]
    )

    /// The daemon's start, `serve --config FILE [--log-level LEVEL]`, is read directly (`ServeCommandLine`: the
    /// reason is written there); every other command line, `serve --help` among them, goes through ArgumentParser.
    static func main() async {
        if let line = ServeCommandLine(CommandLine.arguments.dropFirst()) {
            let serve = Serve(line)
            do {
                try await serve.run()
            } catch {
                Self.exit(withError: error)
            }
            return
        }
        await Self.main(nil)
    }
}
