import FoundationEssentials
import WeathertagCore

/// One answer of the socket API.
package struct APIResponse: Sendable, Equatable {
    package var status: Int
    package var contentType: String
    package var body: String

    /// One of the API's documents (`APIDocuments.swift`) as compact JSON, keys in their declared order.
    package static func json(_ status: Int, _ document: some Encodable) -> APIResponse {
        do {
            let body = try JSONTextEncoder().encode(document)
            return APIResponse(status: status, contentType: "application/json", body: body + "\n")
        } catch {
            return APIResponse(status: 500, contentType: "text/plain; charset=utf-8", body: "\(error)\n")
        }
    }

    package static func error(_ status: Int, _ message: String) -> APIResponse {
        .json(status, ErrorDocument(error: message, status: status))
    }
}

/// Routes `GET /v1/…` to the daemon's state.
package struct APIRouter: Sendable {
    let weather: WeatherService
    let chain: LocationChain
    let statistics: DaemonStatistics
    let inbox: String
    /// How old weather `/v1/tag` may serve, marked stale, while OpenWeather cannot be reached.
    let maximumStaleness: Duration
    let now: @Sendable () -> Date
    /// The diary index (nil without the state database: `/v1/entries` answers 503).
    var diary: DiaryIndex? = nil
    /// The page `timeline.output` names (nil without it).
    var timeline: TimelinePageService? = nil
    /// The weather of back-dated entries, for `/v1/status` (nil with `history.enabled` off).
    var history: HistoryService? = nil
    /// The sync tools' conflict copies in the inbox, for `/v1/status` (nil: no inbox runs).
    var conflicts: SyncConflictRegistry? = nil
    /// Answers of this generation kept for a second (a reload brings a new router, hence a new cache).
    let cache = ResponseCache()

    /// What a request asks for, decided from its method and target alone.
    package enum Route: Equatable {
        case tag(format: String)
        /// Where the machine is, or with `at`, was.
        case location(at: Date?)
        case status
        case entries(EntryQuery)
        case entry(String)
        case refused(APIResponse)
    }

    static let endpoints = "/v1/tag, /v1/location, /v1/status, /v1/entries or /v1/entries/{path}"

    /// Routes a request without touching any state: the part of request handling the fuzzer drives.
    package static func route(method: String, uri: String) -> Route {
        let (path, query) = Self.split(uri)
        let entryPrefix = "/v1/entries/"
        guard ["/v1/tag", "/v1/location", "/v1/status", "/v1/entries"].contains(path) || path.hasPrefix(entryPrefix)
        else {
            let shown = path.count > 200 ? String(path.prefix(200)) + "…" : path
            return .refused(.error(404, "no such endpoint \(shown); try \(Self.endpoints)"))
        }
        guard method == "GET" || method == "HEAD" else { return .refused(.error(405, "only GET is supported")) }
        if path.hasPrefix(entryPrefix) {
            guard let entry = percentDecoded(path.dropFirst(entryPrefix.count)), !entry.isEmpty else {
                return .refused(.error(400, "path: give the entry's path relative to the inbox, URL-encoded"))
            }
            return .entry(entry)
        }
        switch path {
        case "/v1/entries":
            do {
                return .entries(try EntryQuery(parameters: query))
            } catch {
                return .refused(.error(400, "\(error)"))
            }
        case "/v1/tag":
            let format = query["format"] ?? "json"
            guard format == "json" || format == "text" else {
                return .refused(.error(400, "unknown format; use json or text"))
            }
            return .tag(format: format)
        case "/v1/location":
            // Other parameters are ignored, as they always were (a status bar's cache-buster).
            guard let at = query["at"] else { return .location(at: nil) }
            // The one time grammar; a bare day is its noon, as a back-dated entry of that day is placed.
            guard let time = EntryTime.given(at) else {
                return .refused(.error(400, "at: is not \(EntryTime.grammar)"))
            }
            return .location(at: time.moment)
        default: return .status
        }
    }

    package func respond(method: String, uri: String) async -> APIResponse {
        let response: APIResponse
        switch Self.route(method: method, uri: uri) {
        case .tag(let format): response = await self.tag(format: format)
        case .location(let at): response = await self.location(at: at)
        case .status: return await self.status()
        case .entries(let query): return await self.entries(query)
        case .entry(let path): return await self.entry(path)
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
            var document = TagDocument(tag, now: self.now())
            document.syncConflicts = self.conflicts?.count
            return .json(200, document)
        } catch {
            return .error(503, "no weather yet: \(error)")
        }
    }

    private func entries(_ query: EntryQuery) async -> APIResponse {
        guard let diary = self.diary else {
            return .error(503, "the diary index needs the state database (state.enabled)")
        }
        do {
            return .json(200, try await diary.list(query))
        } catch {
            return .error(500, "cannot read the diary index: \(error)")
        }
    }

    private func entry(_ path: String) async -> APIResponse {
        guard let diary = self.diary else {
            return .error(503, "the diary index needs the state database (state.enabled)")
        }
        do {
            guard let entry = try await diary.entry(path) else {
                return .error(404, "no entry \(path) in the diary index (paths are relative to the inbox)")
            }
            return .json(200, entry)
        } catch {
            return .error(500, "cannot read the diary index: \(error)")
        }
    }

    private func location(at time: Date?) async -> APIResponse {
        if let time {
            // The providers that know the past (tracks, OwnTracks, Home Assistant, a command with {time}, fixed).
            guard let position = await self.chain.locate(at: time) else {
                return .error(404, "no provider knows where the machine was at \(time.iso8601)")
            }
            return .json(200, LocationDocument(self.weather.privacy.shown(position)))
        }
        do {
            return .json(200, LocationDocument(self.weather.privacy.shown(try await self.chain.locate())))
        } catch {
            return .error(503, "\(error)")
        }
    }

    private func status() async -> APIResponse {
        let counters = self.statistics.snapshot
        let weather = await self.weather.snapshot
        let now = self.now()
        let providers = zip(self.chain.providers, self.chain.status).map { provider, status in
            var document = StatusDocument.Provider(
                type: status.type,
                ok: status.isHealthy,
                attempts: status.attempts,
                failures: status.failures,
                lastSuccessAt: status.lastSuccessAt?.iso8601,
                lastError: status.lastError,
                lastErrorAt: status.lastErrorAt?.iso8601,
                skippedUntil: status.skippedUntil?.iso8601,
                lastPosition: status.lastPosition.map { LocationDocument(self.weather.privacy.shown($0)) },
                details: provider.details
            )
            document.won = status.won
            document.accuracy = status.lastPosition.map(LocationStrategy.rank)
            document.ageSeconds = status.lastPosition.map { max(0, now.timeIntervalSince($0.takenAt)).rounded() }
            return document
        }
        var document = StatusDocument(
            startedAt: counters.startedAt.iso8601,
            uptimeSeconds: now.timeIntervalSince(counters.startedAt).rounded(),
            inbox: self.inbox,
            providers: providers,
            weather: weather.lastTag.map { TagDocument($0, now: now) },
            cache: StatusDocument.Cache(
                places: weather.cachedPlaces,
                hits: counters.cacheHits,
                misses: counters.cacheMisses,
                lastFetchedAt: weather.lastFetchedAt?.iso8601,
                ageSeconds: weather.lastFetchedAt.map { max(0, now.timeIntervalSince($0)).rounded() }
            ),
            services: StatusDocument.Services(
                bySource: self.statistics.calls(now: now).mapValues {
                    StatusDocument.Services.SourceCalls(calls: $0.total, callsToday: $0.today)
                },
                iconDownloads: counters.iconDownloads,
                lastError: weather.lastError,
                nextAttemptAt: weather.nextAttemptAt?.iso8601
            ),
            entries: StatusDocument.Entries(
                stamped: counters.entriesStamped,
                restored: counters.entriesRestored,
                alreadyStamped: counters.entriesAlreadyStamped,
                skipped: counters.entriesSkipped,
                backdated: counters.entriesBackdated,
                waiting: counters.entriesWaiting,
                lastScanAt: counters.lastScanAt?.iso8601
            ),
            lastError: counters.lastError,
            lastErrorAt: counters.lastErrorAt?.iso8601,
            lanes: try? await self.diary?.lanes()
        )
        document.conflicts = (self.conflicts?.all ?? []).map(StatusDocument.Conflict.init)
        document.timeline = self.timeline.map(\.snapshot).map {
            StatusDocument.Timeline(
                path: $0.path, writtenAt: $0.writtenAt?.iso8601, entries: $0.entries, stale: $0.stale,
                lastError: $0.lastError)
        }
        if let history = await self.history?.snapshot() {
            document.history = StatusDocument.History(
                source: history.source, waiting: counters.entriesWaitingForHistory, requests: history.requests,
                budgetLeft: history.budgetLeft.map { ($0 * 10).rounded() / 10 })
        }
        return .json(200, document)
    }

    /// Splits `/v1/tag?format=text` into the path and its query parameters.
    static func split(_ uri: String) -> (path: String, query: [String: String]) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, [:]) }
        var query: [String: String] = [:]
        for pair in uri[uri.index(after: mark)...].split(separator: "&") {
            // Keeping empty pieces, "=" is ["", ""]: there is always a key (found by `make fuzz`: `?=` trapped).
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = percentDecoded(parts[0]) ?? String(parts[0])
            let value = parts.count > 1 ? (percentDecoded(parts[1]) ?? String(parts[1])) : ""
            query[key] = value
        }
        return (String(uri[..<mark]), query)
    }
}
