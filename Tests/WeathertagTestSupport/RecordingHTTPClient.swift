import Synchronization
import WeathertagCore

/// An `HTTPClient` that answers from a closure and records every request: the unit tests' transport.
package final class RecordingHTTPClient: HTTPClient {
    private let answer: @Sendable (HTTPRequest) throws -> HTTPResponse
    private let recorded = Mutex<[HTTPRequest]>([])

    package init(_ answer: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) {
        self.answer = answer
    }

    package convenience init(status: Int = 200, body: String, headers: [String: String] = [:]) {
        self.init { _ in HTTPResponse(status: status, headers: headers, body: Array(body.utf8)) }
    }

    package var requests: [HTTPRequest] { self.recorded.withLock { $0 } }

    package func get(_ request: HTTPRequest) async throws -> HTTPResponse {
        self.recorded.withLock { $0.append(request) }
        return try self.answer(request)
    }
}
