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
