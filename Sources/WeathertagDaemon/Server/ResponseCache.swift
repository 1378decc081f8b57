import NIOCore
import NIOHTTP1
import Synchronization

/// Ready-made answers for the endpoints status bars poll (`/v1/tag`, `/v1/location`), kept for at most a second so
/// that the event loop answers a repeated request without leaving it. An answer is at most one second old: the same
/// resolution as its `age_seconds`.
package final class ResponseCache: Sendable {
    package struct Entry: Sendable {
        var response: APIResponse
        var body: ByteBuffer
        var expires: NIODeadline
        /// The HTTP/1.1 heads of the answer, made once: kept alive, and closing.
        var keepAliveHead: HTTPResponseHead
        var closingHead: HTTPResponseHead
    }

    static let lifetime = TimeAmount.seconds(1)
    private let entries = Mutex<[String: Entry]>([:])

    package init() {}

    /// The cached answer to `GET`/`HEAD` `uri`, while it is fresh.
    package func lookup(_ uri: String, now: NIODeadline = .now()) -> Entry? {
        self.entries.withLock { entries in
            guard let entry = entries[uri], now < entry.expires else { return nil }
            return entry
        }
    }

    func store(_ response: APIResponse, for uri: String, now: NIODeadline = .now()) {
        let body = ByteBuffer(string: response.body)
        let entry = Entry(
            response: response, body: body, expires: now + Self.lifetime,
            keepAliveHead: response.head(version: .http1_1, bodyBytes: body.readableBytes, keepAlive: true),
            closingHead: response.head(version: .http1_1, bodyBytes: body.readableBytes, keepAlive: false))
        self.entries.withLock { entries in
            // A few URIs at most; anything odd is not worth remembering.
            if entries.count >= 16 { entries.removeAll() }
            entries[uri] = entry
        }
    }
}

extension APIResponse {
    /// The response head: its type and length, never cached by the client, kept alive or closing.
    func head(version: HTTPVersion, bodyBytes: Int, keepAlive: Bool) -> HTTPResponseHead {
        var headers = HTTPHeaders()
        headers.reserveCapacity(4)
        headers.add(name: "Content-Type", value: self.contentType)
        headers.add(name: "Content-Length", value: String(bodyBytes))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        return HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: self.status), headers: headers)
    }
}
