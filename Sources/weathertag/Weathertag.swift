import ArgumentParser
import WeathertagCore

@main
struct Weathertag: AsyncParsableCommand {
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
}
