import ArgumentParser
import FoundationEssentials
import Glibc
import WeathertagCore
import WeathertagDaemon

/// Where `entries`, `why` and `timeline` read the diary index: the running daemon (its answers know why an entry
/// waits this moment), else the state database itself, found through the configuration.
enum DiarySource {
    case daemon(socketPath: String, inbox: String)
    case database(DiaryIndex, inbox: String)

    var inbox: String {
        switch self {
        case .daemon(_, let inbox), .database(_, let inbox): return inbox
        }
    }

    /// The daemon when one answers on the socket; else the database of the configuration (`--config`, else the
    /// user's, else the system's). Exits 69 when there is neither.
    static func open(_ connection: DaemonConnection) async throws -> DiarySource {
        let environment = ProcessInfo.processInfo.environment
        let socketPath = try? connection.socketPath(environment)
        if let socketPath, let response = try? await DaemonConnection.get("/v1/status", socketPath: socketPath),
            response.status == 200, let status = try? DaemonConnection.decode(StatusDocument.self, response)
        {
            return .daemon(socketPath: socketPath, inbox: status.inbox)
        }
        guard let path = connection.configurationFile() else {
            printError(
                "no daemon answers\(socketPath.map { " on \($0)" } ?? "") and there is no configuration to find its "
                    + "state database with (give --config)")
            throw ExitCode(ExitStatus.unavailable)
        }
        let runtime = Runtime.quiet
        let configuration: Configuration
        do {
            configuration = try runtime.loadConfiguration(path)
        } catch {
            printError("configuration error: \(error)")
            throw ExitCode(ExitStatus.configuration)
        }
        let file = configuration.state.directory + "/" + StateDatabase.fileName
        do {
            guard let index = try await runtime.factory(configuration).diaryIndex() else {
                printError(
                    "no daemon answers and there is no diary index at \(file) yet (the daemon builds it: start it once)"
                )
                throw ExitCode(ExitStatus.unavailable)
            }
            return .database(index, inbox: configuration.inbox.path)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            printError("cannot open the diary index \(file): \(error)")
            throw ExitCode(ExitStatus.unavailable)
        }
    }

    /// A page of entries. A refused query exits 64 with the daemon's words (the parameter named).
    func list(_ query: EntryQuery) async throws -> EntryListDocument {
        switch self {
        case .daemon(let socketPath, _):
            let target = "/v1/entries?" + query.parameters.map { "\($0)=\(Self.encoded($1))" }.joined(separator: "&")
            let response = try await Self.get(target, socketPath: socketPath)
            guard response.status == 200 else {
                printError(DaemonConnection.errorMessage(response))
                throw ExitCode(response.status == 400 ? ExitStatus.usage : ExitStatus.unavailable)
            }
            return try DaemonConnection.decode(EntryListDocument.self, response)
        case .database(let index, _):
            return try await index.list(query)
        }
    }

    /// Every entry the query matches, page after page (at most `limit` when given).
    func all(_ query: EntryQuery, limit: Int?) async throws -> [EntryDocument] {
        var query = query
        var entries: [EntryDocument] = []
        while true {
            if let limit { query.limit = min(EntryQuery.maximumLimit, limit - entries.count) }
            let page = try await self.list(query)
            entries += page.entries
            guard let next = page.nextCursor, limit.map({ entries.count < $0 }) ?? true else { return entries }
            query.cursor = EntryQuery.Cursor(next)
        }
    }

    /// One entry by its path relative to the inbox; nil when the index does not have it.
    func entry(_ path: String) async throws -> EntryDocument? {
        switch self {
        case .daemon(let socketPath, _):
            let response = try await Self.get("/v1/entries/" + Self.encoded(path), socketPath: socketPath)
            if response.status == 404 { return nil }
            guard response.status == 200 else {
                printError(DaemonConnection.errorMessage(response))
                throw ExitCode(ExitStatus.unavailable)
            }
            return try DaemonConnection.decode(EntryDocument.self, response)
        case .database(let index, _):
            return try await index.entry(path)
        }
    }

    private static func get(_ target: String, socketPath: String) async throws -> HTTPResponse {
        do {
            return try await DaemonConnection.get(target, socketPath: socketPath)
        } catch {
            printError(DaemonConnection.unreachable(error, socketPath: socketPath))
            throw ExitCode(ExitStatus.unavailable)
        }
    }

