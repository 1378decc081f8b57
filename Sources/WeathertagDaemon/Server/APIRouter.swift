import Foundation
import WeathertagCore

/// One answer of the socket API.
public struct APIResponse: Sendable, Equatable {
    public var status: Int
    public var contentType: String
    public var body: String

    public static func json(_ status: Int, _ value: JSONValue) -> APIResponse {
        APIResponse(status: status, contentType: "application/json", body: value.serialized + "\n")
    }

    public static func error(_ status: Int, _ message: String) -> APIResponse {
        .json(status, .object([("error", .string(message)), ("status", .number(Double(status)))]))
    }
}

/// Routes `GET /v1/…` to the daemon's state.
public struct APIRouter: Sendable {
    let weather: WeatherService
    let chain: LocationChain
    let statistics: DaemonStatistics
    let inbox: String
    /// How old weather `/v1/tag` may serve, marked stale, while OpenWeather cannot be reached.
    let maximumStaleness: Duration
    let now: @Sendable () -> Date
    /// Answers of this generation kept for a second (a reload brings a new router, hence a new cache).
    let cache = ResponseCache()

    /// What a request asks for, decided from its method and target alone.
    package enum Route: Equatable {
        case tag(format: String)
        case location
        case status
        case refused(APIResponse)
    }

    /// Routes a request without touching any state: the part of request handling the fuzzer drives.
    package static func route(method: String, uri: String) -> Route {
        let (path, query) = Self.split(uri)
        guard ["/v1/tag", "/v1/location", "/v1/status"].contains(path) else {
            let shown = path.count > 200 ? String(path.prefix(200)) + "…" : path
            return .refused(.error(404, "no such endpoint \(shown); try /v1/tag, /v1/location or /v1/status"))
        }
        guard method == "GET" || method == "HEAD" else { return .refused(.error(405, "only GET is supported")) }
        switch path {
        case "/v1/tag":
            let format = query["format"] ?? "json"
            guard format == "json" || format == "text" else {
                return .refused(.error(400, "unknown format; use json or text"))
            }
            return .tag(format: format)
        case "/v1/location": return .location
        default: return .status
        }
    }

    public func respond(method: String, uri: String) async -> APIResponse {
        let response: APIResponse
        switch Self.route(method: method, uri: uri) {
        case .tag(let format): response = await self.tag(format: format)
        case .location: response = await self.location()
        case .status: return await self.status()
        case .refused(let refusal): return refusal
        }
        if response.status == 200 { self.cache.store(response, for: uri) }
        return response
    }

    private func tag(format: String) async -> APIResponse {
        do {
            let tag = try await self.weather.currentTag(maximumAge: self.maximumStaleness)
            if format == "text" {
                let line = (try? TagFormatter())?.format(tag) ?? ""
                return APIResponse(status: 200, contentType: "text/plain; charset=utf-8", body: line + "\n")
            }
            return .json(200, tag.json(now: self.now()))
        } catch {
            return .error(503, "no weather yet: \(error)")
        }
    }

    private func location() async -> APIResponse {
        do {
            return .json(200, try await self.chain.locate().json)
        } catch {
            return .error(503, "\(error)")
        }
    }

    private func status() async -> APIResponse {
        let counters = self.statistics.snapshot
        let weather = await self.weather.snapshot
        let providers: [JSONValue] = zip(self.chain.providers, self.chain.status).map { provider, status in
            var members: [(key: String, value: JSONValue)] = [
                ("type", .string(status.type)),
                ("ok", .bool(status.isHealthy)),
                ("attempts", .number(Double(status.attempts))),
                ("failures", .number(Double(status.failures))),
                ("last_success_at", .optional(status.lastSuccessAt?.iso8601)),
                ("last_error", .optional(status.lastError)),
                ("last_error_at", .optional(status.lastErrorAt?.iso8601)),
                ("skipped_until", .optional(status.skippedUntil?.iso8601)),
                ("last_position", status.lastPosition?.json ?? .null),
            ]
            for (key, value) in provider.details.sorted(by: { $0.key < $1.key }) {
                members.append((key, .string(value)))
            }
            return .object(members)
        }
        return .json(
            200,
            .object([
                ("started_at", .string(counters.startedAt.iso8601)),
                ("uptime_seconds", .number(self.now().timeIntervalSince(counters.startedAt).rounded())),
                ("inbox", .string(self.inbox)),
                ("providers", .array(providers)),
                ("weather", weather.lastTag?.json(now: self.now()) ?? .null),
                (
                    "cache",
                    .object([
                        ("places", .number(Double(weather.cachedPlaces))),
                        ("hits", .number(Double(counters.cacheHits))),
                        ("misses", .number(Double(counters.cacheMisses))),
                        ("last_fetched_at", .optional(weather.lastFetchedAt?.iso8601)),
                        (
                            "age_seconds",
                            .optional(weather.lastFetchedAt.map { max(0, self.now().timeIntervalSince($0)).rounded() })
                        ),
                    ])
                ),
                (
                    "openweather",
                    .object([
                        ("calls", .number(Double(counters.openWeatherCalls))),
                        ("calls_today", .number(Double(self.statistics.callsToday(now: self.now())))),
                        ("icon_downloads", .number(Double(counters.iconDownloads))),
                        ("last_error", .optional(weather.lastError)),
                        ("next_attempt_at", .optional(weather.nextAttemptAt?.iso8601)),
                    ])
                ),
                (
                    "entries",
                    .object([
                        ("stamped", .number(Double(counters.entriesStamped))),
                        ("already_stamped", .number(Double(counters.entriesAlreadyStamped))),
                        ("skipped", .number(Double(counters.entriesSkipped))),
                        ("waiting", .number(Double(counters.entriesWaiting))),
                        ("last_scan_at", .optional(counters.lastScanAt?.iso8601)),
                    ])
                ),
                ("last_error", .optional(counters.lastError)),
                ("last_error_at", .optional(counters.lastErrorAt?.iso8601)),
            ])
        )
    }

    /// Splits `/v1/tag?format=text` into the path and its query parameters.
    static func split(_ uri: String) -> (path: String, query: [String: String]) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, [:]) }
        var query: [String: String] = [:]
        for pair in uri[uri.index(after: mark)...].split(separator: "&") {
            // Keeping empty pieces, "=" is ["", ""]: there is always a key (found by `make fuzz`: `?=` trapped).
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
            query[key] = value
        }
        return (String(uri[..<mark]), query)
    }
}
