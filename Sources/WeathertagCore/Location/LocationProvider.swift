import Foundation
import Logging

/// A source of the machine's position. Adding a source is one file in `WeathertagDaemon/Providers/Location/`: a type
/// conforming to this, its `Settings` and a `LocationProviderPlugin`, plus one line in the registry.
public protocol LocationProvider: Sendable {
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
}

extension LocationProvider {
    public var pastTimeout: Duration { self.timeout }
    public func run() async throws {}
    public var details: [String: String] { [:] }
    public func locate(at time: Date) async throws -> Position? { nil }
}

/// Why a provider has no position.
public struct LocationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var source: String
    public var message: String
    /// The lower layer's error behind it (the transport's, say), when there is one.
    public var cause: (any Error)?

    public init(source: String, message: String, cause: (any Error)? = nil) {
        self.source = source
        self.message = message
        self.cause = cause
    }

    public var description: String { "\(self.source): \(self.message)" }

    /// Equal when they say the same; the cause is not compared.
    public static func == (lhs: LocationError, rhs: LocationError) -> Bool {
        lhs.source == rhs.source && lhs.message == rhs.message
    }
}

/// What a provider's settings may use at load besides its own keys: where relative paths start, the environment
/// (`$HOME` in paths, `$CREDENTIALS_DIRECTORY` for tokens), the files (token files are read at load, so a missing one
/// is a configuration error naming the field) and `state.directory` (where a provider keeps an index).
public struct LocationSettingsContext: Sendable {
    public var configDirectory: String
    public var environment: [String: String]
    public var files: any ConfigurationFiles
    public var stateDirectory: String

    public init(
        configDirectory: String, environment: [String: String], files: any ConfigurationFiles,
        stateDirectory: String
    ) {
        self.configDirectory = configDirectory
        self.environment = environment
        self.files = files
        self.stateDirectory = stateDirectory
    }

    /// Resolves `~`, `$VAR` and relative paths against the configuration's folder.
    public var paths: PathResolver { PathResolver(environment: self.environment, base: self.configDirectory) }
}

/// What a running provider is built with (by `ServiceFactory`): the transport, the log, the clock.
public struct LocationProviderContext: Sendable {
    public var http: any HTTPClient
    public var logger: Logger
    public var now: @Sendable () -> Date

    public init(http: any HTTPClient, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) {
        self.http = http
        self.logger = logger
        self.now = now
    }
}

/// One entry of `location.providers`, decoded and validated at load: its type and its plugin's plain settings.
/// Nothing runs until the factory builds the provider (`makeProvider`).
public struct LocationProviderSpec: Sendable {
    public let type: String
    /// The plugin's settings (`FixedLocationProvider.Settings`, …): plain values.
    public let settings: any Sendable
    private let build: @Sendable (LocationProviderContext) -> any LocationProvider

    init(
        type: String, settings: any Sendable,
        build: @escaping @Sendable (LocationProviderContext) -> any LocationProvider
    ) {
        self.type = type
        self.settings = settings
        self.build = build
    }

    /// A running provider for these settings.
    public func makeProvider(_ context: LocationProviderContext) -> any LocationProvider {
        self.build(context)
    }
}

/// One kind of provider, registered under its configuration `type`: how its object is validated into settings
/// (every error names its field), and how a provider is built from them.
public struct LocationProviderPlugin: Sendable {
    public typealias Decode =
        @Sendable (ConfigObject, LocationSettingsContext) throws(ConfigurationError) -> LocationProviderSpec

    public let type: String
    /// The keys this provider understands, besides `type`; others are warned about.
    public let keys: Set<String>
    public let decode: Decode

    public init<Settings: Sendable>(
        type: String,
        keys: Set<String>,
        settings: @escaping @Sendable (ConfigObject, LocationSettingsContext) throws(ConfigurationError) -> Settings,
        make: @escaping @Sendable (Settings, LocationProviderContext) -> any LocationProvider
    ) {
        self.type = type
        self.keys = keys
        self.decode = { (config, context) throws(ConfigurationError) in
            let decoded = try settings(config, context)
            return LocationProviderSpec(type: type, settings: decoded) { make(decoded, $0) }
        }
    }
}

/// The provider types the configuration may name, keyed by `type`, in the order they are listed to users.
public struct LocationProviderRegistry: Sendable {
    public private(set) var plugins: [LocationProviderPlugin] = []

    public init(_ plugins: [LocationProviderPlugin] = []) {
        for plugin in plugins { self.register(plugin) }
    }

    /// Adds a provider type, replacing one of the same name.
    public mutating func register(_ plugin: LocationProviderPlugin) {
        self.plugins.removeAll { $0.type == plugin.type }
        self.plugins.append(plugin)
    }

    public func plugin(for type: String) -> LocationProviderPlugin? {
        self.plugins.first { $0.type == type }
    }

    public var types: [String] { self.plugins.map(\.type) }
}
