import FoundationEssentials
import Glibc
import WeathertagCore

/// Runs an external program (argv only, no shell; see `ProviderProgram`) and reads one JSON object from its standard
/// output: `{"latitude": 37.5665, "longitude": 126.978, "accuracy_m": 20, "name": "Seoul"}`. A program that is late
/// is killed with its process group; output beyond `maximumOutput` bytes is refused. A position is reused for
/// `cacheDuration`.
///
/// An `argv` element holding `{time}` makes it a provider of the past too: for a back-dated entry it is run with
/// `{time}` replaced by the moment asked about (RFC 3339, UTC: `2026-11-22T09:41:00Z`), and for the present with the
/// time now. One without `{time}` is asked only about the present.
package struct CommandLocationProvider: LocationProvider {
    package static let timePlaceholder = "{time}"
    package static let maximumOutput = 64 << 10

    package let type = "command"
    package let argv: [String]
    package let timeout: Duration
    private let now: @Sendable () -> Date
    private let cache: PositionCache

    package init(argv: [String], timeout: Duration, cacheDuration: Duration, now: @escaping @Sendable () -> Date) {
        self.argv = argv
        self.timeout = timeout
        self.now = now
        self.cache = PositionCache(duration: cacheDuration, now: now)
    }

    /// Whether it is asked about the past: an `argv` element holds `{time}`.
    package var knowsThePast: Bool { self.argv.contains { $0.contains(Self.timePlaceholder) } }

    package func locate() async throws -> Position {
        try await self.cache.get { try await self.execute(at: nil) }
    }

    /// Its positions are where the author was (`BorrowedPlace`).
    package var followsTheAuthor: Bool { self.knowsThePast }

    package func locate(at time: Date) async throws -> Position? {
        guard self.knowsThePast else { return nil }
        return try await self.execute(at: time)
    }

    /// Runs the program about `time` (nil: now).
    private func execute(at time: Date?) async throws -> Position {
        let moment = (time ?? self.now()).iso8601
        let argv = self.argv.map { $0.replacing(Self.timePlaceholder, with: moment) }
        let output: ProviderProgram.Output
        do {
            // Cancellation (the chain's timeout) kills the program and its group, which closes the pipes.
            output = try await ProviderProgram.run(argv, limit: Self.maximumOutput)
        } catch {
            try Task.checkCancellation()
            throw LocationError(source: self.type, message: "cannot run \(self.argv[0]): \(error)")
        }
        try Task.checkCancellation()
        guard !output.overflowed else {
            throw LocationError(
                source: self.type, message: "\(self.argv[0]) printed more than \(Self.maximumOutput >> 10) KiB")
        }
        guard output.status == 0 else {
            let said = String(decoding: output.stderr, as: UTF8.self).split(separator: "\n").first.map { ": \($0)" }
            throw LocationError(
                source: self.type,
                message: "\(self.argv[0]) exited with status \(output.status)\(said ?? "")"
            )
        }
        var position = try self.decode(output.stdout)
        if let time { position.takenAt = time }
        return position
    }

    func decode(_ bytes: [UInt8]) throws -> Position {
        try ProgramPosition.position(bytes, source: self.type, program: self.argv[0], takenAt: self.now())
    }
}

extension CommandLocationProvider {
    /// `{"type": "command", "argv": ["/usr/local/bin/where-am-i", "--json"], "timeout_seconds": 5,
    /// "cache_seconds": 60}`
    package struct Settings: Sendable, Equatable {
        /// The program (an absolute path, checked to be executable at load) and its arguments.
        package var argv: [String]
        package var timeout: Duration
        package var cacheDuration: Duration
    }
}

extension LocationProviderPlugin {
    package static var command: LocationProviderPlugin {
        LocationProviderPlugin(
            type: "command", name: "your own program",
            answers: [
                AnswerReader("a program's printed position") { bytes in
                    _ = try? ProgramPosition.position(
                        bytes, source: "command", program: "program", takenAt: Date(timeIntervalSince1970: 0))
                }
            ],
            keys: [
                .list(
                    "argv", required: true, minItems: 1, of: ["type": "string"],
                    "The program and its arguments; it prints {\"latitude\": ..., \"longitude\": ...}. An element holding {time} is given the RFC 3339 time asked about, and makes the provider answer for back-dated entries too."
                ),
                .seconds("timeout_seconds", maximum: 300, default: 5),
                .seconds("cache_seconds", maximum: 86400, default: 60),
            ]
        ) { (config, context) throws(ConfigurationError) in
            CommandLocationProvider.Settings(
                argv: try ProviderProgram.argv(config, base: context.configDirectory),
                timeout: try config.seconds("timeout_seconds", maximum: 300) ?? .seconds(5),
                cacheDuration: try config.seconds("cache_seconds", maximum: 86_400) ?? .seconds(60))
        } make: { settings, context in
            CommandLocationProvider(
                argv: settings.argv, timeout: settings.timeout, cacheDuration: settings.cacheDuration, now: context.now)
        }
    }
}
