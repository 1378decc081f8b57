/// A position as it may leave the machine: a zone's centre, else rounded to `privacy.request_decimals`.
///
/// Only `PrivacyPolicy.requestPosition(_:)` makes one (the initializer is internal to the core), and every URL a
/// weather service is asked with takes one, so an exact position cannot reach a service by construction: not from
/// the daemon, not from `check`, not from `stamp`.
public struct RequestPosition: Sendable, Equatable, CustomStringConvertible {
    /// The rounded position (its coordinates are what the request carries; also the cache's key).
    public let position: Position
    /// The decimals its coordinates were rounded to.
    public let decimals: Int

    init(_ position: Position, decimals: Int) {
        self.position = position
        self.decimals = decimals
    }

    public var latitude: Double { self.position.latitude }
    public var longitude: Double { self.position.longitude }

    /// `46.20,6.14`: the cell of about 1 km (2 decimals) a kept answer or a place name is filed under.
    public var cell: String { PlaceNameCache.cell(self.position) }

    public var description: String { "\(self.latitude),\(self.longitude)" }
}
