import ArgumentParser
import FoundationEssentials
import Glibc
import WeathertagCore
import WeathertagDaemon

struct Timeline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Write the diary as one self-contained HTML page: entries by month, and the temperature over time.",
        discussion: """
            Every entry the filters match (all of them without filters), newest first, grouped by month: date (in \
            the reader's locale), weather icon, temperature, place, title, first lines and (inside the diary) photos; above them a chart of \
            the temperature with each entry's condition shaded, and a map of where they were written (as \
            `weathertag map` draws it; each dot leads to its entry's card). The icons come from the daemon's icon \
            cache (cache.directory of the configuration; a drawn icon where none is cached), the CSS is inline, \
            and there is no script and no request beyond the entries' own photos: the page opens offline and prints.

            Exit status: 0; 64 for a bad option; 69 when neither the daemon nor its database can be read; 73 when \
            the page cannot be written.
            """
    )

    @OptionGroup var connection: DaemonConnection
    @OptionGroup var filters: EntryFilters

    @Option(name: .shortAndLong, help: "The HTML file to write.")
    var output: String

    @Option(help: "The page's title (default: the configuration's timeline.title, else \"Diary\").")
    var title: String?

    @Option(help: "The day whose month and day \"On this day\" shows in earlier years (default today): 2026-05-01.")
    var onThisDay: String?

    func validate() throws {
        _ = try self.filters.query()
        if let onThisDay, EntryTime.given(onThisDay) == nil {
            throw ValidationError("--on-this-day must be \(EntryTime.grammar), not \"\(onThisDay)\"")
        }
    }

    func run() async throws {
        try await DiaryUnreadable.printed { try await self.write() }
    }

    private func write() async throws {
        let (source, entries) = try await DiarySource.matching(self.filters, self.connection)
        // Earlier years' entries of today's (or the given day's) month and day, whatever the filters.
        let day = self.onThisDay.flatMap { EntryTime.given($0)?.date } ?? Date()
        let onThisDay = try await source.all(TimelineRendering.onThisDay(day), limit: 20)
        let file = DiarySource.absolute(self.output)
        do {
            try TimelineRendering.writePage(
                entries, onThisDay: onThisDay, settings: .of(self.connection, title: self.title), generatedAt: Date(),
                file: file, inbox: source.inbox)
        } catch {
            printError("cannot write \(self.output): \(error)")
            throw ExitCode(ExitStatus.cannotCreate)
        }
        printError("wrote \(entries.count) entries to \(self.output)")
    }
}

extension TimelineRendering.Settings {
    /// The page's and the map's settings from the configuration, when there is one: its icon cache
    /// (`cache.directory`), its `privacy` and the map's files; else no icons, `privacy`'s defaults and the map's
    /// files shipped beside this executable. Its words are the daemon's page's (`timeline.lang`, else
    /// `weather.lang`), or the reader's language without a configuration.
    static func of(_ connection: DaemonConnection, title: String?) -> Self {
        let runtime = Runtime.quiet
        let configuration = connection.configurationFile().flatMap { try? runtime.loadConfiguration($0) }
        let title = title ?? configuration?.timeline.title ?? TimelineConfiguration().title
        let words =
            configuration.map {
                Translations.messages($0.timeline.languages, directory: $0.timeline.localeDirectory)
            } ?? Runtime.words
        return Self(
            title: title, environment: runtime.environment,
            iconCache: configuration.map { $0.cache.directory + "/icons" },
            map: configuration?.timeline.map ?? MapFiles(environment: runtime.environment),
            privacy: configuration?.privacy ?? PrivacyPolicy(), words: words)
    }
}
