import ArgumentParser
import FoundationEssentials
import Glibc
import WeathertagCore
import WeathertagDaemon

struct Map: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract: "Draw where the diary was written as one SVG: a dot per place, coloured by its weather.",
        discussion: """
            Every entry the filters match (all of them without filters) that has a place: the coordinates its \
            front matter gives, else its weather block's, shown as privacy allows (rounded to privacy.decimals; an \
            entry inside a privacy zone is counted under the zone's name, never drawn). Entries at one place are \
            one dot with their count, coloured by their most frequent condition; entries written within three \
            days of each other are joined in time order. The map is zoomed to the places (a city, a country, the \
            world), over the shorelines, lakes and borders shipped with weathertag (GSHHG, at the scale that fits) \
            and the names of the largest towns in view (the offline towns index). Hovering a dot names its \
            entries; clicking it opens the newest one's file. No tiles, no script, no request to anywhere.

            Exit status: 0; 64 for a bad option; 69 when neither the daemon nor its database can be read; 73 when \
            the map cannot be written.
            """
    )

    @OptionGroup var connection: DaemonConnection
    @OptionGroup var filters: EntryFilters

    @Option(name: .shortAndLong, help: "The SVG file to write.")
    var output: String

    func validate() throws {
        _ = try self.filters.query()
        guard self.output.hasSuffix(".svg") else { throw ValidationError("--output must end in .svg") }
    }

    func run() async throws {
        try await DiaryUnreadable.printed { try await self.write() }
    }

    private func write() async throws {
        let (source, entries) = try await DiarySource.matching(self.filters, self.connection)
        let file = DiarySource.absolute(self.output)
        let svg = TimelineRendering.map(
            entries, settings: .of(self.connection, title: ""), inbox: source.inbox, file: file)
        do {
            try Data(svg.utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            printError("cannot write \(self.output): \(error)")
            throw ExitCode(ExitStatus.cannotCreate)
        }
        let placed = entries.filter { $0.location != nil }.count
        printError("drew \(placed) of \(entries.count) entries on \(self.output)")
    }
}
