import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

@Suite("Weather cache policy")
struct WeatherCacheTests {
    let start = Fixtures.observedAt
    let seoul = Fixtures.position

    func position(_ latitude: Double, _ longitude: Double) -> Position {
        Position(latitude: latitude, longitude: longitude, source: "test", takenAt: self.start)
    }

    @Test func freshWithinTTLAndExpiredAfter() {
        var cache = WeatherCache()
        cache.store(Fixtures.weather, for: self.seoul, at: self.start)
        #expect(cache.fresh(near: self.seoul, ttl: .seconds(600), now: self.start) != nil)
        #expect(cache.fresh(near: self.seoul, ttl: .seconds(600), now: self.start.addingTimeInterval(599)) != nil)
        #expect(cache.fresh(near: self.seoul, ttl: .seconds(600), now: self.start.addingTimeInterval(600)) == nil)
        // Expired is still there for stale answers.
        #expect(cache.latest(near: self.seoul)?.weather == Fixtures.weather)
    }

    @Test func placesWithinAKilometreShareAnEntry() {
        var cache = WeatherCache()
        cache.store(Fixtures.weather, for: self.seoul, at: self.start)
        // ~0.8 km north: same place. ~1.5 km north: another place.
        let near = self.position(self.seoul.latitude + 0.0072, self.seoul.longitude)
        let far = self.position(self.seoul.latitude + 0.0135, self.seoul.longitude)
        #expect(near.distance(to: self.seoul) < 1_000 && far.distance(to: self.seoul) > 1_000)
        #expect(cache.fresh(near: near, ttl: .seconds(600), now: self.start) != nil)
        #expect(cache.fresh(near: far, ttl: .seconds(600), now: self.start) == nil)
    }

    @Test func storingReplacesTheEntryForThatPlace() {
        var cache = WeatherCache()
        cache.store(Fixtures.weather, for: self.seoul, at: self.start)
        var rainy = Fixtures.weather
        rainy.condition = "Rain"
        cache.store(rainy, for: self.position(self.seoul.latitude + 0.001, self.seoul.longitude), at: self.start + 700)
        #expect(cache.entries.count == 1)
        #expect(cache.fresh(near: self.seoul, ttl: .seconds(600), now: self.start + 800)?.weather.condition == "Rain")
    }

    @Test func capacityEvictsTheOldest() {
        var cache = WeatherCache(capacity: 3)
        for index in 0..<5 {
            cache.store(Fixtures.weather, for: self.position(Double(index), 0), at: self.start + Double(index))
        }
        #expect(cache.entries.count == 3)
        #expect(cache.latest(near: self.position(0, 0)) == nil)
        #expect(cache.latest(near: self.position(4, 0)) != nil)
    }

    @Test func weatherFromTheFutureIsNotFresh() {
        var cache = WeatherCache()
        cache.store(Fixtures.weather, for: self.seoul, at: self.start + 60)
        #expect(cache.fresh(near: self.seoul, ttl: .seconds(600), now: self.start) == nil)
    }

    @Test func survivesEncoding() throws {
        var cache = WeatherCache()
        cache.store(Fixtures.weather, for: self.seoul, at: self.start)
        let decoded = try JSONDecoder().decode(WeatherCache.self, from: JSONEncoder().encode(cache))
        #expect(decoded == cache)
    }
}

@Suite("Backoff")
struct BackoffTests {
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            self.state = self.state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return self.state
        }
    }

    @Test func growsExponentiallyWithJitterUpToTheCeiling() {
        var backoff = Backoff(base: .seconds(1), ceiling: .seconds(60))
        var generator = SeededGenerator(state: 42)
        let delays = (0..<10).map { _ in backoff.next(using: &generator).seconds }
        for (attempt, delay) in delays.enumerated() {
            let full = min(pow(2, Double(attempt)), 60)
            #expect(delay >= full / 2 - 0.001 && delay <= full + 0.001, "attempt \(attempt): \(delay)")
        }
        #expect(delays.last! <= 60)
        backoff.reset()
        #expect(backoff.next(using: &generator).seconds <= 1)
    }
}
