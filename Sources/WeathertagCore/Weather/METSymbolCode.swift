/// A MET Norway symbol code (`clearsky_day`, `lightrainshowers_night`, `heavysnowandthunder`, …) in OpenWeather's
/// terms: its condition group, condition id, icon and words (English, or the diarist's language: `WeatherWords`), as
/// `WMOWeatherCode` does for Open-Meteo. Every code of MET's weather icon legend is known, their two
/// misspelt ones (`lightssleetshowersandthunder`, `lightssnowshowersandthunder`) included.
package struct METSymbolCode: Sendable, Equatable {
    package var code: String
    package var condition: String
    package var openWeatherID: Int
    /// `01`…`50`; the day or night letter comes from the code's variant, else from the sun.
    package var iconNumber: String
    /// `_day`, `_night` or `_polartwilight`; nil for codes that have no variant (`cloudy`, `rain`, `fog`).
    package var isDay: Bool?
    private var english: String
    /// What it is, in the parts a language's words are made of.
    package var phenomenon: WeatherPhenomenon

    package init?(_ code: String) {
        self.code = code
        var base = Substring(code)
        for (suffix, day) in [("_day", true), ("_night", false), ("_polartwilight", false)]
        where base.hasSuffix(suffix) {
            base = base.dropLast(suffix.count)
            self.isDay = day
        }
        if let sky = Self.skies[String(base)] {
            (self.condition, self.openWeatherID, self.iconNumber, self.english, self.phenomenon) = sky
        } else if let precipitation = Precipitation(base) {
            (self.condition, self.openWeatherID, self.iconNumber) = precipitation.openWeather
            (self.english, self.phenomenon) = (precipitation.english, precipitation.phenomenon)
        } else {
            return nil
        }
    }

    /// The codes without precipitation.
    private static let skies: [String: (String, Int, String, String, WeatherPhenomenon)] = [
        "clearsky": ("Clear", 800, "01", "clear sky", .init(.clear)),
        "fair": ("Clouds", 801, "02", "fair", .init(.mainlyClear)),
        "partlycloudy": ("Clouds", 802, "03", "partly cloudy", .init(.partlyCloudy)),
        "cloudy": ("Clouds", 804, "04", "cloudy", .init(.cloudy)),
        "fog": ("Fog", 741, "50", "fog", .init(.fog)),
    ]

    package func icon(isDay fallback: Bool) -> String { self.iconNumber + ((self.isDay ?? fallback) ? "d" : "n") }

    /// The description in `lang` (`weather.lang`), or in English for a language without weather words.
    package func description(in lang: String) -> String {
        WeatherWords.describe(self.phenomenon, in: lang) ?? self.english
    }

    /// Whether its precipitation falls as snow or sleet (its amount is then snow).
    package var isSnow: Bool { self.condition == "Snow" }

    /// `[light|heavy](rain|sleet|snow)[showers][andthunder]`.
    private struct Precipitation {
        enum Kind: String { case rain, sleet, snow }
        var intensity: Int  // 0 light, 1 moderate, 2 heavy
        var kind: Kind
        var showers: Bool
        var thunder: Bool

        init?(_ code: Substring) {
            var rest = code
            self.intensity = 1
            // MET's legend spells two codes `lights…`.
            for (prefix, value) in [("lights", 0), ("light", 0), ("heavy", 2)] where rest.hasPrefix(prefix) {
                if prefix == "lights", !(rest.hasPrefix("lightssleet") || rest.hasPrefix("lightssnow")) { continue }
                rest = rest.dropFirst(prefix.count)
                self.intensity = value
                break
            }
            self.thunder = rest.hasSuffix("andthunder")
            if self.thunder { rest = rest.dropLast("andthunder".count) }
            self.showers = rest.hasSuffix("showers")
            if self.showers { rest = rest.dropLast("showers".count) }
            guard let kind = Kind(rawValue: String(rest)) else { return nil }
            self.kind = kind
        }

        var openWeather: (String, Int, String) {
            if self.thunder { return ("Thunderstorm", [200, 201, 202][self.intensity], "11") }
            switch self.kind {
            case .rain:
                return self.showers
                    ? ("Rain", [520, 521, 522][self.intensity], "09") : ("Rain", [500, 501, 502][self.intensity], "10")
            case .sleet:
                return (
                    "Snow", self.showers ? [612, 613, 613][self.intensity] : [611, 611, 611][self.intensity], "13"
                )
            case .snow:
                return (
                    "Snow", self.showers ? [620, 621, 622][self.intensity] : [600, 601, 602][self.intensity], "13"
                )
            }
        }

        var english: String {
            ["light ", "", "heavy "][self.intensity] + self.kind.rawValue + (self.showers ? " showers" : "")
                + (self.thunder ? " and thunder" : "")
        }

        var phenomenon: WeatherPhenomenon {
            let kind: WeatherPhenomenon.Kind = self.kind == .rain ? .rain : self.kind == .sleet ? .sleet : .snow
            return WeatherPhenomenon(
                kind, [.light, .moderate, .heavy][self.intensity], showers: self.showers, thunder: self.thunder)
        }
    }

    /// Every base code of MET's legend (before `_day`, `_night`, `_polartwilight`).
    package static let legend = [
        "clearsky", "fair", "partlycloudy", "cloudy", "fog",
        "lightrain", "rain", "heavyrain", "lightrainshowers", "rainshowers", "heavyrainshowers",
        "lightrainandthunder", "rainandthunder", "heavyrainandthunder", "lightrainshowersandthunder",
        "rainshowersandthunder", "heavyrainshowersandthunder",
        "lightsleet", "sleet", "heavysleet", "lightsleetshowers", "sleetshowers", "heavysleetshowers",
        "lightsleetandthunder", "sleetandthunder", "heavysleetandthunder", "lightssleetshowersandthunder",
        "sleetshowersandthunder", "heavysleetshowersandthunder",
        "lightsnow", "snow", "heavysnow", "lightsnowshowers", "snowshowers", "heavysnowshowers",
        "lightsnowandthunder", "snowandthunder", "heavysnowandthunder", "lightssnowshowersandthunder",
        "snowshowersandthunder", "heavysnowshowersandthunder",
    ]
}
