import ArgumentParser
import FoundationEssentials
import Glibc
import WeathertagCore
import WeathertagDaemon

struct Entries: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "entries",
        abstract: "List the diary's entries, newest first: date, weather, place and title.",
        discussion: """
            Reads the running daemon's index (GET /v1/entries); without a daemon, its state database (found \
            through --config, else the user's or the system's configuration). Dates and numbers follow LC_ALL, \
            LC_TIME or LANG, as CLDR writes them for that locale (de_DE.UTF-8: 05.03.2026, 15:30), installed or \
            not; the sentences follow LANGUAGE, LC_ALL, LC_MESSAGES or LANG (docs/your-language.md). --json \
            prints {"entries": [...]} with every field, in English; --format \
            prints one line per entry from a template (placeholders: \
            \(DiaryFormatting.placeholders.map { "{\($0.key)}" }.joined(separator: " "))).

            Exit status: 0; 64 for a bad option; 69 when neither the daemon nor its database can be read.
            """
    )

    @OptionGroup var connection: DaemonConnection
    @OptionGroup var filters: EntryFilters

    @Option(help: "At most this many entries (default 50; 0 for all).")
    var limit = 50

    @Flag(help: "Print the entries as JSON.")
    var json = false

    @Option(help: "One line per entry from this template, e.g. \"{date} {icon} {title}\".")
    var format: String?

    @Flag(
        help: """
            On this day: every earlier year's entries of today's month and day (or of DATE, given as the first \
            word: --on-this-day 2026-05-01), newest year first.
            """)
    var onThisDay = false

    /// The query: the filters, and with --on-this-day the month and day of its date (today, or the first word when
    /// it is a date) in every year before that date's.
    func query() throws -> EntryQuery {
        guard self.onThisDay else { return try self.filters.query() }
        var filters = self.filters
        var date = Date()
        if let first = filters.words.first, let given = EntryTime.given(first) {
            date = given.date
            filters.words.removeFirst()
        }
        var query = try filters.query()
        query.restrict(toEarlierYearsOf: date, zone: .current)
        return query
    }

    func validate() throws {
        _ = try self.query()
        guard self.limit >= 0 else { throw ValidationError("--limit must be 0 (all) or more") }
        if let format, let unknown = DiaryFormatting.unknownPlaceholders(in: format).first {
            throw ValidationError(
                "--format has an unknown placeholder {\(unknown)}; known: "
                    + DiaryFormatting.placeholders.map { "{\($0.key)}" }.joined(separator: " "))
        }
    }

    func run() async throws {
        let entries = try await DiaryUnreadable.printed {
            let source = try await DiarySource.open(self.connection)
            return try await source.all(try self.query(), limit: self.limit == 0 ? nil : self.limit)
        }
        let formatting = DiaryFormatting(
            locale: DiaryFormatting.locale(environment: ProcessInfo.processInfo.environment), words: Runtime.words)
        if self.json {
            let body = try JSONTextEncoder().encode(EntryListDocument(entries: entries, nextCursor: nil))
            print(body)
        } else if let format = self.format {
            for entry in entries { print(formatting.line(format, entry)) }
        } else if entries.isEmpty {
            printError("no entries match")
        } else {
            print(
                formatting.table(entries, lanes: self.filters.lane == nil && Set(entries.map(\.lane)).count > 1),
                terminator: "")
        }
    }
}
