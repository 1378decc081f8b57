import FoundationEssentials
import Glibc
import Subprocess
import SystemPackage
import WeathertagCore

/// Runs a provider's program through swift-subprocess: argv only (no shell), standard input from /dev/null,
/// descriptors 0–2 and nothing else (a descriptor a library opened without close-on-exec, a gpsd socket, stays
/// ours), an empty signal mask and default signal actions (whatever the daemon's threads block or ignore), in a
/// process group of its own so that a kill reaches whatever it started, and without the daemon's secrets in its
/// environment.
enum ProviderProgram {
    /// Environment variables a child never sees: the key, systemd's credentials and notification channels.
    static let withheldEnvironment: Set<String> = [
        "OPENWEATHER_API_KEY", "CREDENTIALS_DIRECTORY", "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID",
        "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
    ]

    /// A plugin's `argv`, checked at load: a program to run (a relative path resolves against `base`, the
    /// configuration's folder) that is an executable file, and its arguments. Both `command` plugins take it.
    static func argv(_ config: ConfigObject, base: String) throws(ConfigurationError) -> [String] {
        guard var argv = try config.stringArray("argv") else { throw config.missing("argv") }
        guard let program = argv.first, !program.isEmpty else {
            throw ConfigurationError(field: config.fieldPath("argv"), message: "must name a program to run")
        }
        if !program.hasPrefix("/") { argv[0] = PathResolver(environment: [:], base: base).absolute(program) }
        guard access(argv[0], X_OK) == 0 else {
            throw ConfigurationError(
                field: config.fieldPath("argv[0]"), message: "\(argv[0]) is not an executable file")
        }
        return argv
    }

    /// How much of standard error is kept, for messages.
    static let errorPrefix = 4096

    struct Output {
        var stdout: [UInt8]
        /// The start of standard error, for messages.
        var stderr: [UInt8]
        /// The exit status, or 128 + the signal that ended it.
        var status: Int32
        /// Standard output went past the limit and the program was killed.
        var overflowed: Bool
    }

    /// Runs `argv` to its end, keeping at most `limit` bytes of standard output: past that, or when the calling
    /// task is cancelled (a provider's timeout), the program and its process group are killed.
    static func run(
        _ argv: [String],
        limit: Int,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> Output {
        var options = PlatformOptions()
        // A group of its own (pgid = its pid): killing the group reaches what the program started.
        options.processGroupID = 0
        let kept = environment.filter { !Self.withheldEnvironment.contains($0.key) }
        let result = try await Subprocess.run(
            .path(FilePath(argv[0])),
            arguments: Arguments(Array(argv.dropFirst())),
            environment: .custom(
                Dictionary(uniqueKeysWithValues: kept.map { (.init(stringLiteral: $0.key), $0.value) })),
            platformOptions: options,
            input: .none,
            output: .sequence,
            error: .sequence
        ) { execution in
            try await withTaskCancellationHandler {
                async let stderr = Self.prefix(of: execution.standardError, Self.errorPrefix)
                var stdout: [UInt8] = []
                var overflowed = false
                for try await chunk in execution.standardOutput where !overflowed {
                    chunk.withUnsafeBytes { stdout.append(contentsOf: $0) }
                    if stdout.count > limit {
                        overflowed = true
                        try? execution.send(signal: .kill, toProcessGroup: true)
                    }
                }
                return (stdout, try await stderr, overflowed)
            } onCancel: {
                try? execution.send(signal: .kill, toProcessGroup: true)
            }
        }
        let (stdout, stderr, overflowed) = result.closureResult
        let status: Int32
        switch result.terminationStatus {
        case .exited(let code): status = code
        case .signaled(let signal): status = 128 + signal
        }
        return Output(stdout: stdout, stderr: stderr, status: status, overflowed: overflowed)
    }

    /// The first `count` bytes of a stream, reading it to its end.
    private static func prefix(of stream: SubprocessOutputSequence, _ count: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in stream where bytes.count < count {
            chunk.withUnsafeBytes { bytes.append(contentsOf: $0.prefix(count - bytes.count)) }
        }
        return bytes
    }
}
