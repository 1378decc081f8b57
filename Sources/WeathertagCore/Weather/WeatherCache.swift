import FoundationEssentials

/// Weather fetched for one place.
package struct CachedWeather: Sendable, Equatable, Codable {
    package var latitude: Double
    package var longitude: Double
    package var weather: Weather
    package var fetchedAt: Date
    /// The air there, fetched with the weather (`air_quality.enabled`).
    package var airQuality: AirQuality?
    /// The language its words are in (`weather.lang` when it was fetched); nil in a cache written before.
    package var lang: String?

    package init(
        latitude: Double, longitude: Double, weather: Weather, fetchedAt: Date, airQuality: AirQuality? = nil,
        lang: String? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.weather = weather
        self.fetchedAt = fetchedAt
        self.airQuality = airQuality
        self.lang = lang
    }

    enum CodingKeys: String, CodingKey {
        case latitude, longitude, weather, lang
        case fetchedAt = "fetched_at"
        case airQuality = "air_quality"
    }
}

/// The cache policy: positions within `radiusMeters` share one entry, an entry is fresh for `ttl`, and at most
/// `capacity` places are kept (the least recently fetched go first). Pure: time is passed in.
package struct WeatherCache: Sendable, Equatable, Codable {
    package static let defaultRadiusMeters = 1_000.0
    package static let defaultCapacity = 64

    package private(set) var entries: [CachedWeather]
    package var radiusMeters: Double
    package var capacity: Int

    package init(
        entries: [CachedWeather] = [],
        radiusMeters: Double = Self.defaultRadiusMeters,
        capacity: Int = Self.defaultCapacity
    ) {
        self.entries = entries
        self.radiusMeters = radiusMeters
        self.capacity = capacity
    }

    /// The newest entry near `position`, whatever its age.
    package func latest(near position: Position) -> CachedWeather? {
        self.entries
            .filter {
                Position.distance($0.latitude, $0.longitude, position.latitude, position.longitude) <= self.radiusMeters
            }
            .max { $0.fetchedAt < $1.fetchedAt }
    }

    /// The entry near `position` if it is younger than `ttl` at `now` and in `lang`'s words (a change of
    /// `weather.lang` applies from the next stamp, the cache's too). An entry from the future (the clock went back) is
    /// not trusted.
    package func fresh(near position: Position, ttl: Duration, now: Date, lang: String? = nil) -> CachedWeather? {
        guard let entry = self.latest(near: position), entry.lang == lang else { return nil }
        let age = now.timeIntervalSince(entry.fetchedAt)
        return age >= 0 && age < ttl.seconds ? entry : nil
    }

    /// Records weather fetched for `position` in `lang`'s words, replacing what was cached near it.
    package mutating func store(
        _ weather: Weather, for position: Position, at now: Date, airQuality: AirQuality? = nil, lang: String? = nil
    ) {
        self.entries.removeAll {
            Position.distance($0.latitude, $0.longitude, position.latitude, position.longitude) <= self.radiusMeters
        }
        self.entries.append(
            CachedWeather(
                latitude: position.latitude, longitude: position.longitude, weather: weather, fetchedAt: now,
                airQuality: airQuality, lang: lang)
        )
        if self.entries.count > self.capacity {
            self.entries.sort { $0.fetchedAt > $1.fetchedAt }
            self.entries.removeLast(self.entries.count - self.capacity)
        }
    }

    enum CodingKeys: String, CodingKey {
        case entries
        case radiusMeters = "radius_m"
        case capacity
    }
}

extension Duration {
    /// The duration in seconds, fractions included.
    package var seconds: Double {
        Double(self.components.seconds) + Double(self.components.attoseconds) / 1e18
    }
}
