import NIOCore
import Synchronization

/// The socket's open connections and which of them are idle, so that a new client can take the place of the
/// longest-idle one when the limit is reached: idle connections held open by someone cannot lock others out.
///
/// A connection is registered once; its busy or idle state is an atomic of its own, so that answering a request
/// takes no lock here (with every request marking its connection busy and idle under one lock, the two event loops
/// waited on each other at 64 connections).
package final class ConnectionRegistry: Sendable {
    /// One open connection.
    package final class Connection: Sendable {
        let channel: any Channel
        /// Since when it has been waiting for a request, in `NIODeadline` nanoseconds; 0 while a request is being
        /// answered.
        private let idle = Atomic<Int64>(0)

        init(_ channel: any Channel) { self.channel = channel }

        func markIdle(now: NIODeadline = .now()) {
            self.idle.store(max(1, Int64(now.uptimeNanoseconds)), ordering: .relaxed)
        }

        func markBusy() { self.idle.store(0, ordering: .relaxed) }

        /// Since when it has been idle; nil while busy.
        var idleSince: NIODeadline? {
            let since = self.idle.load(ordering: .relaxed)
            return since == 0 ? nil : NIODeadline.uptimeNanoseconds(UInt64(since))
        }
    }

    private let entries = Mutex<[ObjectIdentifier: Connection]>([:])

    package init() {}

    var count: Int { self.entries.withLock { $0.count } }

    /// Registers `channel` (once; again gives the same registration).
    package func add(_ channel: any Channel) -> Connection {
        self.entries.withLock { entries in
            if let known = entries[ObjectIdentifier(channel)] { return known }
            // Idle from the start: a connection registered but not yet active must be as evictable as any idle one
            // (counted as busy, a burst of new connections left an answering client the only one to evict).
            let connection = Connection(channel)
            connection.markIdle()
            entries[ObjectIdentifier(channel)] = connection
            return connection
        }
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
            for (key, connection) in entries {
                guard let since = connection.idleSince, since < (oldest?.since ?? .distantFuture) else { continue }
                oldest = (key, since, connection.channel)
            }
            guard let oldest else { return nil }
            entries.removeValue(forKey: oldest.key)
            return oldest.channel
        }
    }
}
