import Foundation

/// The air at a place, from OpenWeather's air pollution API (`air_quality.enabled`).
public struct AirQuality: Sendable, Equatable, Codable {
    /// OpenWeather's index: 1 good, 2 fair, 3 moderate, 4 poor, 5 very poor.
    public var aqi: Int
    /// µg/m³, when sent.
    public var pm2_5: Double?
    public var pm10: Double?
    public var o3: Double?
    public var no2: Double?

    public init(aqi: Int, pm2_5: Double? = nil, pm10: Double? = nil, o3: Double? = nil, no2: Double? = nil) {
        self.aqi = aqi
        self.pm2_5 = pm2_5
        self.pm10 = pm10
        self.o3 = o3
        self.no2 = no2
    }

    /// `good`, `fair`, `moderate`, `poor`, `very_poor`.
    public var label: String {
        switch self.aqi {
        case ...1: return "good"
        case 2: return "fair"
        case 3: return "moderate"
        case 4: return "poor"
        default: return "very_poor"
        }
    }
}
