import FoundationEssentials
import Glibc
import Logging
import NIOPosix
import WeathertagCore
import WeathertagDaemon
import WeathertagHTTP

/// What every command sets up once: the environment, logging, libcurl and a thread pool for blocking file work.
struct Runtime {
    /// The process's environment, with `WEATHERTAG_TOWNS` (the offline towns index, `tools/towns.py`) and
    /// `WEATHERTAG_MAP` (the map's shorelines, `tools/coastlines.py`) set to the folders shipped beside this
    /// executable when they are not set already.
    let environment = Runtime.withShippedData(ProcessInfo.processInfo.environment)
    let threadPool: NIOThreadPool
    let http: CurlHTTPClient
    let logger: Logger

    init(logLevel: Logger.Level) {
        // Two malloc arenas, not glibc's eight per core: threads that allocate a little each (the NIO pool's, the
        // event loops', SQLite's) otherwise each hold an arena of freed pages, which was a third of the daemon's
        // private memory during an import (`make bench`); and blocks of 128 KiB and more mapped on their own, so a
        // year's answer freed is memory given back (2 MiB less at the peak of a 365-entry import). A heap's free top
        // is given back past 1 MiB, not 128 KiB: each batch of stamps frees a few hundred KiB, and trimmed at 128 KiB
        // every batch gave its pages back (`brk`, `madvise`) and faulted them in again, 5 % of a burst's samples.
        // Before any thread starts.
        ProcessMemory.tune(arenas: 2, threshold: 128 << 10, trim: 1 << 20)
        // A reader that goes away (a closed log pipe, a client) must give EPIPE, not kill the daemon.
        signal(SIGPIPE, SIG_IGN)
        // (A broken file lease's SIGIO is caught where leases are taken: `clinux_take_read_lease`.)
        let environment = self.environment
        let journalSocket = StderrLogHandler.makeJournalSocket(environment: environment)
        LoggingSystem.bootstrap { label in
            StderrLogHandler(label: label, level: logLevel, environment: environment, journalSocket: journalSocket)
        }
        self.logger = Logger(label: "weathertag")
        // The process-wide pool: file work and SQLite, off Swift's cooperative pool. Transfers wait on the HTTP
        // client's own threads (`CurlHTTPClient`).
        self.threadPool = NIOThreadPool.singleton
        self.http = CurlHTTPClient()
    }

    /// The words of the reader's language (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`), from the catalogs shipped
    /// beside the executable; read once, when a command first speaks.
    static let words = Translations.messages(
        environment: Runtime.withShippedData(ProcessInfo.processInfo.environment))

    /// One per process for the commands that only read (`entries`, `why`, `timeline`): logging is bootstrapped
    /// once, errors only.
    static let quiet = Runtime(logLevel: .error)

    /// Where the towns index, the map and the catalogs of words are shipped: `/usr/share/weathertag/towns`,
    /// `…/map` and `/usr/share/locale` beside `/usr/bin/weathertag` (the package, `make install`), `.build/towns`,
    /// `.build/map` and `.build/locale` for a source build (`make setup`). Found from the executable's own path.
    static func withShippedData(_ environment: [String: String]) -> [String: String] {
        // readlink(2) and access(2), not FileManager: these are the only file calls a start makes before the
        // configuration, and FileManager's first use sets up more than they need.
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return environment }
        let executable = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let bin = executable.split(separator: "/").dropLast().joined(separator: "/")
        var environment = environment
        let shipped = [
            (Configuration.townsVariable, "weathertag/towns", GeoNamesRecord.cityFiles[3]),
            (MapFiles.variable, "weathertag/map", MapFiles.fileName),
            // The catalogs: /usr/share/locale/LL/LC_MESSAGES/weathertag.mo, or .build/locale from `make setup`.
            (Translations.variable, "locale", "ko/LC_MESSAGES/\(Translations.domain).mo"),
        ]
        for (variable, shared, file) in shipped where environment[variable] == nil {
            let folder = shared.split(separator: "/").last.map(String.init) ?? shared
            let candidates = [
                "/\(bin)/../share/\(shared)", "/\(bin)/../\(folder)", "/\(bin)/../../\(folder)",
            ]
            if let found = candidates.first(where: { access($0 + "/" + file, F_OK) == 0 }) {
                environment[variable] = found
            }
        }
        return environment
    }

    /// Every plugin the commands know: the configuration names them, and `check` and the stamp's summary say their
    /// names.
    var plugins: PluginRegistries { .builtIns }

    func loadConfiguration(_ path: String) throws(ConfigurationError) -> Configuration {
        try Configuration.load(
            path: path,
            environment: self.environment,
            plugins: self.plugins,
            files: LocalConfigurationFiles()
        )
    }

    /// The one factory every command takes its parts from, for `configuration`.
    func factory(_ configuration: Configuration) -> ServiceFactory {
        ServiceFactory(
            configuration: configuration, http: self.http, threadPool: self.threadPool, logger: self.logger)
    }

    /// Just the HTTP client, for commands that only talk to the daemon (no logging set-up): one for the process,
    /// with one thread, as such a command asks one thing at a time (a client made for each request started four
    /// threads for it, and each status bar's poll is such a command).
    static func client() -> CurlHTTPClient {
        signal(SIGPIPE, SIG_IGN)
        return Self.daemonClient
    }

    private static let daemonClient = CurlHTTPClient(threads: 1)
}

/// The exit codes of sysexits.h that systemd and scripts understand.
enum ExitStatus {
    /// A bad option value (EX_USAGE).
    static let usage: Int32 = 64
    /// The file named is not what the command needs (EX_NOINPUT).
    static let noInput: Int32 = 66
    static let unavailable: Int32 = 69
    static let software: Int32 = 70
    /// `serve`: another daemon answers on the socket (EX_CANTCREAT).
    static let socketInUse: Int32 = 73
    /// A file cannot be written (EX_CANTCREAT).
    static let cannotCreate: Int32 = 73
    static let temporaryFailure: Int32 = 75
    static let configuration: Int32 = 78
}

/// Prints `weathertag: message` to stderr.
func printError(_ message: String) {
    writeStandardError("weathertag: \(message)\n")
}

/// Writes `text` whole to stderr.
func writeStandardError(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}