    static func encoded(_ text: String) -> String {
        percentEncoded(text)
    }
}

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

    @Option(help: "waiting, stamped, backdated or left_alone.")
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

struct Entries: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the diary's entries, newest first: date, weather, place and title.",
        discussion: """
            Reads the running daemon's index (GET /v1/entries); without a daemon, its state database (found \
            through --config, else the user's or the system's configuration). Dates follow LC_ALL, LC_TIME or \
            LANG, as the C library's locales write them (ko_KR.UTF-8 shows them in Korean once that locale is \
            installed; a locale that is not falls back to English). --json prints {"entries": [...]} with every field; --format \
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
        let source = try await DiarySource.open(self.connection)
        let entries = try await source.all(try self.query(), limit: self.limit == 0 ? nil : self.limit)
        let formatting = DiaryFormatting(
            locale: DiaryFormatting.locale(environment: ProcessInfo.processInfo.environment))
        if self.json {
            let body = try JSONValueEncoder().encode(EntryListDocument(entries: entries, nextCursor: nil)).serialized
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

struct Why: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Say in one sentence where an entry stands and why, and what would change it.",
        discussion: """
            FILE is a path to an entry in the inbox (or relative to it). Reads the running daemon's index (which \
            knows why an entry waits this moment), else its state database. For a file of the inbox that is not an \
            entry it says what the file is: a sync tool's conflict copy and its entry, an editor's lock or a sync \
            tool's temp file and whose, a temporary, a hidden, excluded or too deep file, not Markdown.

            Exit status: 0; 66 when the file is not an entry of the diary; 69 when neither the daemon nor its \
            database can be read.
            """
    )

    @OptionGroup var connection: DaemonConnection

    @Flag(help: "Print the entry's JSON document (GET /v1/entries/{path}).")
    var json = false

    @Argument(help: "The entry.")
    var file: String

    func run() async throws {
        let source = try await DiarySource.open(self.connection)
        guard let path = Self.relative(self.file, inbox: source.inbox) else {
            printError("\(self.file) is not in the inbox (\(source.inbox))")
            throw ExitCode(ExitStatus.noInput)
        }
        guard let entry = try await source.entry(path) else {
            let exists = FileManager.default.fileExists(atPath: source.inbox + "/" + path)
            // Every file of the inbox is explained, entries or not, by the configuration's rules for folders.
            let tree =
                self.connection.configurationFile().flatMap { try? Runtime.quiet.loadConfiguration($0).inbox.tree }
                ?? InboxTree()
            if exists, let what = tree.explain(path) {
                print("\(path) is not an entry: \(what).")
            } else {
                printError(
                    exists
                        ? "\(path) is not in the diary index yet: the daemon has not seen it (is it running?)"
                        : "\(path): no such entry in the inbox")
            }
            throw ExitCode(ExitStatus.noInput)
        }
        if self.json {
            print(try JSONValueEncoder().encode(entry).serialized)
            return
        }
        let formatting = DiaryFormatting(
            locale: DiaryFormatting.locale(environment: ProcessInfo.processInfo.environment))
        var lines = ["\(entry.path) (\(entry.lane)): \(entry.why)"]
        if let remedy = entry.remedy { lines.append(remedy) }
        var facts = ["written \(formatting.date(entry)) (by \(DiaryFormatting.timeSource(entry.timeSource)))"]
        if let weather = entry.weather {
            let words = [
                weather.icon.map(TagFormatter.emoji(forIcon:)), weather.description ?? weather.condition,
                formatting.temperature(weather), weather.place,
            ].compactMap { $0 }.filter { !$0.isEmpty }
            facts.append("weather: " + words.joined(separator: " "))
        }
        if let stamped = entry.history?.stampedAt { facts.append("stamped \(stamped)") }
        if let restored = entry.history?.restoredAt, let count = entry.history?.restores {
            facts.append("block given back \(count) time(s), last \(restored)")
        }
        lines.append(facts.joined(separator: "; "))
        print(lines.joined(separator: "\n"))
    }

    /// `FILE` as a path relative to the inbox (both resolved through links), or nil when it is not inside it.
    static func relative(_ file: String, inbox: String) -> String? {
        func resolved(_ path: String) -> String? {
            guard let real = realpath(path, nil) else { return nil }
            defer { free(real) }
            return String(cString: real)
        }
        guard let root = resolved(inbox) else { return nil }
        // The file itself may be gone (`why` of a removed entry): resolve its folder.
        let candidates =
            file.hasPrefix("/") ? [file] : [FileManager.default.currentDirectoryPath + "/" + file, inbox + "/" + file]
        for candidate in candidates {
            let (folder, name) = (
                Paths.deletingLastComponent(candidate), Paths.lastComponent(candidate)
            )
            guard let real = resolved(folder) else { continue }
            let full = real + "/" + name
            if full.hasPrefix(root + "/") { return String(full.dropFirst(root.count + 1)) }
        }
        return nil
    }
}

struct Timeline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the diary as one self-contained HTML page: entries by month, and the temperature over time.",
        discussion: """
            Every entry the filters match (all of them without filters), newest first, grouped by month: date (in \
            the reader's locale), weather icon, temperature, place, title and first lines; above them a chart of \
            the temperature with each entry's condition shaded. The icons come from the daemon's icon cache \
            (cache.directory of the configuration; an emoji where none is cached), the CSS is inline, and there \
            is no script and no request to anywhere: the page opens offline and prints.

            Exit status: 0; 64 for a bad option; 69 when neither the daemon nor its database can be read; 73 when \
            the page cannot be written.
            """
    )

    @OptionGroup var connection: DaemonConnection
    @OptionGroup var filters: EntryFilters

    @Option(name: .shortAndLong, help: "The HTML file to write.")
    var output: String

    @Option(help: "The page's title.")
    var title = "Diary"

    @Option(help: "The day whose month and day \"On this day\" shows in earlier years (default today): 2026-05-01.")
    var onThisDay: String?

    func validate() throws {
        _ = try self.filters.query()
        if let onThisDay, EntryTime.given(onThisDay) == nil {
            throw ValidationError("--on-this-day must be \(EntryTime.grammar), not \"\(onThisDay)\"")
        }
    }

    func run() async throws {
        let source = try await DiarySource.open(self.connection)
        var query = try self.filters.query()
        query.limit = EntryQuery.maximumLimit
        let entries = try await source.all(query, limit: nil)
        // Earlier years' entries of today's (or the given day's) month and day, whatever the filters.
        var earlier = EntryQuery(limit: 20)
        let day = self.onThisDay.flatMap { EntryTime.given($0)?.date } ?? Date()
        earlier.restrict(toEarlierYearsOf: day, zone: .current)
        let onThisDay = try await source.all(earlier, limit: 20)
        let environment = ProcessInfo.processInfo.environment
        let page = TimelinePage(
            title: self.title,
            formatting: DiaryFormatting(locale: DiaryFormatting.locale(environment: environment)),
            icons: Self.icons(for: entries, cache: self.iconCache()),
            generatedAt: Date())
        do {
            try Data(page.render(entries, onThisDay: onThisDay).utf8).write(
                to: URL(fileURLWithPath: self.output), options: .atomic)
        } catch {
            printError("cannot write \(self.output): \(error)")
            throw ExitCode(ExitStatus.cannotCreate)
        }
        printError("wrote \(entries.count) entries to \(self.output)")
    }

    /// The icon cache's folder: `cache.directory` of the configuration, when there is one.
    private func iconCache() -> String? {
        guard let path = self.connection.configurationFile() else { return nil }
        let runtime = Runtime.quiet
        return (try? runtime.loadConfiguration(path)).map { $0.cache.directory + "/icons" }
    }

    static func icons(for entries: [EntryDocument], cache: String?) -> [String: [UInt8]] {
        guard let cache else { return [:] }
        var icons: [String: [UInt8]] = [:]
        for code in Set(entries.compactMap { $0.weather?.icon }) where code.allSatisfy({ $0.isLetter || $0.isNumber }) {
            if let data = FileManager.default.contents(atPath: "\(cache)/\(code)@2x.png") {
                icons[code] = [UInt8](data)
            }
        }
        return icons
    }
}
