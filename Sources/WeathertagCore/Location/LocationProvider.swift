import Foundation
import Logging

/// A source of the machine's position. Adding a source is one type conforming to this plus one
/// `LocationProviderFactory` registered under its configuration `type`.
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

/// What a provider factory may use besides its own configuration.
public struct LocationProviderContext: Sendable {
    public var http: any HTTPClient
    public var logger: Logger
    /// The folder of the configuration file, for resolving relative paths.
    public var configDirectory: String
    public var now: @Sendable () -> Date
    /// The process's environment (`$HOME` in paths, `$CREDENTIALS_DIRECTORY` for tokens); set by the decoder.
    public var environment: [String: String] = [:]
    /// Token and key files are read through this; set by the decoder.
    public var files: (any ConfigurationFiles)?
    /// `state.directory`, where a provider keeps an index (the `track` provider's points); set by the decoder.
    public var stateDirectory = ""

    public init(
        http: any HTTPClient,
        logger: Logger,
        configDirectory: String,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.http = http
        self.logger = logger
        self.configDirectory = configDirectory
        self.now = now
    }
}

/// Builds one kind of provider from its configuration object, validating every field with its path.
public struct LocationProviderFactory: Sendable {
    public typealias Make =
        @Sendable (ConfigObject, LocationProviderContext) throws(ConfigurationError) -> any LocationProvider

    public var type: String
    /// The keys this provider understands, besides `type`; others are warned about.
    public var keys: Set<String>
    public var make: Make

    public init(type: String, keys: Set<String>, make: @escaping Make) {
        self.type = type
        self.keys = keys
        self.make = make
    }
}

/// The provider types the configuration may name, keyed by `type`, in the order they are listed to users.
public struct LocationProviderRegistry: Sendable {
    public private(set) var factories: [LocationProviderFactory] = []

    public init(_ factories: [LocationProviderFactory] = []) {
        for factory in factories { self.register(factory) }
    }

    /// Adds a provider type, replacing one of the same name.
    public mutating func register(_ factory: LocationProviderFactory) {
        self.factories.removeAll { $0.type == factory.type }
        self.factories.append(factory)
    }

    public func factory(for type: String) -> LocationProviderFactory? {
        self.factories.first { $0.type == type }
    }

    public var types: [String] { self.factories.map(\.type) }
}
