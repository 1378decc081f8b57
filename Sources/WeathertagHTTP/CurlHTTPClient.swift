import CCurl
import FoundationEssentials
import NIOPosix
import Synchronization
import WeathertagCore

/// HTTP GET over libcurl. `curl_easy_perform` blocks, so every transfer runs on the given `NIOThreadPool`, never on
/// Swift's cooperative pool. Easy handles are reused serially (one transfer per handle at a time) so connections
/// stay alive between calls.
package final class CurlHTTPClient: HTTPClient {
    /// Bodies larger than this are cut off: no answer weathertag asks for comes near it.
    package static let maximumBodySize = 4 << 20

    private let threadPool: NIOThreadPool
    private let userAgent: String
    private let idleHandles = Mutex<[EasyHandle]>([])

    package init(threadPool: NIOThreadPool, userAgent: String = "weathertag") {
        self.threadPool = threadPool
        self.userAgent = userAgent
    }

    package func get(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await self.threadPool.runIfActive {
            let handle = self.idleHandles.withLock { $0.popLast() } ?? EasyHandle()
            defer { self.idleHandles.withLock { $0.append(handle) } }
            return try handle.perform(request, userAgent: self.userAgent)
        }
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
