import Glibc
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import WeathertagCore

/// HTTP/1.1 on a Unix socket (`curl --unix-socket PATH http://localhost/v1/tag`). The socket file is created with
/// mode 0660, a stale one is replaced, and it is removed at exit.
///
/// Bounded against abuse: request lines and headers are limited (`decoderLimits`), bodies and slow or idle
/// connections by `RequestGuardHandler`, and the number of connections by `socket.max_connections`, where a new
/// client takes the place of the longest-idle connection.
public final class SocketServer: Service {
    private let configuration: SocketConfiguration
    private var path: String { self.configuration.path }
    private let registry = ConnectionRegistry()
    private let router: CurrentRouter
    private let eventLoopGroup: any EventLoopGroup
    private let logger: Logger
    private let onListening: @Sendable () -> Void

    public init(
        configuration: SocketConfiguration,
        router: CurrentRouter,
        eventLoopGroup: any EventLoopGroup,
        logger: Logger,
        onListening: @escaping @Sendable () -> Void
    ) {
        self.configuration = configuration
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

    public func run() async throws {
        try Self.prepare(self.path)
        let idleTimeout = TimeAmount.nanoseconds(
            self.configuration.idleTimeout.components.seconds * 1_000_000_000
                + self.configuration.idleTimeout.components.attoseconds / 1_000_000_000
        )
        let registry = self.registry
        let server = try await ServerBootstrap(group: self.eventLoopGroup)
            .serverChannelOption(.backlog, value: 256)
            .bind(unixDomainSocketPath: self.path, cleanupExistingSocketFile: true) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withEncoderConfiguration: .init(),
                        withDecoderLimitConfiguration: Self.decoderLimits
                    )
                    try channel.pipeline.syncOperations.addHandler(
                        RequestGuardHandler(idleTimeout: idleTimeout, registry: registry)
                    )
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                        wrappingChannelSynchronously: channel
                    )
                }
            }
        defer { unlink(self.path) }
        guard chmod(self.path, 0o660) == 0 else { throw SystemError("chmod", path: self.path) }
        self.logger.info("listening", metadata: ["socket": "\(self.path)"])
        self.onListening()

        try await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { connections in
                for try await connection in connections.cancelOnGracefulShutdown() {
                    if self.registry.count > self.configuration.maximumConnections {
                        guard let idle = self.registry.takeLongestIdle() else {
                            // Every connection is busy answering: this one has to go.
                            connection.channel.close(promise: nil)
                            continue
                        }
                        idle.close(promise: nil)
                    }
                    group.addTask { await self.serve(connection) }
                }
            }
            // Stopping: idle keep-alive connections must not hold the daemon up.
            group.cancelAll()
        }
    }

    /// Refuses to take over a socket another process still answers on; creates the folder if needed.
    private static func prepare(_ path: String) throws {
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
        if connected == 0 {
            throw SystemError("bind", path: path + " (another weathertag is already listening there)", code: EADDRINUSE)
        }
    }

    private func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                var head: HTTPRequestHead?
                for try await part in inbound {
                    switch part {
                    case .head(let requestHead):
                        head = requestHead
                    case .body:
                        // No endpoint takes a body; it is read and dropped.
                        continue
                    case .end:
                        guard let request = head else { continue }
                        head = nil
                        let response = await self.router.value.respond(method: "\(request.method)", uri: request.uri)
                        try await self.write(response, for: request, to: outbound)
                        if !request.isKeepAlive { return }
                    }
                }
            }
        } catch {
            self.logger.debug("connection ended", metadata: ["error": "\(error)"])
        }
    }

    private func write(
        _ response: APIResponse,
        for request: HTTPRequestHead,
        to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        var body = ByteBuffer(string: response.body)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: response.contentType)
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Connection", value: request.isKeepAlive ? "keep-alive" : "close")
        if request.method == .HEAD { body.clear() }
        let head = HTTPResponseHead(
            version: request.version,
            status: HTTPResponseStatus(statusCode: response.status),
            headers: headers
        )
        try await outbound.write(contentsOf: [.head(head), .body(.byteBuffer(body)), .end(nil)])
    }
}
