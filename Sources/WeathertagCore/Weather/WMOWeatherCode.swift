/// A WMO weather interpretation code (WMO 4677, as Open-Meteo gives it in `weather_code`) in OpenWeather's terms:
/// the condition group, an OpenWeather condition id of the same kind, its icon (`01d` … `50n`) and a description
/// in English or in the diarist's language (`WeatherWords`). Icons, waybar classes, templates and the timeline's
/// colours then work the same whoever answered.
package struct WMOWeatherCode: Sendable, Equatable {
    package var code: Int
    /// OpenWeather's group: `Clear`, `Clouds`, `Fog`, `Drizzle`, `Rain`, `Snow`, `Thunderstorm`.
    package var condition: String
    /// An OpenWeather condition id of the same kind (800 clear, 804 overcast, 501 moderate rain …).
    package var openWeatherID: Int
    /// The icon's number (`01` … `50`), without `d` or `n`.
    package var iconNumber: String
    private var english: String
    /// What it is, in the parts a language's words are made of.
    package var phenomenon: WeatherPhenomenon

    /// The codes Open-Meteo documents, and any other code of 0–99 as the nearest documented one of its kind; nil
    /// outside 0–99.
    package init?(_ code: Int) {
        guard (0...99).contains(code) else { return nil }
        let decade = code / 10
        let below = Self.table.keys.filter { $0 / 10 == decade && $0 <= code }.max()
        // 4–9 are smoke, haze and dust: OpenWeather's atmosphere group, as fog.
        let nearest = (4...9).contains(code) ? 45 : below ?? Self.decadeDefault[decade]
        guard let entry = Self.table[nearest] else { return nil }
        self.code = code
        (self.condition, self.openWeatherID, self.iconNumber, self.english, self.phenomenon) = entry
    }

    /// The icon code, day or night.
    package func icon(isDay: Bool) -> String { self.iconNumber + (isDay ? "d" : "n") }

    /// The description in `lang` (`weather.lang`), or in English for a language without weather words.
    package func description(in lang: String) -> String {
        WeatherWords.describe(self.phenomenon, in: lang) ?? self.english
    }

    /// An undocumented code with no documented one below it in its decade (WMO 4677 groups by tens: 10s mist and
    /// distant weather, 20s precipitation in the past hour but not now, 30s dust and blowing snow, 40s fog, 50s
    /// drizzle, 60s rain, 70s snow, 80s showers, 90s thunderstorms).
    private static let decadeDefault = [0, 45, 3, 45, 45, 51, 61, 71, 80, 95]

    private typealias Entry = (String, Int, String, String, WeatherPhenomenon)

    private static let table: [Int: Entry] = [
        0: ("Clear", 800, "01", "clear sky", .init(.clear)),
        1: ("Clouds", 801, "02", "mainly clear", .init(.mainlyClear)),
        2: ("Clouds", 802, "03", "partly cloudy", .init(.partlyCloudy)),
        3: ("Clouds", 804, "04", "overcast", .init(.overcast)),
        45: ("Fog", 741, "50", "fog", .init(.fog)),
        48: ("Fog", 741, "50", "depositing rime fog", .init(.rimeFog)),
        51: ("Drizzle", 300, "09", "light drizzle", .init(.drizzle, .light)),
        53: ("Drizzle", 301, "09", "drizzle", .init(.drizzle)),
        55: ("Drizzle", 302, "09", "dense drizzle", .init(.drizzle, .heavy)),
        56: ("Drizzle", 300, "09", "light freezing drizzle", .init(.freezingDrizzle, .light)),
        57: ("Drizzle", 302, "09", "dense freezing drizzle", .init(.freezingDrizzle, .heavy)),
        61: ("Rain", 500, "10", "light rain", .init(.rain, .light)),
        63: ("Rain", 501, "10", "moderate rain", .init(.rain)),
        65: ("Rain", 502, "10", "heavy rain", .init(.rain, .heavy)),
        66: ("Rain", 511, "13", "light freezing rain", .init(.freezingRain, .light)),
        67: ("Rain", 511, "13", "heavy freezing rain", .init(.freezingRain, .heavy)),
        71: ("Snow", 600, "13", "light snow", .init(.snow, .light)),
        73: ("Snow", 601, "13", "snow", .init(.snow)),
        75: ("Snow", 602, "13", "heavy snow", .init(.snow, .heavy)),
        77: ("Snow", 600, "13", "snow grains", .init(.snowGrains)),
        80: ("Rain", 520, "09", "light shower rain", .init(.rain, .light, showers: true)),
        81: ("Rain", 521, "09", "shower rain", .init(.rain, showers: true)),
        82: ("Rain", 522, "09", "violent shower rain", .init(.rain, .heavy, showers: true)),
        85: ("Snow", 620, "13", "light shower snow", .init(.snow, .light, showers: true)),
        86: ("Snow", 622, "13", "heavy shower snow", .init(.snow, .heavy, showers: true)),
        95: ("Thunderstorm", 211, "11", "thunderstorm", .init(.thunderstorm)),
        96: ("Thunderstorm", 201, "11", "thunderstorm with slight hail", .init(.thunderstorm, hail: .light)),
        99: ("Thunderstorm", 202, "11", "thunderstorm with heavy hail", .init(.thunderstorm, hail: .heavy)),
    ]

    /// The codes Open-Meteo documents.
    package static var documented: [Int] { Self.table.keys.sorted() }
}
