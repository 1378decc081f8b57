/// The OpenWeather API key. Prints as a mask so it cannot slip into a log line or an error.
public struct APIKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    public var value: String
    /// Where it came from, for `weathertag check` (never the key itself).
    public var origin: String

    public init(_ value: String, origin: String) {
        self.value = value
        self.origin = origin
    }

    public var description: String { "<api key from \(self.origin)>" }
    public var debugDescription: String { self.description }
}

public struct OpenWeatherConfiguration: Sendable {
    public var apiKey: APIKey
    public var baseURL = "https://api.openweathermap.org"
    public var iconBaseURL = "https://openweathermap.org/img/wn"
    public var units = Units.metric
    public var lang = "en"
    public var timeout: Duration = .seconds(10)

    public init(apiKey: APIKey) {
        self.apiKey = apiKey
    }
}

public struct CacheConfiguration: Sendable {
    /// Holds `weather.json` and `icons/`.
    public var directory: String
    /// How long weather for one place is reused before OpenWeather is asked again.
    public var ttl: Duration = .seconds(600)

    public init(directory: String) {
        self.directory = directory
    }
}

public struct InboxConfiguration: Sendable {
    /// The watched folder; must exist.
    public var path: String

    public init(path: String) {
        self.path = path
    }
}

public struct SocketConfiguration: Sendable {
    public var path: String

    public init(path: String) {
        self.path = path
    }
}
