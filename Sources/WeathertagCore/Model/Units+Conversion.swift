/// The one place weathertag converts between units: every reader of an answer whose service measures in other units
/// (MET Norway and Day One in °C and m/s or km/h, Open-Meteo in °C where kelvin is asked), and the statistics that
/// compare entries stamped in different units, convert here.
extension Units {
    /// A temperature given in `units`, in these.
    package func temperature(_ value: Double, from units: Units) -> Double {
        guard units != self else { return value }
        let celsius: Double
        switch units {
        case .metric: celsius = value
        case .imperial: celsius = (value - 32) * 5 / 9
        case .standard: celsius = value - 273.15
        }
        switch self {
        case .metric: return celsius
        case .imperial: return celsius * 9 / 5 + 32
        case .standard: return celsius + 273.15
        }
    }

    /// A temperature measured in °C, in these units.
    package func temperature(celsius: Double) -> Double {
        self.temperature(celsius, from: .metric)
    }

    /// A speed measured in m/s, in these units (mph for imperial, m/s for the others).
    package func speed(metresPerSecond: Double) -> Double {
        self == .imperial ? metresPerSecond / Self.metresPerSecondInAMile : metresPerSecond
    }

    /// A speed measured in km/h, in these units.
    package func speed(kilometresPerHour: Double) -> Double {
        self.speed(metresPerSecond: kilometresPerHour / 3.6)
    }

    /// One mile an hour in m/s (1,609.344 m in 3,600 s).
    static let metresPerSecondInAMile = 0.447_04
}
