import ArgumentParser
import FoundationEssentials
import Glibc
import WeathertagCore
import WeathertagDaemon

struct Why: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "why",
        abstract: "Say in one sentence where an entry stands and why, and what would change it.",
        discussion: """
            FILE is a path to an entry in the inbox (or relative to it). Reads the running daemon's index (which \
            knows why an entry waits this moment), else its state database. For a file of the inbox that is not an \
            entry it says what the file is: a sync tool's conflict copy and its entry, an editor's lock or a sync \
            tool's temp file and whose, a temporary, a hidden, excluded or too deep file, a note outside a vault's \
            entries, not Markdown.

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
        try await DiaryUnreadable.printed { try await self.explain() }
    }

    private func explain() async throws {
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
            print(try JSONTextEncoder().encode(entry))
            return
        }
        let formatting = DiaryFormatting(
            locale: DiaryFormatting.locale(environment: ProcessInfo.processInfo.environment), words: Runtime.words)
        let words = Runtime.words
        var lines = entry.explanation(words)
        var facts = [
            words.tr(
                "written {date} (by {source})",
                ["date": formatting.date(entry), "source": DiaryFormatting.timeSource(entry.timeSource, words)])
        ]
        if let weather = entry.weather {
            let shown = [
                weather.icon.map(TagFormatter.emoji(forIcon:)), weather.description ?? weather.condition,
                formatting.temperature(weather), weather.place,
            ].compactMap { $0 }.filter { !$0.isEmpty }
            facts.append(words.tr("weather: {weather}", ["weather": shown.joined(separator: " ")]))
        }
        if let stamped = entry.history?.stampedAt { facts.append(words.tr("stamped {time}", ["time": stamped])) }
        if let restored = entry.history?.restoredAt, let count = entry.history?.restores {
            facts.append(
                words.tr(
                    "block given back {count} time, last {time}", plural: "block given back {count} times, last {time}",
                    count: count, ["time": restored]))
        }
        lines.append(facts.joined(separator: words.tr("; ", context: "list of facts")))
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
