import Foundation
import WeathertagCore

/// A provider that is always at one place: the tests' stand-in for a plugin's provider.
public struct StaticLocationProvider: LocationProvider {
    public let type: String
    public let timeout: Duration = .seconds(1)
    public let position: Position

    public init(_ position: Position) {
        self.type = position.source
        self.position = position
    }

    public func locate() async throws -> Position { self.position }
}

/// A weather source that always answers the same, or always fails: the tests' stand-in for a source plugin. Counts
/// the positions it was asked about.
public final class StaticWeatherSource: WeatherSource, @unchecked Sendable {
    public let type: String
    public let maximumCallsPerMinute: Int
    private let answer: Result<Weather, WeatherError>
    private let lock = NSLock()
    private var asked: [RequestPosition] = []

    public init(_ weather: Weather, type: String = "static", maximumCallsPerMinute: Int = 60) {
        self.type = type
        self.answer = .success(weather)
        self.maximumCallsPerMinute = maximumCallsPerMinute
    }

    public init(failing error: WeatherError, type: String = "failing") {
        self.type = type
        self.answer = .failure(error)
        self.maximumCallsPerMinute = 60
    }

    /// The positions asked about, in order.
    public var requests: [RequestPosition] { self.lock.withLock { self.asked } }

    public func currentWeather(at position: RequestPosition) async throws(WeatherError) -> Weather {
        self.lock.withLock { self.asked.append(position) }
        return try self.answer.get()
    }
}
