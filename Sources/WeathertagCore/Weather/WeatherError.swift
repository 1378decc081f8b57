/// Why a weather source gave no weather; its message names the source. Messages never contain a key or token.
package struct WeatherError: RecurringFailure, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// 401: the source refused the key (wrong, not active yet, or without the subscription asked for). Retrying
        /// soon will not help.
        case unauthorized
        /// 429: over the plan's rate; wait at least `retryAfter`.
        case rateLimited(retryAfter: Duration?)
        /// 404: the source has no data for the place.
        case notFound
        /// 5xx: the source's trouble; transient.
        case serverError(status: Int)
        /// The source refused this request for a reason of its own (Open-Meteo's 400 for a date it has nothing for):
        /// final for the entry, not an outage.
        case requestRefused
        /// Another status, or a body that is not the documented shape.
        case badResponse
        /// Nothing came back: refused, DNS, timeout.
        case unreachable
    }

    package var kind: Kind
    /// What to tell a person; never the key.
    package var message: String
    /// The lower layer's error behind it (the transport's), kept for code to inspect, never printed: only
    /// `message` is redacted.
    package var cause: (any Error)?

    package init(kind: Kind, message: String, cause: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.cause = cause
    }

    package var description: String { self.message }

    /// Equal when they say the same; the cause is not compared.
    package static func == (lhs: WeatherError, rhs: WeatherError) -> Bool {
        lhs.kind == rhs.kind && lhs.message == rhs.message
    }

    /// What stays the same when it comes again: its kind, not its words (a 503 after a 502 is the same trouble, and
    /// a message may name a time or a count).
    package var recurrenceKey: String {
        switch self.kind {
        case .unauthorized: return "unauthorized"
        case .requestRefused: return "request refused"
        case .rateLimited: return "rate limited"
        case .notFound: return "not found"
        case .serverError: return "server error"
        case .badResponse: return "bad response"
        case .unreachable: return "unreachable"
        }
    }

    /// What an HTTP status from a keyless service (`service`: "Open-Meteo", "MET Norway") says, or nil for a
    /// success: 429 is its limit (asked again in a minute at the soonest), 5xx its trouble, anything else a refusal.
    /// `detail` is what the service said, when it said something (`: Parameter 'latitude' is out of range`).
    ///   - retryAfter: the answer's `Retry-After` (`RetryAfter.parse`), obeyed for a 429.
    package static func status(
        _ status: Int, from service: String, detail: String = "", retryAfter: Duration? = nil
    ) -> WeatherError? {
        switch status {
        case 200, 203: return nil
        case 429:
            let wait = retryAfter ?? .seconds(60)
            return WeatherError(
                kind: .rateLimited(retryAfter: wait),
                message: "\(service)'s limit is reached (HTTP 429\(detail)); asked again in \(Int(wait.seconds)) s")
        case 500...599:
            return WeatherError(
                kind: .serverError(status: status), message: "\(service) had a server error (HTTP \(status))")
        default:
            return WeatherError(kind: .badResponse, message: "\(service) refused the request (HTTP \(status)\(detail))")
        }
    }

    /// The shortest sensible wait before asking again, on top of the exponential backoff.
    package var minimumRetryDelay: Duration {
        switch self.kind {
        case .unauthorized: return .seconds(600)
        // At least a minute (OpenWeather's advice), longer when the service's `Retry-After` says so.
        case .rateLimited(let retryAfter): return max(retryAfter ?? .seconds(60), .seconds(60))
        default: return .zero
        }
    }
}
