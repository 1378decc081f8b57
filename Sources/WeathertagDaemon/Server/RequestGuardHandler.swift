import NIOCore
import NIOHTTP1

/// Sits between the HTTP codec and the application and keeps one connection within bounds: a connection that
/// takes longer than `idleTimeout` to send a complete request head (idle keep-alive, slowloris) is closed, and so
/// is one that sends a body larger than any endpoint could want. Request lines and headers are bounded by the
/// decoder's limits (`SocketServer.decoderLimits`).
package final class RequestGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = HTTPServerResponsePart

    /// No endpoint takes a body; a little is read and dropped, more ends the connection.
    static let maximumBodyBytes = 4096

    private let idleTimeout: TimeAmount
    private let registry: ConnectionRegistry
    private var deadline: Scheduled<Void>?
    private var bodyBytes = 0
    /// Requests read whose response has not ended yet (pipelining may put several in flight).
    private var pending = 0

    package init(idleTimeout: TimeAmount, registry: ConnectionRegistry) {
        self.idleTimeout = idleTimeout
        self.registry = registry
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { self.becomeIdle(context) }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        self.deadline?.cancel()
        self.registry.remove(context.channel)
    }

    package func channelActive(context: ChannelHandlerContext) {
        self.becomeIdle(context)
        context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        self.deadline?.cancel()
        self.registry.remove(context.channel)
        context.fireChannelInactive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head:
            self.deadline?.cancel()
            self.deadline = nil
            self.bodyBytes = 0
            self.pending += 1
            self.registry.markBusy(context.channel)
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

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = self.unwrapOutboundIn(data) {
            self.pending = max(0, self.pending - 1)
            if self.pending == 0 { self.becomeIdle(context) }
        }
        context.write(data, promise: promise)
    }

    private func becomeIdle(_ context: ChannelHandlerContext) {
        self.deadline?.cancel()
        self.registry.markIdle(context.channel)
        self.deadline = context.eventLoop.assumeIsolated().scheduleTask(in: self.idleTimeout) {
            context.close(promise: nil)
        }
    }
}
