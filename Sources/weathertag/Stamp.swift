import ArgumentParser
import Foundation
import Glibc
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

    @Argument(help: "The Markdown files.")
    var files: [String]

    func run() async throws {
        let (tag, origin) = try await self.currentTag()
        let lines = tag.stampLines
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

        let progress = ProgressBar(total: self.files.count)
        let outcomes = await FileStamper.stamp(self.files, with: tag) { done, file in
            progress.show(done: done, current: file)
        }
        progress.finish()
        var counts: [String: Int] = [:]
        var problems: [String] = []
        for file in self.files {
            let outcome = outcomes[file] ?? .vanished
            switch outcome {
            case .stamped: counts["stamped", default: 0] += 1
            case .alreadyStamped: counts["already stamped", default: 0] += 1
            default:
                counts["left alone", default: 0] += 1
                problems.append("\(file): \(Self.describe(outcome))")
            }
        }
        for problem in problems { printError(problem) }
        let summary = ["stamped", "already stamped", "left alone"].compactMap { key in
            counts[key].map { "\($0) \(key)" }
        }
        let weather = (try? TagFormatter().format(tag)) ?? tag.weather.description
        print("\(summary.joined(separator: ", ")) (\(weather), weather from \(origin))")
        if !problems.isEmpty { throw ExitCode(65) }
    }

    static func describe(_ outcome: FileStamper.Outcome) -> String {
        switch outcome {
        case .stamped: return "stamped"
        case .alreadyStamped: return "already stamped"
        case .leftAlone(let reason): return "left as it is: \(reason)"
        case .inUse: return "left as it is: it is open for writing; try again once it is closed"
        case .lockedByEditor(let lock): return "left as it is: \(lock); try again once the editor is closed"
        case .vanished: return "no such file"
        case .failed(let reason): return "not stamped: \(reason)"
        }
    }

    /// The daemon's tag when one answers; otherwise one from OpenWeather with the configuration.
    private func currentTag() async throws -> (WeatherTag, String) {
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
        let candidates = [
            self.connection.config,
            (environment["XDG_CONFIG_HOME"] ?? (environment["HOME"] ?? "") + "/.config") + "/weathertag/config.json",
            "/etc/weathertag/config.json",
        ]
        guard let config = candidates.compactMap({ $0 }).first(where: { FileManager.default.fileExists(atPath: $0) })
        else {
            printError("no daemon answers and there is no configuration to ask OpenWeather with (give --config)")
            throw ExitCode(ExitStatus.unavailable)
        }
        return (try await Self.standaloneTag(config: config), "OpenWeather (\(config))")
    }

    /// The configured providers and OpenWeather, with the daemon's cache, for one tag.
    private static func standaloneTag(config: String) async throws -> WeatherTag {
        let runtime = Runtime(logLevel: .error)
        let configuration: Configuration
        do {
            configuration = try runtime.loadConfiguration(config)
        } catch {
            printError("configuration error: \(error)")
            throw ExitCode(ExitStatus.configuration)
        }
        let statistics = DaemonStatistics()
        let weather = await WeatherService(
            chain: LocationChain(providers: configuration.providers),
            client: OpenWeatherClient(
                configuration: configuration.openWeather, http: runtime.http, statistics: statistics),
            ttl: configuration.cache.ttl,
            maximumCallsPerMinute: configuration.openWeather.maximumCallsPerMinute,
            store: WeatherCacheStore(directory: configuration.cache.directory, threadPool: runtime.threadPool),
            statistics: statistics,
            logger: runtime.logger
        )
        do {
            return try await whileProvidersRun(configuration.providers) {
                try await weather.currentTag(maximumAge: configuration.stamp.maximumAge)
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
        FileHandle.standardError.write(Data(text.utf8))
    }
}
