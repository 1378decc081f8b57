import NIOCore
import NIOHTTP1

/// Answers HTTP requests on one connection. A request the `ResponseCache` can answer is answered right here on the
/// event loop; any other goes to the router (Swift concurrency) and is written back on the event loop when it is
/// ready. `HTTPServerPipelineHandler`, earlier in the pipeline, keeps pipelined answers in order.
final class APIHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let router: CurrentRouter
    private let connection: ConnectionRegistry.Connection
    private var head: HTTPRequestHead?
    /// An answer is on its way (the router is working on it): a protocol error then gets no 400 of its own.
    private var responding = false

    init(router: CurrentRouter, connection: ConnectionRegistry.Connection) {
        self.router = router
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            // No endpoint takes a body; it is read and dropped (RequestGuardHandler bounds it).
            break
        case .end:
            guard let head = self.head else { return }
            self.head = nil
            if head.method == .GET || head.method == .HEAD, let cached = self.router.cache.lookup(head.uri) {
                let keepAlive = head.isKeepAlive
                let response =
                    head.version == .http1_1
                    ? (keepAlive ? cached.keepAliveHead : cached.closingHead)
                    : cached.response.head(
                        version: head.version, bodyBytes: cached.body.readableBytes, keepAlive: keepAlive)
                self.write(response, body: cached.body, for: head, keepAlive: keepAlive, context: context)
                return
            }
            let router = self.router.value
            let method = "\(head.method)"
            let uri = head.uri
            self.responding = true
            let promise = context.eventLoop.makePromise(of: APIResponse.self)
            promise.completeWithTask { await router.respond(method: method, uri: uri) }
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            promise.futureResult.whenSuccess { response in
                let (handler, context) = bound.value
                let body = ByteBuffer(string: response.body)
                let keepAlive = head.isKeepAlive
                handler.write(
                    response.head(version: head.version, bodyBytes: body.readableBytes, keepAlive: keepAlive),
                    body: body, for: head, keepAlive: keepAlive, context: context)
            }
        }
    }

    private func write(
        _ head: HTTPResponseHead, body: ByteBuffer, for request: HTTPRequestHead, keepAlive: Bool,
        context: ChannelHandlerContext
    ) {
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        if request.method != .HEAD {
            context.write(self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        self.responding = false
        self.connection.markIdle()
        if keepAlive {
            context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
        } else {
            let closing = context.channel
            context.writeAndFlush(self.wrapOutboundOut(.end(nil))).whenComplete { _ in closing.close(promise: nil) }
        }
    }

    /// A request the decoder could not read gets 400 and the connection is closed (as NIO's
    /// `HTTPServerProtocolErrorHandler` does, without its place on every answer's way out); any other error closes it.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError, !self.responding {
            let headers = HTTPHeaders([("Connection", "close"), ("Content-Length", "0")])
            context.write(
                self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))),
                promise: nil)
            context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
        }
        context.close(promise: nil)
    }
}
