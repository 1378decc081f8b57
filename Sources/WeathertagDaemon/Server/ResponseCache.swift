import NIOCore
import Synchronization

/// Ready-made answers for the endpoints status bars poll (`/v1/tag`, `/v1/location`), kept for at most a second so
/// that the event loop answers a repeated request without leaving it. An answer is at most one second old: the same
/// resolution as its `age_seconds`.
package final class ResponseCache: Sendable {
    package struct Entry: Sendable {
        var response: APIResponse
        var body: ByteBuffer
        var expires: NIODeadline
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
        let entry = Entry(response: response, body: ByteBuffer(string: response.body), expires: now + Self.lifetime)
        self.entries.withLock { entries in
            // A few URIs at most; anything odd is not worth remembering.
            if entries.count >= 16 { entries.removeAll() }
            entries[uri] = entry
        }
    }
}
