import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Sunrise and sunset at a place, computed (the sunrise equation, as NOAA's calculator uses: within about two
/// minutes away from the poles), for sources that do not send them (MET Norway, a command).
package enum Sun {
    /// What the sun does on the place's solar day holding `date`: rise and set, or it stays up or down.
    package enum Day: Sendable, Equatable {
        case risesAndSets(sunrise: Date, sunset: Date)
        case alwaysUp
        case alwaysDown
    }

    package static func day(latitude: Double, longitude: Double, at date: Date) -> Day {
        let radians = Double.pi / 180
        let julian = date.timeIntervalSince1970 / 86_400 + 2_440_587.5
        // The solar day (noon at the place's meridian) nearest `date`.
        let days = (julian - 2_451_545.0 - 0.0009 + longitude / 360).rounded()
        let mean = days + 0.0009 - longitude / 360
        let anomaly = (357.5291 + 0.985_600_28 * mean).truncatingRemainder(dividingBy: 360)
        let center =
            1.9148 * sin(anomaly * radians) + 0.02 * sin(2 * anomaly * radians) + 0.0003 * sin(3 * anomaly * radians)
        let ecliptic = (anomaly + center + 180 + 102.9372).truncatingRemainder(dividingBy: 360)
        let transit =
            2_451_545.0 + mean + 0.0053 * sin(anomaly * radians) - 0.0069 * sin(2 * ecliptic * radians)
        let declination = asin(sin(ecliptic * radians) * sin(23.4397 * radians))
        let hourAngle =
            (sin(-0.833 * radians) - sin(latitude * radians) * sin(declination))
            / (cos(latitude * radians) * cos(declination))
        if hourAngle < -1 { return .alwaysUp }
        if hourAngle > 1 { return .alwaysDown }
        let half = acos(hourAngle) / radians / 360
        func unix(_ julian: Double) -> Date { Date(timeIntervalSince1970: (julian - 2_440_587.5) * 86_400) }
        return .risesAndSets(sunrise: unix(transit - half), sunset: unix(transit + half))
    }

    /// Whether the sun is up at `date` at the place.
    package static func isUp(latitude: Double, longitude: Double, at date: Date) -> Bool {
        switch Self.day(latitude: latitude, longitude: longitude, at: date) {
        case .risesAndSets(let sunrise, let sunset): return date >= sunrise && date < sunset
        case .alwaysUp: return true
        case .alwaysDown: return false
        }
    }
}

/// The apparent temperature (the Australian Bureau of Meteorology's formula, which Open-Meteo uses) from the air's
/// temperature (°C), relative humidity (%) and wind (m/s): for sources that do not send a "feels like".
package func apparentTemperature(celsius: Double, humidity: Double, windSpeed: Double) -> Double {
    let vapour = humidity / 100 * 6.105 * exp(17.27 * celsius / (237.7 + celsius))
    return celsius + 0.33 * vapour - 0.70 * windSpeed - 4.00
}
