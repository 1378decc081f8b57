import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import WeathertagCore
import WeathertagDaemon

struct Stamp: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stamp",
        abstract: "Stamp Markdown files anywhere with the current weather, as the daemon stamps its inbox.",
        discussion: """
            Current weather comes from the running daemon (its cache and call budget); when no daemon answers, \
            from the configured weather sources directly with --config (else $XDG_CONFIG_HOME/weathertag/config.json \
            or /etc/weathertag/config.json), sharing the daemon's cache. It is asked for only when a file needs it: \
            back-dated files get the weather of their own hour from history alone. The summary names the source \
            that answered and, for each back-dated file, the hour its block holds. Each file gets the same treatment as an \
            entry in the inbox: stamped once, atomically, every byte kept; files already stamped, not text, or \
            with front matter it must not edit are left as they are. A progress bar shows on a terminal; a \
            summary follows. --dry-run prints the front matter each file would get and writes nothing. A template \
            (in a folder the vault names for templates, or holding a placeholder such as {{date}} or <% tp.file.title \
            %>) is never stamped.

            --remove takes out of each file of the inbox the weather block weathertag remembers writing there, and \
            nothing else: a template an older version stamped, a note that is no entry now. A block weathertag did \
            not write there is left as it is.

            Exit status: 0 when every file is stamped (or already was; with --remove, when every block is taken out), \
            65 when some were left alone or failed, 69 when there is neither a daemon nor a configuration (with \
            --remove: no memory of stamps), 75 when there is no weather yet.
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

    @Flag(
        help: """
            Take out the weather block weathertag remembers writing into each file (a template an older version \
            stamped), and nothing else.
            """)
    var remove = false

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
        if self.remove, self.fresh || self.at != nil || self.dryRun {
            throw ValidationError("--remove takes out blocks; it goes with none of --fresh, --at and --dry-run")
        }
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
        if self.remove { return try await self.removeBlocks(factory) }
        let configuration = factory?.configuration
        // The block the daemon would write: the configuration's fields.
        let fields = configuration?.stamp.fields ?? StampField.all
        let format = configuration?.stamp.format ?? .block
        // Asked once, and only when a file needs current weather: back-dated files ask history alone.
        let current = CurrentWeather(
            socketPath: try? self.connection.socketPath(ProcessInfo.processInfo.environment), loaded: loaded,
            configurationPath: self.configurationPath() ?? "")
        // Without a configuration only the daemon can give weather: no daemon, nothing to do anything with.
        if self.dryRun || loaded == nil {
            if case .failure(let failure) = await current.get() {
                printError(failure.description)
                throw ExitCode(failure.exitStatus)
            }
        }
        if self.dryRun {
            let (tag, _) = try await current.get().get()
            let lines = tag.stampLines(fields: fields, format: format)
            for file in self.files {
                print("== \(file)")
                let template = factory?.stampOptions(backdating: nil, replacing: false).template(file)
                switch FileStamper.preview(file, lines: lines, template: template) {
                case .frontMatter(let frontMatter): print(frontMatter, terminator: "")
                case .nothingToWrite(let result): print("(nothing to write: \(Self.describe(result)))")
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
        let history = factory?.historyService(store: database?.history)
        let backdating = BackdatingPolicy(
            threshold: configuration?.stamp.backdatedAfter ?? .seconds(10_800), asksHistory: history != nil,
            explicitTime: self.at.flatMap { EntryTime.given($0) })
        let progress = ProgressBar(total: self.files.count)
        let files = self.files
        let options =
            factory?.stampOptions(backdating: backdating, replacing: self.fresh)
            ?? StampOptions(nil, backdating: backdating, replacing: self.fresh)
        let stampAll = { @Sendable in
            await FileStamper.stamp(
                files, currentWeather: { await current.get().map(\.tag).mapError { $0 } }, fields: fields,
                options: options, memory: memory, history: history
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
        try await self.summarize(outcomes, current: current)
    }

    /// Counts, each problem, and what the blocks hold: the current weather once (and who gave it), a back-dated
    /// file's own hour for each.
    private func summarize(_ outcomes: [String: FileStamper.Outcome], current: CurrentWeather) async throws {
        var counts: [String: Int] = [:]
        var problems: [String] = []
        var historical: [String] = []
        var exitStatus: Int32?
        for file in self.files {
            let (result, tag) = outcomes[file] ?? (.vanished, nil)
            switch result {
            case .stamped:
                counts["stamped", default: 0] += 1
                if let tag, tag.kind == .historical {
                    historical.append("\(file): \(Self.describeHistorical(tag))")
                }
            case .restored: counts["restored", default: 0] += 1
            case .alreadyStamped: counts["already stamped", default: 0] += 1
            case .noWeather(let error):
                counts["waiting for weather", default: 0] += 1
                problems.append("\(file): not stamped: \(error)")
                exitStatus = (error as? CurrentWeather.Failure)?.exitStatus ?? ExitStatus.temporaryFailure
            default:
                counts["left alone", default: 0] += 1
                problems.append("\(file): \(Self.describe(result))")
            }
        }
        for problem in problems { printError(problem) }
        let summary = ["stamped", "restored", "already stamped", "left alone", "waiting for weather"].compactMap {
            key in counts[key].map { "\($0) \(key)" }
        }
        // Current weather is named only when it was had (and so used).
        if case .success(let (tag, origin))? = await current.result {
            let weather = (try? TagFormatter().format(tag)) ?? tag.weather.description
            print("\(summary.joined(separator: ", ")) (\(weather), weather from \(origin))")
        } else {
            print(summary.joined(separator: ", "))
        }
        for line in historical { print(line) }
        if let exitStatus { throw ExitCode(exitStatus) }
        if !problems.isEmpty { throw ExitCode(65) }
    }

    /// `☔ 12°C light rain, the weather of 2019-05-01 14:00 there (open-meteo)`.
    static func describeHistorical(_ tag: WeatherTag) -> String {
        let weather = (try? TagFormatter().format(tag)) ?? tag.weather.description
        let time = tag.weather.observedAt.iso8601(utcOffset: tag.weather.utcOffset ?? 0)
        return "\(weather), the weather of \(time) there (from \(CurrentWeather.name(of: tag)))"
    }

    static func describe(_ result: EntryResult) -> String {
        switch result {
        case .stamped: return "stamped"
        case .restored: return "given its remembered weather block back"
        case .alreadyStamped: return "already stamped"
        case .leftAlone(let reason, _): return "left as it is: \(reason)"
        case .inUse: return "left as it is: it is open for writing; try again once it is closed"
        case .locked(let lock): return "left as it is: \(lock); try again once the editor is closed"
        case .vanished: return "no such file"
        case .failed(let reason), .noWeather(let reason): return "not stamped: \(reason)"
        // Waiting results the stamp command does not end on (it tries again, or decides): told as they are.
        case .changedWhileStamping: return "left as it is: it kept changing while being stamped"
        case .wantsHistory(let request): return "not stamped: it waits for the weather of \(request.time)"
        case .needsWeather: return "not stamped: no current weather"
        case .datedAhead(let time, _): return "left as it is: it is dated \(time), later than now here"
        }
    }

    private func configurationPath() -> String? { self.connection.configurationFile() }

    /// `--remove`: the block weathertag remembers writing into each file taken out, and nothing else.
    private func removeBlocks(_ factory: ServiceFactory?) async throws {
        guard let factory, let database = await factory.stateDatabase(),
            let memory = factory.stampMemory(database)
        else {
            printError(
                "no memory of stamps to say which blocks weathertag wrote (give --config, with state.enabled and an "
                    + "inbox that exists)")
            throw ExitCode(ExitStatus.unavailable)
        }
        let options = factory.stampOptions(backdating: nil, replacing: false)
        let outcomes = await FileStamper.remove(
            self.files, memory: memory, tree: factory.configuration.inbox.tree, options: options)
        var (removed, left) = (0, 0)
        for file in self.files {
            switch outcomes[file] ?? .success(.refused(.vanished)) {
            case .success(.removed): removed += 1
            case .success(.left(let why)):
                left += 1
                printError("\(file): left as it is: \(why)")
            case .success(.refused(let result)):
                left += 1
                printError("\(file): \(Self.describe(result))")
            case .failure(let error):
                left += 1
                printError("\(file): not changed: \(error)")
            }
        }
        print(
            "\(removed) weather block\(removed == 1 ? "" : "s") taken out, \(left) left as \(left == 1 ? "it is" : "they are")"
        )
        if left > 0 { throw ExitCode(65) }
    }
}

/// The current weather `stamp` uses, asked once and only when a file needs it: the daemon's tag when one answers,
/// otherwise the configured providers and weather sources, with the daemon's cache.
actor CurrentWeather {
    /// Why there is none, with the exit status it means.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        var exitStatus: Int32
    }

    let socketPath: String?
    let loaded: Result<ServiceFactory, ConfigurationError>?
    let configurationPath: String
    private(set) var result: Result<(tag: WeatherTag, origin: String), Failure>?

    init(socketPath: String?, loaded: Result<ServiceFactory, ConfigurationError>?, configurationPath: String) {
        (self.socketPath, self.loaded, self.configurationPath) = (socketPath, loaded, configurationPath)
    }

    func get() async -> Result<(tag: WeatherTag, origin: String), Failure> {
        if let result { return result }
        let result = await self.ask()
        self.result = result
        return result
    }

    /// Who answered, as its plugin calls it (`PluginRegistries.nameOfSource`).
    static func name(of tag: WeatherTag) -> String {
        PluginRegistries.builtIns.nameOfSource(of: tag.weather)
    }

    private func ask() async -> Result<(tag: WeatherTag, origin: String), Failure> {
        if let socketPath, let response = try? await DaemonConnection.get("/v1/tag", socketPath: socketPath) {
            guard response.status == 200,
                let tag = try? WeatherTag(try DaemonConnection.decode(TagDocument.self, response))
            else {
                return .failure(
                    Failure(
                        description: "the daemon has no weather to stamp with: "
                            + DaemonConnection.errorMessage(response),
                        exitStatus: ExitStatus.temporaryFailure))
            }
            return .success((tag, "the daemon (\(Self.name(of: tag)))"))
        }
        switch self.loaded {
        case nil:
            return .failure(
                Failure(
                    description: "no daemon answers and there is no configuration to ask a weather source with "
                        + "(give --config)", exitStatus: ExitStatus.unavailable))
        case .failure(let error):
            return .failure(
                Failure(description: "configuration error: \(error)", exitStatus: ExitStatus.configuration))
        case .success(let factory):
            let weather = await factory.weatherService()
            let maximumAge = factory.configuration.stamp.maximumAge
            do {
                let tag = try await factory.withProvidersRunning {
                    try await weather.currentTag(maximumAge: maximumAge)
                }
                return .success((tag, "\(Self.name(of: tag)) (\(self.configurationPath))"))
            } catch {
                return .failure(
                    Failure(
                        description: "no weather to stamp with: \(error)", exitStatus: ExitStatus.temporaryFailure))
            }
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
        let name = Paths.fileName(current)
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
