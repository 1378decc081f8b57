import ArgumentParser
import WeathertagCore

/// `--since`, `--until`, `--condition`, `--place`, `--lane` and words: the filters `entries` and `timeline` share.
struct EntryFilters: ParsableArguments {
    @Option(help: "Entries written at or after this day or time (2026-01-05, \"2026-01-05 08:00\", RFC 3339).")
    var since: String?

    @Option(help: "Entries written up to this day (the whole day) or time.")
    var until: String?

    @Option(help: "A condition group (Snow, Rain, Clear …) or a word of the description.")
    var condition: String?

    @Option(help: "A place, region or country as the weather block names it.")
    var place: String?

    @Option(help: "waiting, stamped, backdated, left_alone or other_time.")
    var lane: String?

    @Argument(help: "Words to find in the title, text or place (each word matches words starting with it).")
    var words: [String] = []

    /// The query, checked as the daemon checks it: a bad value exits 64 naming the option.
    func query() throws -> EntryQuery {
        var parameters: [String: String] = [:]
        parameters["since"] = self.since
        parameters["until"] = self.until
        parameters["condition"] = self.condition
        parameters["place"] = self.place
        parameters["lane"] = self.lane
        if !self.words.isEmpty { parameters["q"] = self.words.joined(separator: " ") }
        do {
            return try EntryQuery(parameters: parameters)
        } catch {
            let option = error.parameter == "q" ? "QUERY" : "--" + error.parameter
            throw ValidationError("\(option) \(error.problem)")
        }
    }
}
