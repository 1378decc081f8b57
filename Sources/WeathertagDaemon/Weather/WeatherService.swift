import Foundation
import Logging
import NIOPosix
import WeathertagCore

/// The one place weather comes from: locates the machine, answers from the cache while it is fresh, otherwise asks
/// OpenWeather, once per place however many callers wait (single flight), backs off after a failure, and never
/// makes more than `openweather.max_calls_per_minute` calls in any 60 seconds.
public actor WeatherService {
    public struct Snapshot: Sendable {
        public var cachedPlaces: Int
        public var lastFetchedAt: Date?
        public var lastError: String?
        public var nextAttemptAt: Date?
        /// The last tag made: what the daemon last knew of the weather and the place.
        public var lastTag: WeatherTag?
    }

    private let chain: LocationChain
    private let client: OpenWeatherClient
    private let ttl: Duration
    private let store: WeatherCacheStore
    private let statistics: DaemonStatistics
    private let logger: Logger
    private let now: @Sendable () -> Date
    private var cache: WeatherCache
    private var inFlight: [(position: Position, task: Task<CachedWeather, any Error>)] = []
    private var backoff = Backoff(base: .seconds(1), ceiling: .seconds(300))
    private var nextAttemptAt: Date?
    private var lastError: WeatherError?
    private var icons: [String: String] = [:]
    private var lastTag: WeatherTag?
    private let maximumCallsPerMinute: Int
    /// What OpenWeather and the cache see of a position, and what a tag shows of it.
    public nonisolated let privacy: PrivacyPolicy
    /// Names places through OpenWeather's reverse geocoder (`geocoding.enabled`).
    private let geocoding: Bool
    /// Asks for the air too, with each weather call (`air_quality.enabled`).
    private let airQuality: Bool
    private var places = PlaceNameCache()
    private var placesInFlight: [String: Task<PlaceName?, Never>] = [:]
    /// When the calls of the last minute were made, oldest first.
    private var recentCalls: [Date] = []

    public init(
        chain: LocationChain,
        client: OpenWeatherClient,
        ttl: Duration,
        maximumCallsPerMinute: Int = 60,
        store: WeatherCacheStore,
        statistics: DaemonStatistics,
        logger: Logger,
        privacy: PrivacyPolicy = .exact,
        geocoding: Bool = false,
        airQuality: Bool = false,
        now: @escaping @Sendable () -> Date = { Date() }
    ) async {
        self.privacy = privacy
        self.geocoding = geocoding
        self.airQuality = airQuality
        self.chain = chain
        self.client = client
        self.ttl = ttl
        self.maximumCallsPerMinute = maximumCallsPerMinute
        self.store = store
        self.statistics = statistics
        self.logger = logger
        self.now = now
        self.cache = await store.load(logger: logger)
        if geocoding { self.places = await store.loadPlaces() }
    }

    public var snapshot: Snapshot {
        Snapshot(
            cachedPlaces: self.cache.entries.count,
            lastFetchedAt: self.cache.entries.map(\.fetchedAt).max(),
            lastError: self.lastError?.message,
            nextAttemptAt: self.nextAttemptAt,
            lastTag: self.lastTag
        )
    }

    /// How long until the next call may go out after a failure (the backoff's own time, and a little), so that the
    /// inbox asks again right then; nil when nothing holds a call back.
    public var nextAttemptDelay: Duration? {
        self.nextAttemptAt.map { .milliseconds(max(50, Int64($0.timeIntervalSince(self.now()) * 1000) + 10)) }
    }

    /// The weather here. Cached weather younger than the TTL is used as it is; otherwise OpenWeather is asked, and
    /// when that fails, cached weather for this place up to `maximumAge` old beats an error (marked stale).
    public func currentTag(maximumAge: Duration) async throws -> WeatherTag {
        let located = try await self.chain.locate()
        // OpenWeather and the cache never see more than `privacy.request_decimals` (or a zone's centre); the tag
        // shows what `privacy` allows.
        let request = self.privacy.requestPosition(located)
        let now = self.now()
        if let fresh = self.cache.fresh(near: request.position, ttl: self.ttl, now: now) {
            self.statistics.update { $0.cacheHits += 1 }
            return await self.tag(fresh, at: located, stale: false)
        }
        self.statistics.update { $0.cacheMisses += 1 }
        do {
            return await self.tag(try await self.fetch(near: request), at: located, stale: false)
        } catch {
            if let old = self.cache.fresh(near: request.position, ttl: maximumAge, now: now) {
                return await self.tag(old, at: located, stale: true)
            }
            throw error
        }
    }

    /// Counts a call against the per-minute ceiling, or throws when the ceiling is reached.
    private func admitCall() throws(WeatherError) {
        let now = self.now()
        self.recentCalls.removeAll { now.timeIntervalSince($0) >= 60 || now < $0 }
        if self.recentCalls.count >= self.maximumCallsPerMinute {
            let wait = 60 - now.timeIntervalSince(self.recentCalls[0])
            throw WeatherError(
                kind: .rateLimited(retryAfter: .milliseconds(Int64(wait * 1000))),
                message: "holding back: \(self.recentCalls.count) OpenWeather calls in the last minute "
                    + "(openweather.max_calls_per_minute)"
            )
        }
        self.recentCalls.append(now)
    }

    private func fetch(near request: RequestPosition) async throws -> CachedWeather {
        let position = request.position
        if let running = self.inFlight.first(where: { $0.position.distance(to: position) <= self.cache.radiusMeters }) {
            return try await running.task.value
        }
        if let nextAttemptAt, self.now() < nextAttemptAt, let lastError {
            throw lastError
        }
        try self.admitCall()
        let client = self.client
        let now = self.now
        // A child of no one on purpose: it is shared by every caller waiting for this place, and lives no longer
        // than one OpenWeather request.
        let task = Task<CachedWeather, any Error> {
            let weather = try await client.currentWeather(at: request)
            return CachedWeather(
                latitude: position.latitude,
                longitude: position.longitude,
                weather: weather,
                fetchedAt: now()
            )
        }
        self.inFlight.append((position, task))
        defer { self.inFlight.removeAll { $0.task == task } }
        do {
            var entry = try await task.value
            // The air, with the weather: one more call per place per TTL, within the same ceiling; a failure only
            // leaves it out.
            if self.airQuality, (try? self.admitCall()) != nil {
                do {
                    entry.airQuality = try await self.client.airQuality(at: request)
                } catch {
                    self.logger.notice("no air quality from OpenWeather", metadata: ["error": "\(error.message)"])
                }
            }
            self.cache.store(entry.weather, for: position, at: entry.fetchedAt, airQuality: entry.airQuality)
            self.backoff.reset()
            self.nextAttemptAt = nil
            if self.lastError != nil { self.logger.info("OpenWeather is answering again") }
            self.lastError = nil
            await self.store.save(self.cache, logger: self.logger)
            return entry
        } catch let error as WeatherError {
            let delay = max(self.backoff.next(), error.minimumRetryDelay)
            self.nextAttemptAt = self.now().addingTimeInterval(delay.seconds)
            if self.lastError?.message != error.message {
                self.logger.error("no weather from OpenWeather", metadata: ["error": "\(error.message)"])
            }
            self.lastError = error
            self.statistics.recordError(error.message)
            throw error
        }
    }

    private func tag(_ entry: CachedWeather, at position: Position, stale: Bool) async -> WeatherTag {
        var tag = WeatherTag(
            weather: entry.weather,
            position: position,
            iconFile: await self.iconFile(entry.weather.icon),
            fetchedAt: entry.fetchedAt,
            stale: stale
        )
        tag.airQuality = entry.airQuality
        if let place = await self.placeName(near: self.privacy.requestPosition(position)) {
            tag.geocodedPlace = place.name(in: self.client.configuration.lang)
            tag.region = place.region
            tag.country = place.country
        }
        tag = self.privacy.shown(tag)
        self.lastTag = tag
        return tag
    }

    /// The place by name for the cell of `request` (a position as privacy lets it leave): kept 30 days per cell of
    /// about 1 km, asked once per new cell within the per-minute ceiling. A failure never holds a tag back: the
    /// tag keeps OpenWeather's station name, and the cell is not asked again for ten minutes.
    private func placeName(near request: RequestPosition) async -> PlaceName? {
        guard self.geocoding else { return nil }
        let cell = request.cell
        if case .known(let place) = self.places.lookup(cell, now: self.now()) { return place }
        if let running = self.placesInFlight[cell] { return await running.value }
        guard (try? self.admitCall()) != nil else { return nil }
        let client = self.client
        let logger = self.logger
        // Shared by every caller waiting for this cell; lives no longer than one request.
        let task = Task<PlaceName?, Never> {
            do {
                return try await client.placeName(at: request)
            } catch {
                logger.notice("no place name from OpenWeather's geocoder", metadata: ["error": "\(error)"])
                return nil
            }
        }
        self.placesInFlight[cell] = task
        let place = await task.value
        self.placesInFlight[cell] = nil
        self.places.store(place, for: cell, at: self.now())
        await self.store.savePlaces(self.places, logger: self.logger)
        return place
    }

    /// The icon's path in the cache, downloading it the first time a code is seen. Icons never change.
    private func iconFile(_ code: String) async -> String? {
        guard OpenWeatherAPI.isValidIconCode(code) else { return nil }
        if let path = self.icons[code] { return path }
        let path = self.store.iconPath(code)
        if await self.store.exists(path) {
            self.icons[code] = path
            return path
        }
        do {
            let png = try await self.client.icon(code)
            try await self.store.write(png, to: path)
            self.icons[code] = path
            return path
        } catch {
            self.logger.warning("icon not cached", metadata: ["icon": "\(code)", "error": "\(error)"])
            return nil
        }
    }
}
