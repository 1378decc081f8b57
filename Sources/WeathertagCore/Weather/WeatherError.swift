/// Why there is no weather from OpenWeather. Messages never contain the API key.
public struct WeatherError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// 401: the key is wrong or not active yet. Retrying soon will not help.
        case invalidAPIKey
        /// 429: over the plan's rate; wait at least `retryAfter`.
        case rateLimited(retryAfter: Duration?)
        /// 404: OpenWeather has no data for the place.
        case notFound
        /// 5xx: OpenWeather's trouble; transient.
        case serverError(status: Int)
        /// Another status, or a body that is not the documented shape.
        case badResponse
        /// Nothing came back: refused, DNS, timeout.
        case unreachable
    }

    public var kind: Kind
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { self.message }

    /// The shortest sensible wait before asking again, on top of the exponential backoff.
    public var minimumRetryDelay: Duration {
        switch self.kind {
        case .invalidAPIKey: return .seconds(600)
        case .rateLimited(let retryAfter): return max(retryAfter ?? .seconds(60), .seconds(60))
        default: return .zero
        }
    }
}
