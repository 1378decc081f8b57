import ArgumentParser
import FoundationEssentials
import WeathertagCore

struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "The weather of your diary: conditions, rainy days, extremes, temperature by month, and mood.",
        discussion: """
            Counts the entries the daemon's index holds (or its database, without a daemon): entries per \
            condition, the share of days with entries that were rainy (rain, drizzle or a thunderstorm), the \
            warmest and coldest entry, the mean temperature of each calendar month, and, where entries carry a \
            mood: (a number, or awful, bad, meh, good, rad, …), the mean mood by condition and by ten-degree band. \
            --by year|month|condition|place adds a line per group. Temperatures are in the units most blocks use.
            """)

    @OptionGroup var connection: DaemonConnection

    @Option(help: "Entries written at or after this day or time.")
    var since: String?

    @Option(help: "Entries written up to this day (the whole day) or time.")
    var until: String?

    @Option(help: "A line per year, month, condition or place.")
    var by: DiaryStatistics.Grouping?

    @Flag(help: "Print the figures as JSON.")
    var json = false

    func query() throws -> EntryQuery {
        var parameters: [String: String] = [:]
        parameters["since"] = self.since
        parameters["until"] = self.until
        do {
            var query = try EntryQuery(parameters: parameters)
            query.limit = EntryQuery.maximumLimit
            return query
        } catch {
            throw ValidationError("--\(error.parameter) \(error.problem)")
        }
    }

    func validate() throws {
        _ = try self.query()
    }

    func run() async throws {
        let entries = try await DiaryUnreadable.printed {
            try await DiarySource.open(self.connection).all(try self.query(), limit: nil)
        }
        let statistics = DiaryStatistics(entries, by: self.by)
        print(
            self.json
                ? statistics.json.serialized
                : statistics.text(
                    Runtime.words, locale: DiaryFormatting.locale(environment: ProcessInfo.processInfo.environment)),
            terminator: self.json ? "\n" : "")
    }
}

extension DiaryStatistics.Grouping: ExpressibleByArgument {}
