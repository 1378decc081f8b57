import FoundationEssentials
import Logging
import NIOPosix
import WeathertagCore

/// The one place weather comes from: locates the machine, answers from the cache while it is fresh, otherwise asks
/// the sources of `weather.providers` in order (the first that answers wins), once per place however many callers
/// wait (single flight). Each source has its own gate: after a failure it backs off and the next source is asked,
/// and none makes more calls in any 60 seconds than its ceiling allows.
package actor WeatherService {
    package struct Snapshot: Sendable {
        package var cachedPlaces: Int
        package var lastFetchedAt: Date?
        package var lastError: String?
        package var nextAttemptAt: Date?
        /// The last tag made: what the daemon last knew of the weather and the place.
        package var lastTag: WeatherTag?
    }

    /// Who names places, and how its calls are counted.
    package enum Geocoder: Sendable {
        /// A service asked over the network, within the gate of `source`.
        case remote(source: String, ceilingName: String, name: @Sendable (RequestPosition) async throws -> PlaceName?)
        /// Named on this machine: no request, no gate (GeoNames).
        case local(@Sendable (RequestPosition) async -> PlaceName?)
    }

    private let chain: LocationChain
    private let sources: [any WeatherSource]
    /// Whether the block names the source that answered (`weather_source`): not for a configuration that has only
    /// ever known OpenWeather (no `weather.providers`), whose blocks stay byte for byte as they were.
    private let namesSource: Bool
    private let ttl: Duration
    private let store: WeatherCacheStore
    private let statistics: DaemonStatistics
    private let logger: Logger
    private let now: @Sendable () -> Date
    private var cache: WeatherCache
    private var inFlight: [(position: Position, task: Task<CachedWeather, any Error>)] = []
    private var gates: [String: SourceGate] = [:]
    private var lastError: WeatherError?
    private var icons: [String: String] = [:]
    private let iconDownloader: IconDownloader?
    private var lastTag: WeatherTag?
    /// What the sources and the cache see of a position, and what a tag shows of it.
    package nonisolated let privacy: PrivacyPolicy
    private let geocoder: Geocoder?
    /// From an answer to the tag shown (the place's name in `weather.lang`, privacy): the step history shares.
    private let composer: TagComposer
    /// Asks for the air too, with each weather call (`air_quality.enabled`).
    private let airQuality: Bool
    /// The language of the words (`weather.lang`): cached weather in another is fetched again.
    private let lang: String
    private var places = PlaceNameCache()
    private var placesInFlight: [String: Task<PlaceName?, Never>] = [:]

    package init(
        chain: LocationChain,
        sources: [any WeatherSource],
        namesSource: Bool = true,
        ttl: Duration,
        store: WeatherCacheStore,
        statistics: DaemonStatistics,
        logger: Logger,
        privacy: PrivacyPolicy = .exact,
        geocoder: Geocoder? = nil,
        lang: String = "en",
        airQuality: Bool = false,
        icons: IconDownloader? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) async {
        precondition(!sources.isEmpty, "a weather service needs at least one source")
        self.privacy = privacy
        self.geocoder = geocoder
        self.composer = TagComposer(privacy: privacy, lang: lang)
        self.airQuality = airQuality
        self.lang = lang
        self.chain = chain
        self.sources = sources
        self.namesSource = namesSource
        self.ttl = ttl
        self.store = store
        self.statistics = statistics
        self.logger = logger
        self.now = now
        self.iconDownloader = icons
        for source in sources {
            self.gates[source.type] = SourceGate(source: source.type, maximumPerMinute: source.maximumCallsPerMinute)
        }
        self.cache = await store.load(logger: logger)
        if geocoder != nil { self.places = await store.loadPlaces() }
    }

    package var snapshot: Snapshot {
        Snapshot(
            cachedPlaces: self.cache.entries.count,
            lastFetchedAt: self.cache.entries.map(\.fetchedAt).max(),
            lastError: self.lastError?.message,
            nextAttemptAt: self.nextAttemptAt,
            lastTag: self.lastTag
        )
    }

    /// When a call may go out again while every source is backing off; nil when one may be asked now.
    private var nextAttemptAt: Date? {
        // The sources' gates (a geocoder's, counted on OpenWeather's ceiling, never holds weather back).
        let times = self.sources.map { self.gates[$0.type]?.nextAttemptAt }
        guard !times.isEmpty, times.allSatisfy({ $0.map { self.now() < $0 } ?? false }) else { return nil }
        return times.compactMap { $0 }.min()
    }

    /// How long until the next call may go out after a failure (the earliest backoff's end, and a little), so that
    /// the inbox asks again right then; nil when nothing holds a call back.
    package var nextAttemptDelay: Duration? {
        self.nextAttemptAt.map { .milliseconds(max(50, Int64($0.timeIntervalSince(self.now()) * 1000) + 10)) }
    }

    /// The weather here. Cached weather younger than the TTL is used as it is; otherwise the sources are asked, and
    /// when that fails, cached weather for this place up to `maximumAge` old beats an error (marked stale).
    package func currentTag(maximumAge: Duration) async throws -> WeatherTag {
        let located = try await self.chain.locate()
        // The sources and the cache never see more than `privacy.request_decimals` (or a zone's centre); the tag
        // shows what `privacy` allows.
        let request = self.privacy.requestPosition(located)
        let now = self.now()
        if let fresh = self.cache.fresh(near: request.position, ttl: self.ttl, now: now, lang: self.lang) {
            self.statistics.update { $0.cacheHits += 1 }
            return await self.tag(fresh, at: located, stale: false)
        }
        self.statistics.update { $0.cacheMisses += 1 }
        do {
            return await self.tag(try await self.fetch(near: request), at: located, stale: false)
        } catch {
            if let old = self.cache.fresh(near: request.position, ttl: maximumAge, now: now, lang: self.lang) {
                return await self.tag(old, at: located, stale: true)
            }
            throw error
        }
    }

    /// Counts a call on `source`'s gate, or returns why it may not be asked yet.
    private func admit(_ source: String, ceilingName: String) -> WeatherError? {
        self.gates[source, default: SourceGate(source: source, maximumPerMinute: 60)].admit(
            now: self.now(), ceilingName: ceilingName)
    }

    private func fetch(near request: RequestPosition) async throws -> CachedWeather {
        let position = request.position
        if let running = self.inFlight.first(where: { $0.position.distance(to: position) <= self.cache.radiusMeters }) {
            return try await running.task.value
        }
        // A child of no one on purpose: it is shared by every caller waiting for this place, and lives no longer
        // than the sources' requests.
        let task = Task<CachedWeather, any Error> { try await self.ask(request) }
        self.inFlight.append((position, task))
        defer { self.inFlight.removeAll { $0.task == task } }
        let entry = try await task.value
        self.cache.store(
            entry.weather, for: position, at: entry.fetchedAt, airQuality: entry.airQuality, lang: self.lang)
        await self.store.save(self.cache, logger: self.logger)
        return entry
    }

    /// Asks each source whose gate is open, in order, until one answers; throws the first source's error when none
    /// does.
    private func ask(_ request: RequestPosition) async throws -> CachedWeather {
        var firstError: WeatherError?
        for source in self.sources {
            if let shut = self.admit(source.type, ceilingName: source.ceilingSetting) {
                firstError = firstError ?? shut
                continue
            }
            do {
                var weather = try await source.currentWeather(at: request)
                weather.source = self.namesSource ? source.type : nil
                if self.gates[source.type]?.succeeded() == true {
                    self.logger.info("\(source.type) is answering again")
                }
                self.lastError = nil
                var entry = CachedWeather(
                    latitude: request.latitude, longitude: request.longitude, weather: weather, fetchedAt: self.now())
                entry.airQuality = await self.air(from: source, at: request)
                return entry
            } catch {
                if self.gates[source.type]?.failed(error, now: self.now()) == true {
                    self.logger.error("no weather from \(source.type)", metadata: ["error": "\(error.message)"])
                }
                self.statistics.recordError(error.message)
                self.lastError = error
                firstError = firstError ?? error
            }
        }
        throw firstError ?? WeatherError(kind: .unreachable, message: "no weather source is configured")
    }

    /// The air from the source that gave the weather (one more call per place per TTL, within its gate); a failure
    /// or a source without air only leaves it out.
    private func air(from source: any WeatherSource, at request: RequestPosition) async -> AirQuality? {
        guard self.airQuality, self.admit(source.type, ceilingName: source.ceilingSetting) == nil else {
            return nil
        }
        do {
            return try await source.airQuality(at: request)
        } catch {
            self.logger.notice("no air quality from \(source.type)", metadata: ["error": "\(error.message)"])
            return nil
        }
    }

    private func tag(_ entry: CachedWeather, at position: Position, stale: Bool) async -> WeatherTag {
        let answer = TagComposer.Answer(
            weather: entry.weather, fetchedAt: entry.fetchedAt, airQuality: entry.airQuality, stale: stale)
        let icon = await self.iconFile(entry.weather.icon)
        let place = await self.placeName(near: self.privacy.requestPosition(position))
        let tag = self.composer.tag(answer, at: position, place: place, iconFile: icon)
        self.lastTag = tag
        return tag
    }

    /// The place by name for the cell of `request` (a position as privacy lets it leave): kept 30 days per cell of
    /// about 1 km, asked once per new cell (a remote geocoder within its gate). A failure never holds a tag back:
    /// the tag keeps the source's station name, and the cell is not asked again for ten minutes.
    private func placeName(near request: RequestPosition) async -> PlaceName? {
        guard let geocoder = self.geocoder else { return nil }
        let cell = request.cell
        if case .known(let place) = self.places.lookup(cell, now: self.now()) { return place }
        if let running = self.placesInFlight[cell] { return await running.value }
        let logger = self.logger
        let task: Task<PlaceName?, Never>
        switch geocoder {
        case .local(let name):
            task = Task { await name(request) }
        case .remote(let source, let ceilingName, let name):
            guard self.admit(source, ceilingName: ceilingName) == nil else { return nil }
            // Shared by every caller waiting for this cell; lives no longer than one request.
            task = Task<PlaceName?, Never> {
                do {
                    return try await name(request)
                } catch {
                    logger.notice("no place name from \(source)'s geocoder", metadata: ["error": "\(error)"])
                    return nil
                }
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
        guard let downloader = self.iconDownloader else { return nil }
        do {
            let png = try await downloader.icon(code)
            try await self.store.write(png, to: path)
            self.icons[code] = path
            return path
        } catch {
            self.logger.warning("icon not cached", metadata: ["icon": "\(code)", "error": "\(error)"])
            return nil
        }
    }
}
