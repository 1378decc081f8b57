import Glibc
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import WeathertagCore

/// HTTP/1.1 on a Unix socket (`curl --unix-socket PATH http://localhost/v1/tag`). The socket file is created with
/// mode 0660, a stale one is replaced, and it is removed at exit. Under socket activation (`weathertag.socket`)
/// the socket systemd passed is used instead, and left to systemd.
///
/// Bounded against abuse: request lines and headers are limited (`decoderLimits`), bodies and slow or idle
/// connections by `RequestGuardHandler`, and the number of connections by `socket.max_connections`, where a new
/// client takes the place of the longest-idle connection.
package final class SocketServer: Service {
    private let configuration: SocketConfiguration
    private var path: String { self.configuration.path }
    private let registry = ConnectionRegistry()
    private let router: CurrentRouter
    private let eventLoopGroup: any EventLoopGroup
    private let logger: Logger
    private let onListening: @Sendable () -> Void
    /// The listening socket systemd passed, if any.
    private let activatedSocket: Int32?

    package init(
        configuration: SocketConfiguration,
        router: CurrentRouter,
        eventLoopGroup: any EventLoopGroup,
        activatedSocket: Int32? = nil,
        logger: Logger,
        onListening: @escaping @Sendable () -> Void
    ) {
        self.configuration = configuration
        self.activatedSocket = activatedSocket
        self.router = router
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
        self.onListening = onListening
    }

    /// Request line plus headers: 8 KiB a field, 16 KiB in all, 64 fields. Anything larger gets 400 and is closed.
    package static var decoderLimits: NIOHTTPDecoderLimitConfiguration {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = 8 << 10
        limits.maxHeaderListSize = 16 << 10
        limits.maxHeaderFieldCount = 64
        return limits
    }

    package func run() async throws {
        let idleTimeout = TimeAmount(self.configuration.idleTimeout)
        let registry = self.registry
        let router = self.router
        let maximumConnections = self.configuration.maximumConnections
        let bootstrap = ServerBootstrap(group: self.eventLoopGroup)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelInitializer { server in
                server.eventLoop.makeCompletedFuture {
                    try server.pipeline.syncOperations.addHandler(
                        Admission(registry: registry, maximumConnections: maximumConnections)
                    )
                }
            }
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // Evicted (or closed) between its admission and now: nothing to build.
                    guard let connection = registry.connection(for: channel) else {
                        channel.close(promise: nil)
                        return
                    }
                    // Protocol errors are answered by `APIHandler` (400), not by NIO's handler for them: that one sits
                    // on the outbound path of every answer too, and each handler an answer passes costs.
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withErrorHandling: false,
                        withEncoderConfiguration: .init(),
                        withDecoderLimitConfiguration: Self.decoderLimits
                    )
                    try channel.pipeline.syncOperations.addHandler(
                        RequestGuardHandler(idleTimeout: idleTimeout, connection: connection, registry: registry)
                    )
                    try channel.pipeline.syncOperations.addHandler(APIHandler(router: router, connection: connection))
                }
            }
        let server: any Channel
        if let activatedSocket {
            // systemd made, owns and removes the socket file (its mode is the socket unit's SocketMode=).
            server = try await bootstrap.withBoundSocket(activatedSocket).get()
            self.logger.info(
                "listening on the socket systemd passed",
                metadata: ["fd": "\(activatedSocket)", "socket": "\(server.localAddress?.pathname ?? "?")"]
            )
        } else {
            try Self.prepare(self.path)
            server = try await bootstrap.bind(unixDomainSocketPath: self.path, cleanupExistingSocketFile: true).get()
            guard chmod(self.path, 0o660) == 0 else {
                try? await server.close()
                unlink(self.path)
                throw SystemError("chmod", path: self.path)
            }
            self.logger.info("listening", metadata: ["socket": "\(self.path)"])
        }
        defer { if self.activatedSocket == nil { unlink(self.path) } }
        self.onListening()

        // Until SIGTERM (or cancellation): then stop accepting and close every connection, idle or not.
        try? await gracefulShutdown()
        try? await server.close()
        registry.closeAll()
    }

    /// Refuses to take over a socket another process still answers on; creates the folder if needed.
    static func prepare(_ path: String) throws {
        let (directory, _) = FileIO.split(path)
        try FileIO.makeDirectories(directory)
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw SystemError("bind", path: path + " (exists and is not a socket)", code: EEXIST)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        guard let address = UnixSocketAddress(path) else { return }
        let connected = address.withSockaddr { connect(fd, $0, $1) }
        if connected == 0 { throw SocketInUseError(path: path) }
    }
}

/// Another process answers on the socket: this daemon would be a second one for the same socket. `serve` exits
/// with its own status (73), which the units list in `RestartPreventExitStatus=`: a restart would meet the same
/// socket.
package struct SocketInUseError: Error, Sendable, CustomStringConvertible {
    package var path: String

    package var description: String {
        "another weathertag is already listening on \(self.path); stop it first, or give this one another socket.path"
    }
}

extension SocketServer {
    /// The server channel's first handler: each accepted connection is admitted here, on the server's loop and in the
    /// order of accepting, before NIO hands it to a child loop (`ConnectionRegistry.admit`). At the limit, the
    /// longest-idle connection makes way; if none is idle, the new one is closed and goes no further.
    final class Admission: ChannelInboundHandler {
        typealias InboundIn = any Channel
        typealias InboundOut = any Channel

        private let registry: ConnectionRegistry
        private let maximumConnections: Int

        init(registry: ConnectionRegistry, maximumConnections: Int) {
            self.registry = registry
            self.maximumConnections = maximumConnections
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let channel = self.unwrapInboundIn(data)
            guard self.registry.admit(channel, limit: self.maximumConnections) else {
                channel.close(promise: nil)
                return
            }
            context.fireChannelRead(data)
        }
    }
}
