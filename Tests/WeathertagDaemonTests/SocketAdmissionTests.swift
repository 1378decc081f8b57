import NIOCore
import NIOEmbedded
import Testing

@testable import WeathertagDaemon

/// The socket's limit is kept on the server channel's loop, in the order connections are accepted. A new connection
/// is idle from its accept: at the limit the connection idle the longest makes way for it, and none accepted before
/// it can take its place, whichever child loop builds its pipeline first.
struct SocketAdmissionTests {
    /// A server channel's pipeline with the admission first, as `SocketServer` builds it, and the connections it
    /// passed on to the next handler (NIO's, which hands them to their loops).
    private final class Server {
        let registry = ConnectionRegistry()
        let channel = EmbeddedChannel()

        init(limit: Int) throws {
            try self.channel.pipeline.syncOperations.addHandler(
                SocketServer.Admission(registry: self.registry, maximumConnections: limit)
            )
        }

        /// Accepts `child`; true if it was passed on.
        func accept(_ child: EmbeddedChannel) throws -> Bool {
            try self.channel.writeInbound(child as any Channel)
            guard let passed = try self.channel.readInbound(as: (any Channel).self) else { return false }
            return passed === child
        }
    }

    private static func connections(_ count: Int) throws -> [EmbeddedChannel] {
        try (0..<count).map { _ in
            let channel = EmbeddedChannel()
            try channel.connect(to: SocketAddress(unixDomainSocketPath: "/weathertag.sock")).wait()
            return channel
        }
    }

    @Test func aNewConnectionTakesThePlaceOfTheLongestIdleInAcceptOrder() throws {
        let server = try Server(limit: 3)
        let children = try Self.connections(5)
        for child in children[0..<3] { try #expect(server.accept(child)) }
        // The pipelines of the first three are built in the reverse order, as a lagging loop would: the order of
        // accepting stays the order of idleness.
        for child in children[0..<3].reversed() { #expect(server.registry.connection(for: child) != nil) }

        try #expect(server.accept(children[3]))
        #expect(!children[0].isActive, "the first accepted, idle the longest, made way")
        #expect(children[1].isActive && children[2].isActive && children[3].isActive)
        #expect(server.registry.connection(for: children[0]) == nil)
        #expect(server.registry.count == 3)

        try #expect(server.accept(children[4]))
        #expect(!children[1].isActive, "then the second")
        #expect(children[3].isActive, "never the newest, accepted after the others")
    }

    @Test func atTheLimitWithNoneIdleTheNewConnectionIsRefused() throws {
        let server = try Server(limit: 2)
        let children = try Self.connections(4)
        for child in children[0..<2] {
            try #expect(server.accept(child))
            server.registry.connection(for: child)?.markBusy()
        }
        try #expect(server.accept(children[2]) == false, "not passed on to a loop")
        #expect(!children[2].isActive, "closed")
        #expect(children[0].isActive && children[1].isActive, "requests being answered are not cut")

        // A connection that closes leaves the count, whoever closed it: the next one gets in with no eviction.
        try children[0].close().wait()
        children[0].embeddedEventLoop.run()
        #expect(server.registry.count == 1)
        try #expect(server.accept(children[3]))
        #expect(children[1].isActive && children[3].isActive)
    }
}
