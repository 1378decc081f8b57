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

    /// Admits `channel`, accepted just now, within `limit` connections: at the limit the connection idle the longest
    /// makes way (closed here); if none is idle, `channel` is refused and false returned, for the caller to close it.
    ///
    /// Called on the server channel's loop, in the order the connections were accepted (`Admission`), so a new
    /// connection is idle since its accept and is never taken for older ones accepted before it. Admitted when each
    /// child loop ran its initializer, a lagging loop registered connections accepted earlier after a new one, and at
    /// the limit each of them could evict the new one before its request was read.
    func admit(_ channel: any Channel, limit: Int, now: NIODeadline = .now()) -> Bool {
        enum Admission {
            case admitted(evicting: (any Channel)?)
            case refused
        }
        let admission = self.entries.withLock { entries -> Admission in
            var evicted: (any Channel)?
            if entries.count >= limit {
                guard let oldest = Self.longestIdle(in: entries) else { return .refused }
                evicted = entries.removeValue(forKey: oldest)?.channel
            }
            // Idle from its accept: a connection not yet active must be as evictable as any idle one (counted as
            // busy, a burst of new connections left an answering client the only one to evict).
            let connection = Connection(channel)
            connection.markIdle(now: now)
            entries[ObjectIdentifier(channel)] = connection
            return .admitted(evicting: evicted)
        }
        guard case .admitted(let evicted) = admission else { return false }
        evicted?.close(promise: nil)
        // However it ends (a close of its own, an eviction, a failed registration on its loop), it leaves the count.
        channel.closeFuture.whenComplete { _ in self.remove(channel) }
        return true
    }

    /// The registration `admit` made for `channel`; nil once it was evicted or closed.
    func connection(for channel: any Channel) -> Connection? {
        self.entries.withLock { $0[ObjectIdentifier(channel)] }
    }

    /// Registers `channel` (once; again gives the same registration), with no limit: for pipelines built without a
    /// server (the fuzzer's).
    package func add(_ channel: any Channel) -> Connection {
        self.entries.withLock { entries in
            if let known = entries[ObjectIdentifier(channel)] { return known }
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

    /// The key of the connection idle the longest, if any is idle.
    private static func longestIdle(in entries: [ObjectIdentifier: Connection]) -> ObjectIdentifier? {
        var oldest: (key: ObjectIdentifier, since: NIODeadline)?
        for (key, connection) in entries {
            guard let since = connection.idleSince, since < (oldest?.since ?? .distantFuture) else { continue }
            oldest = (key, since)
        }
        return oldest?.key
    }
}
