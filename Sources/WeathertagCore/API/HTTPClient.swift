/// One HTTP GET. The daemon sends nothing else.
public struct HTTPRequest: Sendable, Equatable {
    public var url: String
    /// Total time allowed for the exchange.
    public var timeout: Duration
    /// Time allowed to connect.
    public var connectTimeout: Duration
    /// When set, connect to this Unix socket instead of the URL's host.
    public var unixSocketPath: String?
    public var headers: [String]

    public init(
        url: String,
        timeout: Duration,
        connectTimeout: Duration? = nil,
        unixSocketPath: String? = nil,
        headers: [String] = []
    ) {
        self.url = url
        self.timeout = timeout
        self.connectTimeout = connectTimeout ?? min(timeout, .seconds(5))
        self.unixSocketPath = unixSocketPath
        self.headers = headers
    }
}

public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// Header lines as received, names lowercased.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A transport failure: nothing usable came back (refused, DNS, timeout, TLS).
public struct HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case timedOut
        case couldNotConnect
        case couldNotResolve
        case tls
        case other
    }

    public var kind: Kind
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { self.message }
}

/// The transport the weather and IP clients use; the daemon's is libcurl.
public protocol HTTPClient: Sendable {
    func get(_ request: HTTPRequest) async throws -> HTTPResponse
}
