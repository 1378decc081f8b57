import CCurl
import FoundationEssentials
import NIOPosix
import Synchronization
import WeathertagCore

/// HTTP GET over libcurl. `curl_easy_perform` blocks, so every transfer runs on threads of the client's own
/// (`TransferThreads`), never on Swift's cooperative pool nor on the process's thread pool: a transfer holds its
/// thread for as long as the service takes to answer (its timeout, when it never does), and on the process's pool
/// that was one of the two threads that stamp entries, read the index and answer the socket's pages. Two asks to
/// a service that does not answer held both until their timeout (`CurlHTTPClientTests`); in a 50,000-entry rebuild
/// on loopback, the start's asks held one for 94 ms (`perf record` of `sched_switch`). Easy handles are reused
/// serially (one transfer per handle at a time) so connections stay alive between calls.
package final class CurlHTTPClient: HTTPClient {
    /// Bodies larger than this are cut off: no answer weathertag asks for comes near it.
    package static let maximumBodySize = 4 << 20
    /// Transfers at the same time; more wait for a thread. The daemon asks for current weather, a place's name and
    /// its air together, and up to eight histories (`InboxStateMachine.Configuration.historyInFlight`), which
    /// answer a place and year each.
    package static let transferThreads = 4

    private let transfers: TransferThreads
    private let userAgent: String
    private let idleHandles = Mutex<[EasyHandle]>([])

    package init(userAgent: String = "weathertag", threads: Int = CurlHTTPClient.transferThreads) {
        self.transfers = TransferThreads(count: threads)
        self.userAgent = userAgent
    }

    package func get(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await self.transfers.run {
            let handle = self.idleHandles.withLock { $0.popLast() } ?? EasyHandle()
            defer { self.idleHandles.withLock { $0.append(handle) } }
            return try handle.perform(request, userAgent: self.userAgent)
        }
    }
}

/// The client's threads, started at its first transfer: a command that never asks the network makes none.
private final class TransferThreads: Sendable {
    private let count: Int
    private let pool = Mutex<NIOThreadPool?>(nil)

    init(count: Int) { self.count = count }

    deinit { self.pool.withLock { $0 }?.shutdownGracefully { _ in } }

    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let pool = self.pool.withLock { pool in
            if let pool { return pool }
            let started = NIOThreadPool(numberOfThreads: self.count)
            started.start()
            pool = started
            return started
        }
        return try await pool.runIfActive(body)
    }
}

/// One `CURL *` easy handle. Used by one thread at a time: it is only ever taken out of the idle list by one
/// transfer, which puts it back when done.
private final class EasyHandle: @unchecked Sendable {
    private let raw: UnsafeMutableRawPointer?

    init() {
        self.raw = ccurl_easy_init()
    }

    deinit {
        if let raw { ccurl_easy_cleanup(raw) }
    }

    func perform(_ request: HTTPRequest, userAgent: String) throws -> HTTPResponse {
        guard let raw else {
            var error: UnsafePointer<CChar>?
            let reason =
                ccurl_load(&error) == 0
                ? "cannot load libcurl: \(error.map { String(cString: $0) } ?? "?")"
                : "libcurl could not create a handle"
            throw HTTPClientError(kind: .other, message: reason)
        }
        ccurl_easy_reset(raw)
        let sink = ResponseSink()
        let sinkPointer = Unmanaged.passUnretained(sink).toOpaque()
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { ccurl_slist_free_all(headerList) }

        let code: CURLcode = withExtendedLifetime(sink) {
            errorBuffer.withUnsafeMutableBufferPointer { errorPointer in
                _ = ccurl_setopt_string(raw, CURLOPT_URL, request.url)
                _ = ccurl_setopt_long(raw, CURLOPT_NOSIGNAL, 1)
                _ = ccurl_setopt_long(raw, CURLOPT_TIMEOUT_MS, request.timeout.milliseconds)
                _ = ccurl_setopt_long(raw, CURLOPT_CONNECTTIMEOUT_MS, request.connectTimeout.milliseconds)
                _ = ccurl_setopt_long(raw, CURLOPT_FOLLOWLOCATION, 1)
                _ = ccurl_setopt_long(raw, CURLOPT_MAXREDIRS, 3)
                _ = ccurl_setopt_long(raw, CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS))
                _ = ccurl_setopt_long(raw, CURLOPT_REDIR_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS))
                _ = ccurl_setopt_long(raw, CURLOPT_MAXFILESIZE, CurlHTTPClient.maximumBodySize)
                _ = ccurl_setopt_string(raw, CURLOPT_USERAGENT, userAgent)
                _ = ccurl_setopt_pointer(raw, CURLOPT_ERRORBUFFER, errorPointer.baseAddress)
                _ = ccurl_setopt_write_callback(raw, CURLOPT_WRITEFUNCTION, writeBody)
                _ = ccurl_setopt_pointer(raw, CURLOPT_WRITEDATA, sinkPointer)
                _ = ccurl_setopt_write_callback(raw, CURLOPT_HEADERFUNCTION, writeHeader)
                _ = ccurl_setopt_pointer(raw, CURLOPT_HEADERDATA, sinkPointer)
                if let socketPath = request.unixSocketPath {
                    _ = ccurl_setopt_string(raw, CURLOPT_UNIX_SOCKET_PATH, socketPath)
                }
                for header in request.headers {
                    headerList = ccurl_slist_append(headerList, header)
                }
                if let headerList {
                    _ = ccurl_setopt_pointer(raw, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList))
                }
                return ccurl_easy_perform(raw)
            }
        }

        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let message = detail.isEmpty ? String(cString: ccurl_easy_strerror(code)) : detail
            throw HTTPClientError(kind: Self.kind(of: code), message: message)
        }
        var status = 0
        _ = ccurl_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &status)
        return HTTPResponse(status: status, headers: sink.headers, body: sink.body)
    }

    private static func kind(of code: CURLcode) -> HTTPClientError.Kind {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return .timedOut
        case CURLE_COULDNT_CONNECT: return .couldNotConnect
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .couldNotResolve
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE:
            return .tls
        default: return .other
        }
    }
}

/// Collects one transfer's body and headers; reached from libcurl's callbacks through `Unmanaged` userdata.
private final class ResponseSink {
    var body: [UInt8] = []
    var headers: [String: String] = [:]
}

private let writeBody: ccurl_write_callback = { data, size, count, userdata in
    guard let data, let userdata else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    guard sink.body.count + length <= CurlHTTPClient.maximumBodySize else { return 0 }
    data.withMemoryRebound(to: UInt8.self, capacity: length) {
        sink.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
    }
    return length
}

private let writeHeader: ccurl_write_callback = { data, size, count, userdata in
    guard let data, let userdata else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    let line = data.withMemoryRebound(to: UInt8.self, capacity: length) {
        String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
    }
    if line.hasPrefix("HTTP/") {
        // A new status line (after a redirect or 100 Continue): headers start over.
        sink.headers = [:]
    } else if let colon = line.firstIndex(of: ":") {
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingWhitespaceAndNewlines()
        sink.headers[name] = value
    }
    return length
}

extension Duration {
    fileprivate var milliseconds: Int {
        Int(self.components.seconds) * 1000 + Int(self.components.attoseconds / 1_000_000_000_000_000)
    }
}
