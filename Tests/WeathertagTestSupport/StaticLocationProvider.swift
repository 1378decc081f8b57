import Foundation
import WeathertagCore

/// A provider that is always at one place: the tests' stand-in for a plugin's provider.
package struct StaticLocationProvider: LocationProvider {
    package let type: String
    package let timeout: Duration = .seconds(1)
    package let position: Position

    package init(_ position: Position) {
        self.type = position.source
        self.position = position
    }

    package func locate() async throws -> Position { self.position }
}

/// A weather source that always answers the same, or always fails: the tests' stand-in for a source plugin. Counts
/// the positions it was asked about.
package final class StaticWeatherSource: WeatherSource, @unchecked Sendable {
    package let type: String
    package let maximumCallsPerMinute: Int
    private let answer: Result<Weather, WeatherError>
    private let lock = NSLock()
    private var asked: [RequestPosition] = []

    package init(_ weather: Weather, type: String = "static", maximumCallsPerMinute: Int = 60) {
        self.type = type
        self.answer = .success(weather)
        self.maximumCallsPerMinute = maximumCallsPerMinute
    }

    package init(failing error: WeatherError, type: String = "failing") {
        self.type = type
        self.answer = .failure(error)
        self.maximumCallsPerMinute = 60
    }

    /// The positions asked about, in order.
    package var requests: [RequestPosition] { self.lock.withLock { self.asked } }

    package func currentWeather(at position: RequestPosition) async throws(WeatherError) -> Weather {
        self.lock.withLock { self.asked.append(position) }
        return try self.answer.get()
    }
}
