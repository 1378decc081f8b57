import ArgumentParser
import FoundationEssentials
import Glibc
import WeathertagCore
import WeathertagDaemon

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Bring a diary in from Day One or jrnl: a Markdown file an entry, with its weather.",
        discussion: """
            Each entry becomes one Markdown file under --into (the configured inbox that is a vault's root: under \
            its daily notes' folder), named and foldered by inbox.layout (default \
            %Y/%m/%Y-%m-%d-%H%M.md, in the entry's own local time; a second entry of the same minute gets -2), with \
            front matter title, date (the instant, in its own zone's offset), tags, starred, location and the app's id \
            (dayone_uuid, jrnl_id): importing the same export again writes and changes nothing. An entry that kept \
            its weather (Day One) gets it as its weather: block (weather_source: dayone); one without (every jrnl \
            entry) gets its own hour's weather from history (history.enabled), placed by its location or the \
            location providers, as a back-dated entry is. Everything is written to a hidden folder in --into first \
            and moved in once complete: a bad export is refused naming the entry, and leaves nothing behind.
            """,
        subcommands: [DayOne.self, Jrnl.self]
    )

    struct Options: ParsableArguments {
        @Option(help: "The diary's folder to write into (the inbox, or any folder).")
        var into: String

        @Option(help: "Name and folder entries by this pattern instead of inbox.layout (%Y %m %d %H %M %S).")
        var layout: String?

        @Option(name: .shortAndLong, help: "The configuration (privacy, stamp fields, units, history).")
        var config: String?

        @Flag(help: "Say what would be written; write nothing.")
        var dryRun = false
    }

    /// The largest export read: ten years of Day One is a few MiB of JSON (photos are files beside it).
    static let maximumExportBytes = 512 << 20

    /// The factory of the configuration when there is one: privacy, the block's fields, units, history. Without
    /// one, entries that brought no weather are written without it.
    private static func factory(_ options: Options) throws -> ServiceFactory? {
        guard let configurationPath = DaemonConnection.configurationFile(given: options.config) else { return nil }
        do {
            let runtime = Runtime(logLevel: .error)
            return runtime.factory(try runtime.loadConfiguration(configurationPath))
        } catch {
            printError("configuration error: \(error)")
            throw ExitCode(ExitStatus.configuration)
        }
    }

    /// Every entry of the export's journals, each read whole (the parser walks the bytes): a diary's text, not a
    /// disk's worth. One that cannot be read imports nothing.
    private static func entries(
        of documents: [String], read: ([UInt8]) throws(ImportError) -> [ImportedEntry]
    ) throws -> [ImportedEntry] {
        var entries: [ImportedEntry] = []
        for document in documents {
            var size = stat()
            if stat(document, &size) == 0, size.st_size > Self.maximumExportBytes {
                printError("\(document): \(size.st_size >> 20) MiB is larger than any diary's JSON (at most 512 MiB)")
                throw ExitCode(65)
            }
            guard let data = FileManager.default.contents(atPath: document) else {
                printError("\(document): cannot be read")
                throw ExitCode(ExitStatus.noInput)
            }
            do {
                entries += try read([UInt8](data))
            } catch {
                printError("\(document): \(error); nothing was imported")
                throw ExitCode(65)
            }
        }
        return entries
    }

    /// What both imports do once the export is read.
    static func run(
        options: Options, path: String, read: ([UInt8]) throws(ImportError) -> [ImportedEntry]
    ) async throws {
        let environment = ProcessInfo.processInfo.environment
        let resolver = PathResolver(environment: environment, base: "")
        let into = resolver.absolute(options.into)
        var info = stat()
        guard stat(into, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            printError("--into \(into): no such folder")
            throw ExitCode(ExitStatus.noInput)
        }
        let factory = try Self.factory(options)
        let configuration = factory?.configuration
        let layout: DiaryLayout
        do {
            layout =
                try options.layout.map { text throws(DiaryLayout.Invalid) in try DiaryLayout(text) }
                ?? configuration?.inbox.layout ?? .default
        } catch {
            printError("--layout \(options.layout ?? ""): \(error)")
            throw ExitCode(ExitStatus.usage)
        }

        // Into a vault's root, whose entries are its daily notes' folder: into that folder, where they are entries.
        var root = into
        var tree = configuration?.inbox.tree ?? InboxTree()
        if let configuration, Paths.standardized(into) == Paths.standardized(configuration.inbox.path),
            !tree.newEntriesFolder.isEmpty
        {
            root = into + "/" + tree.newEntriesFolder
            try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            tree = InboxTree(
                recursive: tree.recursive, maximumDepth: tree.maximumDepth,
                excludes: tree.excludes.map(\.description))
        }
        let importer = DiaryImporter(root: root, layout: layout, tree: tree)
        // The export: a JSON file, or Day One's .zip unpacked into a hidden folder of --into.
        let exportPath = resolver.absolute(path)
        var unpacked: String?
        defer { if let unpacked { DiaryImporter.removeFolder(unpacked) } }
        var documents = [exportPath]
        if exportPath.lowercased().hasSuffix(".zip") {
            let folder: String
            do {
                folder = try await importer.unpack(zip: exportPath)
            } catch {
                printError("\(exportPath): \(error)")
                throw ExitCode(error.missingProgram ? ExitStatus.unavailable : ExitStatus.noInput)
            }
            unpacked = folder
            documents =
                (try? FileManager.default.contentsOfDirectory(atPath: folder))?.filter {
                    $0.lowercased().hasSuffix(".json")
                }.sorted().map { folder + "/" + $0 } ?? []
            guard !documents.isEmpty else {
                printError("\(exportPath): the .zip holds no journal (.json) at its top")
                throw ExitCode(ExitStatus.noInput)
            }
        }
        var entries = try Self.entries(of: documents, read: read)
        let exportFolder = documents[0].split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(
            separator: "/")

        // An entry without a place takes that of the export's entries written beside it on the same clock.
        entries = ImportedEntry.placedByTheExport(entries)
        let plan = importer.plan(entries)
        let privacy = configuration?.privacy ?? PrivacyPolicy()
        let fields = configuration?.stamp.fields ?? StampField.all
        let format = configuration?.stamp.format ?? .block
        let units = configuration?.weather.units ?? .metric
        let history = factory?.historyService(store: nil)
        if options.dryRun {
            for (entry, path) in plan.entries {
                let weather =
                    entry.weather.map { "its own weather (\(CurrentWeather.describe($0)))" }
                    ?? (history == nil ? "no weather (no history configured)" : "weather from history")
                print("\(path): \(entry.title.map { "\"\($0.prefix(40))\"" } ?? "(no title)"), \(weather)")
            }
            print(
                "would import \(plan.entries.count) of \(entries.count) entries into \(into)"
                    + (plan.alreadyThere > 0 ? " (\(plan.alreadyThere) there already)" : ""))
            return
        }

        let staging: DiaryImporter.Staging
        do {
            staging = try importer.stage(plan, exportFolder: exportFolder) { entry, links in
                entry.markdown(privacy: privacy, fields: fields, format: format, units: units, links: links)
            }
        } catch {
            printError("cannot write into \(into): \(error); nothing was imported")
            throw ExitCode(ExitStatus.cannotCreate)
        }

        // Entries that brought no weather: their own hour's, from history, as `stamp` gives a back-dated file.
        let waiting = staging.entries.filter(\.needsWeather).map { staging.staged($0.path) }
        var outcomes: [String: FileStamper.Outcome] = [:]
        if let factory, let history, !waiting.isEmpty {
            let backdating = BackdatingPolicy(
                threshold: factory.configuration.stamp.backdatedAfter, asksHistory: true, explicitTime: nil)
            let current = CurrentWeather(
                socketPath: nil, loaded: .success(factory),
                configurationPath: DaemonConnection.configurationFile(given: options.config) ?? "")
            let progress = ProgressBar(total: waiting.count)
            do {
                outcomes = try await factory.withProvidersRunning {
                    await FileStamper.stamp(
                        waiting, currentWeather: { await current.get().map { $0.tag }.mapError { $0 as any Error } },
                        fields: fields,
                        options: StampOptions(factory.configuration, backdating: backdating), history: history,
                        // A diary of years spends history's calls faster than a service's free limits allow: wait
                        // out its pacing (minutes), not its day's budget.
                        historyPatience: .init(each: .seconds(120), total: .seconds(3600))
                    ) { done, file in progress.show(done: done, current: file) }
                }
            } catch {
                importer.discard(staging)
                printError("cannot stamp the imported entries: \(error); nothing was imported")
                throw ExitCode(ExitStatus.software)
            }
            progress.finish()
        }

        let moved: [String]
        do {
            moved = try importer.commit(staging)
        } catch {
            importer.discard(staging)
            printError("cannot move the imported entries into \(into): \(error)")
            throw ExitCode(ExitStatus.cannotCreate)
        }
        Self.summarize(
            plan: plan, staging: staging, moved: moved, outcomes: outcomes, historyConfigured: history != nil,
            into: into)
    }

    private static func summarize(
        plan: DiaryImporter.Plan, staging: DiaryImporter.Staging, moved: [String],
        outcomes: [String: FileStamper.Outcome], historyConfigured: Bool, into: String
    ) {
        let own = plan.entries.filter { $0.entry.weather != nil }.count
        var fromHistory = 0
        var unplaced = 0
        var without: [String] = []
        for (index, staged) in staging.entries.enumerated() where staged.needsWeather {
            let final = moved[index]
            switch outcomes[staging.staged(staged.path)] {
            case (.stamped, _)?: fromHistory += 1
            case let (result, _)? where Self.unplaced(result):
                unplaced += 1
                without.append("\(final): \(Stamp.describe(result))")
            case let (result, _)?: without.append("\(final): \(Stamp.describe(result))")
            case nil:
                without.append(
                    "\(final): no weather"
                        + (historyConfigured ? "" : " (history is not enabled: see weathertag.json(5), history)"))
            }
        }
        for line in without { printError(line) }
        for file in staging.missing {
            printError("\(file): linked from an entry but not in the export; the link is kept")
        }
        var parts = ["imported \(moved.count) entries into \(into)"]
        parts.append("\(own) with their own weather, \(fromHistory) with weather from history")
        if unplaced > 0, unplaced == without.count {
            parts.append("\(unplaced) without weather: no place known for their time")
        } else if unplaced > 0 {
            parts.append("\(without.count) without weather (\(unplaced): no place known for their time)")
        } else if !without.isEmpty {
            parts.append("\(without.count) without weather")
        }
        if !staging.attachments.isEmpty { parts.append("\(staging.attachments.count) attachments copied") }
        if plan.alreadyThere > 0 { parts.append("\(plan.alreadyThere) there already") }
        print(parts.joined(separator: "; "))
    }
}

extension Import {
    /// No place was known for the entry's time (none at all, or only one its own clock contradicts).
    static func unplaced(_ result: EntryResult) -> Bool {
        switch result {
        case .leftAlone(.backdated(_, .noPosition), _), .leftAlone(.backdated(_, .elsewhere), _): true
        default: false
        }
    }
}

extension CurrentWeather {
    /// `16°C Light Rain, HAMweather`.
    static func describe(_ weather: DayOneWeather) -> String {
        let temperature = YAMLScalar.number(weather.temperatureCelsius, places: 1)
        return "\(temperature)°C \(weather.description)" + (weather.service.map { ", \($0)" } ?? "")
    }
}
