import Foundation

/// OpenWeather's unit systems.
public enum Units: String, Sendable, Codable, CaseIterable {
    /// Kelvin, m/s.
    case standard
    /// °C, m/s.
    case metric
    /// °F, mph.
    case imperial

    public var temperatureSymbol: String {
        switch self {
        case .standard: return " K"
        case .metric: return "°C"
        case .imperial: return "°F"
        }
    }
}

/// Current weather at one place, as OpenWeather reported it.
public struct Weather: Sendable, Equatable, Codable {
    /// The condition group, e.g. `Clouds`.
    public var condition: String
    /// The condition in the configured language, e.g. `broken clouds`.
    public var description: String
    /// OpenWeather's condition id, e.g. 803.
    public var code: Int
    /// The icon code, e.g. `04d`.
    public var icon: String
    public var temperature: Double
    public var feelsLike: Double?
    public var humidity: Int?
    public var pressure: Int?
    public var windSpeed: Double?
    public var units: Units
    /// When OpenWeather observed it (`dt`).
    public var observedAt: Date
    /// The place name OpenWeather gave; may be empty.
    public var place: String?

    public init(
        condition: String,
        description: String,
        code: Int,
        icon: String,
        temperature: Double,
        feelsLike: Double? = nil,
        humidity: Int? = nil,
        pressure: Int? = nil,
        windSpeed: Double? = nil,
        units: Units,
        observedAt: Date,
        place: String? = nil
    ) {
        self.condition = condition
        self.description = description
        self.code = code
        self.icon = icon
        self.temperature = temperature
        self.feelsLike = feelsLike
        self.humidity = humidity
        self.pressure = pressure
        self.windSpeed = windSpeed
        self.units = units
        self.observedAt = observedAt
        self.place = place
    }

    enum CodingKeys: String, CodingKey {
        case condition, description, code, icon, temperature, humidity, pressure, units, place
        case feelsLike = "feels_like"
        case windSpeed = "wind_speed"
        case observedAt = "observed_at"
    }
}
