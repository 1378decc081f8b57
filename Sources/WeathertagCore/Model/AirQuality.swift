import FoundationEssentials

/// The air at a place (`air_quality.enabled`), from OpenWeather's air pollution API or Open-Meteo's air quality
/// API.
package struct AirQuality: Sendable, Equatable, Codable {
    /// Which index `aqi` is on.
    package enum Scale: String, Sendable, Codable {
        /// OpenWeather's: 1 good, 2 fair, 3 moderate, 4 poor, 5 very poor.
        case openWeather = "openweather"
        /// The European Air Quality Index (Open-Meteo's `european_aqi`): 0–20 good, 20–40 fair, 40–60 moderate,
        /// 60–80 poor, 80–100 very poor, above 100 extremely poor.
        case european
    }

    /// The index on `scale`.
    package var aqi: Int
    package var scale: Scale
    /// µg/m³, when sent.
    package var pm2_5: Double?
    package var pm10: Double?
    package var o3: Double?
    package var no2: Double?

    package init(
        aqi: Int, scale: Scale = .openWeather, pm2_5: Double? = nil, pm10: Double? = nil, o3: Double? = nil,
        no2: Double? = nil
    ) {
        self.aqi = aqi
        self.scale = scale
        self.pm2_5 = pm2_5
        self.pm10 = pm10
        self.o3 = o3
        self.no2 = no2
    }

    enum CodingKeys: String, CodingKey {
        case aqi, scale, pm2_5, pm10, o3, no2
    }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        self.aqi = try fields.decode(Int.self, forKey: .aqi)
        // Caches written before there was a second scale hold OpenWeather's.
        self.scale = try fields.decodeIfPresent(Scale.self, forKey: .scale) ?? .openWeather
        self.pm2_5 = try fields.decodeIfPresent(Double.self, forKey: .pm2_5)
        self.pm10 = try fields.decodeIfPresent(Double.self, forKey: .pm10)
        self.o3 = try fields.decodeIfPresent(Double.self, forKey: .o3)
        self.no2 = try fields.decodeIfPresent(Double.self, forKey: .no2)
    }

    /// `good`, `fair`, `moderate`, `poor`, `very_poor` (and on the European index, `extremely_poor`).
    package var label: String {
        if self.scale == .european {
            switch self.aqi {
            case ..<20: return "good"
            case ..<40: return "fair"
            case ..<60: return "moderate"
            case ..<80: return "poor"
            case ...100: return "very_poor"
            default: return "extremely_poor"
            }
        }
        switch self.aqi {
        case ...1: return "good"
        case 2: return "fair"
        case 3: return "moderate"
        case 4: return "poor"
        default: return "very_poor"
        }
    }
}
