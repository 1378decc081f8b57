import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import WeathertagCore
import WeathertagDaemon

struct Stamp: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stamp Markdown files anywhere with the current weather, as the daemon stamps its inbox.",
        discussion: """
            The weather comes from the running daemon (its cache and call budget); when no daemon answers, from \
            OpenWeather directly with --config (else $XDG_CONFIG_HOME/weathertag/config.json or \
            /etc/weathertag/config.json), sharing the daemon's cache. Each file gets the same treatment as an \
            entry in the inbox: stamped once, atomically, every byte kept; files already stamped, not text, or \
            with front matter it must not edit are left as they are. A progress bar shows on a terminal; a \
            summary follows. --dry-run prints the front matter each file would get and writes nothing.

            Exit status: 0 when every file is stamped (or already was), 65 when some were left alone or failed, \
            69 when there is neither a daemon nor a configuration, 75 when there is no weather yet.
            """
    )

    @OptionGroup var connection: DaemonConnection

    @Flag(help: "Print the front matter each file would get; change nothing.")
    var dryRun = false

    @Flag(
        help: """
            New weather on purpose: replace a weather block that is there, and do not give an entry of the inbox \
            its remembered block back.
            """)
    var fresh = false

    @Option(
        help: """
            When the files were written (2019-05-01, "2019-05-01 10:00", 2019-05-01T10:00:00+02:00), instead of what \
            each says. Earlier than stamp.backdated_after_seconds, they get the weather of that time \
            (history.enabled) or are left alone.
            """)
    var at: String?

    @Argument(help: "The Markdown files.")
    var files: [String]

    func validate() throws {
        if let at, EntryTime.given(at) == nil {
            throw ValidationError("--at \(at) is not \(EntryTime.grammar)")
        }
    }

    func run() async throws {
        // Set up once, and only with a configuration: it bootstraps logging, which a process may do once.
        let loaded = self.configurationPath().map { path in
            let runtime = Runtime(logLevel: .error)
            return Result { () throws(ConfigurationError) in runtime.factory(try runtime.loadConfiguration(path)) }
        }
        let factory = try? loaded?.get()
        let (tag, origin) = try await self.currentTag(loaded)
        let configuration = factory?.configuration
        // The block the daemon would write: the configuration's fields.
        let fields = configuration?.stamp.fields ?? StampField.all
        let lines = tag.stampLines(fields: fields)
        if self.dryRun {
            for file in self.files {
                print("== \(file)")
                switch FileStamper.preview(file, lines: lines) {
                case .success(let frontMatter): print(frontMatter, terminator: "")
                case .failure(let outcome): print("(nothing to write: \(Self.describe(outcome)))")
                }
            }
            return
        }

        let database = await factory?.stateDatabase()
        let memory = database.flatMap { factory?.stampMemory($0) }
        if memory == nil, self.fresh {
            printError("note: no configuration with a state database, so no memory of these files is updated")
        }
        // Back-dated files get the weather of their time as the daemon's entries do (history.enabled).
        let history = factory?.historyService(store: database)
        let backdating = BackdatingPolicy(
            threshold: configuration?.stamp.backdatedAfter ?? .seconds(10_800), asksHistory: history != nil,
            explicitTime: self.at.flatMap { EntryTime.given($0) })
        let progress = ProgressBar(total: self.files.count)
        let (files, fresh) = (self.files, self.fresh)
        let stampAll = { @Sendable in
            await FileStamper.stamp(
                files, with: tag, fields: fields, backdating: backdating, memory: memory, fresh: fresh,
                history: history
            ) {
                done, file in
                progress.show(done: done, current: file)
            }
        }
        // Back-dated files are placed by the providers that know the past: a track provider indexes its files
        // (and its `locate(at:)` waits for that) only while it runs.
        let outcomes =
            if let factory, history != nil {
                try await factory.withProvidersRunning(stampAll)
            } else {
                await stampAll()
            }
        progress.finish()
        var counts: [String: Int] = [:]
        var problems: [String] = []
        for file in self.files {
            let outcome = outcomes[file] ?? .vanished
            switch outcome {
            case .stamped: counts["stamped", default: 0] += 1
            case .restored: counts["restored", default: 0] += 1
            case .alreadyStamped: counts["already stamped", default: 0] += 1
            default:
                counts["left alone", default: 0] += 1
                problems.append("\(file): \(Self.describe(outcome))")
            }
        }
        for problem in problems { printError(problem) }
        let summary = ["stamped", "restored", "already stamped", "left alone"].compactMap { key in
            counts[key].map { "\($0) \(key)" }
        }
        let weather = (try? TagFormatter().format(tag)) ?? tag.weather.description
        print("\(summary.joined(separator: ", ")) (\(weather), weather from \(origin))")
        if !problems.isEmpty { throw ExitCode(65) }
    }

    static func describe(_ outcome: FileStamper.Outcome) -> String {
        switch outcome {
        case .stamped: return "stamped"
        case .restored: return "given its remembered weather block back"
        case .alreadyStamped: return "already stamped"
        case .leftAlone(let reason): return "left as it is: \(reason)"
        case .inUse: return "left as it is: it is open for writing; try again once it is closed"
        case .lockedByEditor(let lock): return "left as it is: \(lock); try again once the editor is closed"
        case .vanished: return "no such file"
        case .failed(let reason): return "not stamped: \(reason)"
        }
    }

    private func configurationPath() -> String? { self.connection.configurationFile() }

    /// The daemon's tag when one answers; otherwise one from the configured providers and weather (`loaded`).
    private func currentTag(
        _ loaded: Result<ServiceFactory, ConfigurationError>?
    ) async throws -> (WeatherTag, String) {
        let environment = ProcessInfo.processInfo.environment
        if let socketPath = try? self.connection.socketPath(environment),
            let response = try? await DaemonConnection.get("/v1/tag", socketPath: socketPath)
        {
            guard response.status == 200,
                let tag = try? WeatherTag(try DaemonConnection.decode(TagDocument.self, response))
            else {
                printError("the daemon has no weather to stamp with: \(DaemonConnection.errorMessage(response))")
                throw ExitCode(ExitStatus.temporaryFailure)
            }
            return (tag, "the daemon")
        }
        switch loaded {
        case nil:
            printError("no daemon answers and there is no configuration to ask OpenWeather with (give --config)")
            throw ExitCode(ExitStatus.unavailable)
        case .failure(let error):
            printError("configuration error: \(error)")
            throw ExitCode(ExitStatus.configuration)
        case .success(let factory):
            return (try await Self.standaloneTag(factory), "OpenWeather (\(self.configurationPath() ?? ""))")
        }
    }

    /// The configured providers and OpenWeather, with the daemon's cache, for one tag.
    private static func standaloneTag(_ factory: ServiceFactory) async throws -> WeatherTag {
        let weather = await factory.weatherService()
        let maximumAge = factory.configuration.stamp.maximumAge
        do {
            return try await factory.withProvidersRunning {
                try await weather.currentTag(maximumAge: maximumAge)
            }
        } catch {
            printError("no weather to stamp with: \(error)")
            throw ExitCode(ExitStatus.temporaryFailure)
        }
    }
}

/// `[#########...........]  12/40  2026-11-22.md` on stderr, redrawn in place; only on a terminal.
struct ProgressBar {
    let total: Int
    let enabled = isatty(STDERR_FILENO) == 1

    func show(done: Int, current: String) {
        guard self.enabled, self.total > 1 else { return }
        let width = 24
        let filled = self.total == 0 ? width : done * width / self.total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let name = current.split(separator: "/").last.map(String.init) ?? current
        Self.write("\r\u{1B}[K[\(bar)] \(done)/\(self.total)  \(name.prefix(40))")
    }

    func finish() {
        guard self.enabled, self.total > 1 else { return }
        Self.write("\r\u{1B}[K")
    }

    private static func write(_ text: String) {
        writeStandardError(text)
    }
}
