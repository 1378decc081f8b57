/// One HTTP GET. The daemon sends nothing else.
package struct HTTPRequest: Sendable, Equatable {
    package var url: String
    /// Total time allowed for the exchange.
    package var timeout: Duration
    /// Time allowed to connect.
    package var connectTimeout: Duration
    /// When set, connect to this Unix socket instead of the URL's host.
    package var unixSocketPath: String?
    package var headers: [String]

    package init(
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

package struct HTTPResponse: Sendable, Equatable {
    package var status: Int
    /// Header lines as received, names lowercased.
    package var headers: [String: String]
    package var body: [UInt8]

    package init(status: Int, headers: [String: String] = [:], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A transport failure: nothing usable came back (refused, DNS, timeout, TLS).
package struct HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        case timedOut
        case couldNotConnect
        case couldNotResolve
        case tls
        case other
    }

    package var kind: Kind
    package var message: String

    package init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { self.message }
}

/// The transport the weather and IP clients use; the daemon's is libcurl.
package protocol HTTPClient: Sendable {
    func get(_ request: HTTPRequest) async throws -> HTTPResponse
}
