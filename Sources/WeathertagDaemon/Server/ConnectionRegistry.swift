import NIOCore
import Synchronization

/// The socket's open connections and which of them are idle, so that a new client can take the place of the
/// longest-idle one when the limit is reached: idle connections held open by someone cannot lock others out.
package final class ConnectionRegistry: Sendable {
    private struct Entry {
        var channel: any Channel
        /// Since when it has been waiting for a request; nil while a request is being answered.
        var idleSince: NIODeadline?
    }

    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    package init() {}

    var count: Int { self.entries.withLock { $0.count } }

    func markIdle(_ channel: any Channel) {
        self.entries.withLock { $0[ObjectIdentifier(channel)] = Entry(channel: channel, idleSince: .now()) }
    }

    func markBusy(_ channel: any Channel) {
        self.entries.withLock { $0[ObjectIdentifier(channel)] = Entry(channel: channel, idleSince: nil) }
    }

    func remove(_ channel: any Channel) {
        self.entries.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Closes every connection (at shutdown).
    func closeAll() {
        let channels = self.entries.withLock { entries in
            defer { entries.removeAll() }
            return entries.values.map(\.channel)
        }
        for channel in channels { channel.close(promise: nil) }
    }

    /// Removes and returns the connection idle the longest, if any is idle.
    func takeLongestIdle() -> (any Channel)? {
        self.entries.withLock { entries in
            var oldest: (key: ObjectIdentifier, since: NIODeadline, channel: any Channel)?
            for (key, entry) in entries {
                guard let since = entry.idleSince, since < (oldest?.since ?? .distantFuture) else { continue }
                oldest = (key, since, entry.channel)
            }
            guard let oldest else { return nil }
            entries.removeValue(forKey: oldest.key)
            return oldest.channel
        }
    }
}
