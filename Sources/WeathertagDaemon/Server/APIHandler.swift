import NIOCore
import NIOHTTP1

/// Answers HTTP requests on one connection. A request the `ResponseCache` can answer is answered right here on the
/// event loop; any other goes to the router (Swift concurrency) and is written back on the event loop when it is
/// ready. `HTTPServerPipelineHandler`, earlier in the pipeline, keeps pipelined answers in order.
final class APIHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let router: CurrentRouter
    private var head: HTTPRequestHead?

    init(router: CurrentRouter) {
        self.router = router
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
            let router = self.router.value
            if head.method == .GET || head.method == .HEAD, let cached = router.cache.lookup(head.uri) {
                self.write(cached.response, body: cached.body, for: head, context: context)
                return
            }
            let method = "\(head.method)"
            let uri = head.uri
            let promise = context.eventLoop.makePromise(of: APIResponse.self)
            promise.completeWithTask { await router.respond(method: method, uri: uri) }
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            promise.futureResult.whenSuccess { response in
                let (handler, context) = bound.value
                handler.write(response, body: ByteBuffer(string: response.body), for: head, context: context)
            }
        }
    }

    private func write(
        _ response: APIResponse, body: ByteBuffer, for request: HTTPRequestHead, context: ChannelHandlerContext
    ) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: response.contentType)
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Connection", value: request.isKeepAlive ? "keep-alive" : "close")
        let head = HTTPResponseHead(
            version: request.version,
            status: HTTPResponseStatus(statusCode: response.status),
            headers: headers
        )
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        if request.method != .HEAD {
            context.write(self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        if request.isKeepAlive {
            context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
        } else {
            let closing = context.channel
            context.writeAndFlush(self.wrapOutboundOut(.end(nil))).whenComplete { _ in closing.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
