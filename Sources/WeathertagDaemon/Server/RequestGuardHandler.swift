import NIOCore
import NIOHTTP1

/// Sits between the HTTP codec and the application and keeps one connection within bounds: a connection that
/// takes longer than `idleTimeout` to send a complete request head (idle keep-alive, slowloris) is closed, and so
/// is one that sends a body larger than any endpoint could want. Request lines and headers are bounded by the
/// decoder's limits (`SocketServer.decoderLimits`).
///
/// Inbound only: a request marks its connection busy here, and `APIHandler` marks it idle when the answer has
/// ended (`HTTPServerPipelineHandler`, earlier, hands on one request at a time). Each answer's three parts no longer
/// pass through here.
package final class RequestGuardHandler: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart

    /// No endpoint takes a body; a little is read and dropped, more ends the connection.
    static let maximumBodyBytes = 4096

    private let idleTimeout: TimeAmount
    private let registry: ConnectionRegistry
    private let connection: ConnectionRegistry.Connection
    private var started = false
    /// The one idle check of this connection: scheduled when it opens, and again, for what is left of the timeout,
    /// each time it finds the connection busy or idle for less. Not once per request: rescheduling on every request
    /// was a timer allocated and cancelled per answer.
    private var idleCheck: Scheduled<Void>?
    private var bodyBytes = 0

    package init(idleTimeout: TimeAmount, connection: ConnectionRegistry.Connection, registry: ConnectionRegistry) {
        self.idleTimeout = idleTimeout
        self.connection = connection
        self.registry = registry
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { self.open(context) }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        self.idleCheck?.cancel()
        self.registry.remove(context.channel)
    }

    package func channelActive(context: ChannelHandlerContext) {
        self.open(context)
        context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        self.idleCheck?.cancel()
        self.registry.remove(context.channel)
        context.fireChannelInactive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head:
            self.bodyBytes = 0
            self.connection.markBusy()
        case .body(let buffer):
            self.bodyBytes += buffer.readableBytes
            if self.bodyBytes > Self.maximumBodyBytes {
                context.close(promise: nil)
                return
            }
        case .end:
            break
        }
        context.fireChannelRead(data)
    }

    /// The connection is idle from now; its idle check starts.
    private func open(_ context: ChannelHandlerContext) {
        guard !self.started else { return }
        self.started = true
        self.connection.markIdle()
        self.scheduleIdleCheck(in: self.idleTimeout, context)
    }

    private func scheduleIdleCheck(in delay: TimeAmount, _ context: ChannelHandlerContext) {
        self.idleCheck = context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
            let now = NIODeadline.now()
            guard let since = self.connection.idleSince else {
                // Answering: a full timeout from now at the earliest.
                self.scheduleIdleCheck(in: self.idleTimeout, context)
                return
            }
            let idle = now - since
            if idle >= self.idleTimeout {
                context.close(promise: nil)
            } else {
                self.scheduleIdleCheck(in: self.idleTimeout - idle, context)
            }
        }
    }
}
