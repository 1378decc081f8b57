import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The moon's phase at a moment, computed here, without any service.
///
/// The Moon–Sun elongation from the mean elements of Meeus, *Astronomical Algorithms* (2nd ed.), ch. 47, corrected
/// by the largest periodic terms of the Moon's longitude and the Sun's equation of centre (ch. 48, eq. 48.4); the
/// illuminated fraction is (1 + cos i) / 2 with i the phase angle. That places new and full moons within about an
/// hour of the published times (checked against 2024–2026 in the tests): plenty for a diary's moon.
package struct MoonPhase: Sendable, Equatable {
    package enum Name: String, Sendable, CaseIterable {
        case new, waxingCrescent = "waxing_crescent", firstQuarter = "first_quarter"
        case waxingGibbous = "waxing_gibbous", full, waningGibbous = "waning_gibbous"
        case lastQuarter = "last_quarter", waningCrescent = "waning_crescent"

        /// The moon as an emoji, for `{moon}`.
        package var emoji: String {
            switch self {
            case .new: return "🌑"
            case .waxingCrescent: return "🌒"
            case .firstQuarter: return "🌓"
            case .waxingGibbous: return "🌔"
            case .full: return "🌕"
            case .waningGibbous: return "🌖"
            case .lastQuarter: return "🌗"
            case .waningCrescent: return "🌘"
            }
        }
    }

    /// The Moon's elongation from the Sun, 0–360°: 0 new, 90 first quarter, 180 full, 270 last quarter.
    package var elongation: Double
    /// The lit fraction of the disc, 0–1.
    package var illumination: Double

    /// One of eight names, each covering 45° of elongation centred on its own point.
    package var name: Name {
        let index = Int(((self.elongation + 22.5) / 45).rounded(.down)) % 8
        return Name.allCases[index]
    }

    package init(at date: Date) {
        // Julian centuries since J2000.0 (TT ≈ UT here: the ~70 s difference moves the moon 0.01°).
        let julianDay = date.timeIntervalSince1970 / 86_400 + 2_440_587.5
        let t = (julianDay - 2_451_545.0) / 36_525
        func degrees(_ value: Double) -> Double {
            let reduced = value.truncatingRemainder(dividingBy: 360)
            return reduced < 0 ? reduced + 360 : reduced
        }
        func sine(_ degreesValue: Double) -> Double { sin(degreesValue * .pi / 180) }
        // Mean elongation of the Moon, mean anomalies of the Sun and the Moon (Meeus 47.2–47.4).
        let d = degrees(
            297.850_192_1 + 445_267.111_403_4 * t - 0.001_881_9 * t * t + t * t * t / 545_868
                - t * t * t * t / 113_065_000)
        let m = degrees(357.529_109_2 + 35_999.050_290_9 * t - 0.000_153_6 * t * t + t * t * t / 24_490_000)
        let moon = degrees(
            134.963_396_4 + 477_198.867_505_5 * t + 0.008_741_4 * t * t + t * t * t / 69_699
                - t * t * t * t / 14_712_000)
        // The phase angle i (48.4), turned into the true elongation 180° − i.
        let phaseAngle =
            180 - d - 6.289 * sine(moon) + 2.100 * sine(m) - 1.274 * sine(2 * d - moon) - 0.658 * sine(2 * d)
            - 0.214 * sine(2 * moon) - 0.110 * sine(d)
        self.elongation = degrees(180 - phaseAngle)
        self.illumination = (1 + cos(phaseAngle * .pi / 180)) / 2
    }
}
