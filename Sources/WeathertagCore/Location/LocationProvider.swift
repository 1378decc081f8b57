import FoundationEssentials
import Logging

/// A source of the machine's position. Adding a source is one file in `WeathertagDaemon/Providers/Location/`: a type
/// conforming to this, its `Settings` and a `LocationProviderPlugin`, plus one line in the registry.
package protocol LocationProvider: Sendable {
    /// The configuration `type`; also the `source` of the positions it returns.
    var type: String { get }
    /// How long `locate()` may take before the chain moves on to the next provider.
    var timeout: Duration { get }
    /// How long `locate(at:)` may take (a back-dated entry is in no hurry: a track index being built is waited
    /// for); `timeout` unless the provider says otherwise.
    var pastTimeout: Duration { get }
    /// The current position, or an error saying why there is none. Must honour task cancellation.
    func locate() async throws -> Position
    /// Long-lived work, such as keeping a gpsd connection open. Runs for the daemon's lifetime;
    /// providers without any return at once.
    func run() async throws
    /// Provider-specific state for `/v1/status`, such as a gpsd connection's.
    var details: [String: String] { get }
    /// Where the machine was at `time` (for a back-dated entry), or nil for a provider that knows only the
    /// present (the default: gpsd, IP geolocation and commands do).
    func locate(at time: Date) async throws -> Position?
    /// Whether its positions follow the author (a track, OwnTracks, Home Assistant, a `command` with `{time}`),
    /// not only where this machine is or always was (`fixed`, `ip`, `gpsd`, a `command` without `{time}`): only
    /// the latter are checked against an entry's own clock (`BorrowedPlace`). False by default.
    var followsTheAuthor: Bool { get }
}

extension LocationProvider {
    package var pastTimeout: Duration { self.timeout }
    package func run() async throws {}
    package var details: [String: String] { [:] }
    package func locate(at time: Date) async throws -> Position? { nil }
    package var followsTheAuthor: Bool { false }
}

/// Why a provider has no position.
package struct LocationError: Error, Sendable, Equatable, CustomStringConvertible {
    package var source: String
    package var message: String
    /// The lower layer's error behind it (the transport's, say), when there is one.
    package var cause: (any Error)?

    package init(source: String, message: String, cause: (any Error)? = nil) {
        self.source = source
        self.message = message
        self.cause = cause
    }

    package var description: String { "\(self.source): \(self.message)" }

    /// Equal when they say the same; the cause is not compared.
    package static func == (lhs: LocationError, rhs: LocationError) -> Bool {
        lhs.source == rhs.source && lhs.message == rhs.message
    }
}

/// What a provider's settings may use at load besides its own keys: where relative paths start, the environment
/// (`$HOME` in paths, `$CREDENTIALS_DIRECTORY` for tokens), the files (token files are read at load, so a missing one
/// is a configuration error naming the field) and `state.directory` (where a provider keeps an index).
package struct LocationSettingsContext: Sendable {
    package var configDirectory: String
    package var environment: [String: String]
    package var files: any ConfigurationFiles
    package var stateDirectory: String

    package init(
        configDirectory: String, environment: [String: String], files: any ConfigurationFiles,
        stateDirectory: String
    ) {
        self.configDirectory = configDirectory
        self.environment = environment
        self.files = files
        self.stateDirectory = stateDirectory
    }

    /// Resolves `~`, `$VAR` and relative paths against the configuration's folder.
    package var paths: PathResolver { PathResolver(environment: self.environment, base: self.configDirectory) }
}

/// What a running provider is built with (by `ServiceFactory`): the transport, the log, the clock.
package struct LocationProviderContext: Sendable {
    package var http: any HTTPClient
    package var logger: Logger
    package var now: @Sendable () -> Date

    package init(http: any HTTPClient, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) {
        self.http = http
        self.logger = logger
        self.now = now
    }
}

/// `location.providers`: the location plugin family (`Support/Plugins.swift`).
package typealias LocationProviderSpec = PluginSpec<LocationProviderContext, any LocationProvider>
package typealias LocationProviderPlugin = Plugin<
    LocationSettingsContext, LocationProviderContext, any LocationProvider
>
package typealias LocationProviderRegistry = PluginRegistry<
    LocationSettingsContext, LocationProviderContext, any LocationProvider
>

extension PluginSpec where Context == LocationProviderContext, Product == any LocationProvider {
    /// A running provider for these settings.
    package func makeProvider(_ context: LocationProviderContext) -> any LocationProvider {
        self.make(context)
    }
}
