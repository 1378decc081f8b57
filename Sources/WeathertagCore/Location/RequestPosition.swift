/// A position as it may leave the machine: a zone's centre, else rounded to `privacy.request_decimals`.
///
/// Only `PrivacyPolicy.requestPosition(_:)` makes one (the initializer is internal to the core), and every URL a
/// weather service is asked with takes one, so an exact position cannot reach a service by construction: not from
/// the daemon, not from `check`, not from `stamp`.
package struct RequestPosition: Sendable, Equatable, CustomStringConvertible {
    /// The rounded position (its coordinates are what the request carries; also the cache's key).
    package let position: Position
    /// The decimals its coordinates were rounded to.
    package let decimals: Int

    init(_ position: Position, decimals: Int) {
        self.position = position
        self.decimals = decimals
    }

    package var latitude: Double { self.position.latitude }
    package var longitude: Double { self.position.longitude }

    /// `46.20,6.14`: the cell of about 1 km (2 decimals) a kept answer or a place name is filed under.
    package var cell: String { PlaceNameCache.cell(self.position) }

    package var description: String { "\(self.latitude),\(self.longitude)" }
}
