/// What the weather is, in the parts a language's words are made of: WMO's codes (Open-Meteo) and MET Norway's
/// symbols both say it so, and `WeatherWords` composes a description of it in the diarist's language.
package struct WeatherPhenomenon: Hashable, Sendable {
    package enum Kind: Hashable, Sendable {
        case clear, mainlyClear, partlyCloudy, cloudy, overcast, fog, rimeFog
        case drizzle, freezingDrizzle, rain, freezingRain, sleet, snow, snowGrains
        case thunderstorm
    }

    package enum Intensity: Hashable, Sendable {
        case light, moderate, heavy
    }

    package var kind: Kind
    package var intensity: Intensity
    /// Showers: precipitation that starts and stops (WMO 80–86, MET's `…showers`).
    package var showers: Bool
    /// Precipitation with thunder (MET's `…andthunder`).
    package var thunder: Bool
    /// A thunderstorm with hail, this heavy (WMO 96, 99).
    package var hail: Intensity?

    package init(
        _ kind: Kind, _ intensity: Intensity = .moderate, showers: Bool = false, thunder: Bool = false,
        hail: Intensity? = nil
    ) {
        self.kind = kind
        self.intensity = intensity
        self.showers = showers
        self.thunder = thunder
        self.hail = hail
    }
}

/// Weather words in the diarist's language (`weather.lang`) for the sources that give a code and no words: Open-Meteo
/// (WMO codes), MET Norway (symbols) and a `command` that prints either. OpenWeather answers in its `lang` itself.
///
/// The words are the catalog's (`WeatherWords+Catalog.swift`, made by `tools/weather-words.py` from Pirate Weather's
/// translations, Home Assistant's, and weathertag's own corrections and additions in `tools/weather-words.tsv`): a
/// word for each weather a language names, keyed as Pirate Weather keys them (`light-rain`, `heavy-clouds`, …) and
/// finer where weathertag adds them (`light-rain-showers`, `snow-grains`, …), and templates that join them (`with`:
/// `$1 mit $2`; `and-thunder`: `$1 mit Gewitter`). A description takes the finest word its language has: intensity,
/// showers, freezing, thunder and hail are kept wherever the language's words allow, and a coarser word of the same
/// language stands in where they do not (a language without showers words says `light rain` for light showers). A
/// language the catalog does not have is described in English whole, never a mix.
package enum WeatherWords {
    /// One language's words.
    package struct Language: Sendable {
        /// Where its words came from.
        package enum Source: String, Sendable {
            case pirateWeather = "Pirate Weather's translations (BSD-2-Clause)"
            case homeAssistant = "Home Assistant's weather states (Apache-2.0), coarse"
        }

        package var source: Source
        /// How many of its words are weathertag's own (`tools/weather-words.tsv`: corrections and additions).
        package var own: Int
        package var words: [String: String]
    }

    /// The catalog's language for `lang` (`weather.lang`): an OpenWeather code (`kr`, `zh_cn`, `pt_br`, `ua`, `la`,
    /// `cz`, `se`, `sp`, `al`), a language (`ko`, `zh-TW`) or a locale's name (`ko_KR.UTF-8`); nil for English and for
    /// a language without words.
    package static func language(for lang: String) -> String? {
        var code = lang.lowercased()
        if let cut = code.firstIndex(where: { $0 == "." || $0 == "@" }) { code = String(code[..<cut]) }
        code = code.replacing("_", with: "-")
        if let alias = Self.aliases[code] { code = alias }
        if Self.catalog[code] != nil { return code }
        let primary = String(code.prefix { $0 != "-" })
        let base = Self.aliases[primary] ?? primary
        return Self.catalog[base] != nil ? base : nil
    }

    /// OpenWeather's codes and other names for the catalog's languages.
    private static let aliases: [String: String] = [
        "kr": "ko", "cz": "cs", "la": "lv", "ua": "uk", "al": "sq", "sp": "es", "se": "sv", "nb": "no", "nn": "no",
        "iw": "he", "zh-cn": "zh", "zh-hans": "zh", "zh-sg": "zh", "zh-hant": "zh-tw", "zh-hk": "zh-tw",
        "zh-mo": "zh-tw", "pt-br": "pt",
    ]

    /// Where `lang`'s words come from, and how many are weathertag's own, for `check`; nil for English and for a
    /// language without words.
    package static func source(for lang: String) -> (source: Language.Source, own: Int)? {
        Self.language(for: lang).flatMap { Self.catalog[$0] }.map { ($0.source, $0.own) }
    }

    /// The word `key` in `lang`'s words, as the catalog has it; nil when it has none.
    package static func word(_ key: String, in lang: String) -> String? {
        Self.language(for: lang).flatMap { Self.catalog[$0]?.words[key] }
    }

    /// `phenomenon` in `lang`'s words; nil for English and for a language without words (the caller says it in
    /// English).
    package static func describe(_ phenomenon: WeatherPhenomenon, in lang: String) -> String? {
        guard let code = Self.language(for: lang), let words = Self.catalog[code]?.words else { return nil }
        return Self.describe(phenomenon, words)
    }

    static func describe(_ phenomenon: WeatherPhenomenon, _ words: [String: String]) -> String {
        func word(_ keys: [String]) -> String { keys.lazy.compactMap { words[$0] }.first ?? keys.last ?? "" }
        if phenomenon.kind == .thunderstorm {
            guard let hail = phenomenon.hail else { return word(["thunderstorm"]) }
            let size = hail == .heavy ? "heavy" : "light"
            if let phrase = words["thunderstorm-with-\(size)-hail"] { return phrase }
            let (storm, stones) = (word(["thunderstorm"]), word(["\(size)-hail", "hail"]))
            return Self.fill(words["with-hail"] ?? words["with"] ?? "$1, $2", storm, stones)
        }
        let described = word(Self.keys(phenomenon))
        guard phenomenon.thunder else { return described }
        if let template = words["and-thunder"] { return Self.fill(template, described) }
        return Self.fill(words["with"] ?? "$1, $2", described, word(["thunderstorm"]))
    }

    /// The keys that may name `phenomenon`, the finest first; the last is one every language of the catalog has.
    static func keys(_ phenomenon: WeatherPhenomenon) -> [String] {
        let size = ["light", "medium", "heavy"][[.light, .moderate, .heavy].firstIndex(of: phenomenon.intensity) ?? 1]
        switch phenomenon.kind {
        case .clear: return ["clear"]
        case .mainlyClear: return ["very-light-clouds", "light-clouds"]
        case .partlyCloudy: return ["light-clouds"]
        case .cloudy, .overcast: return ["heavy-clouds", "medium-clouds"]
        case .fog: return ["fog"]
        case .rimeFog: return ["rime-fog", "fog"]
        case .drizzle:
            let own = phenomenon.intensity == .moderate ? [] : ["\(size)-drizzle"]
            return own + ["very-light-rain", "light-rain", "medium-rain"]
        case .freezingDrizzle:
            let own = phenomenon.intensity == .moderate ? [] : ["\(size)-freezing-drizzle"]
            return own + ["very-light-freezing-rain", "light-freezing-rain", "medium-freezing-rain", "medium-rain"]
        case .freezingRain:
            return ["\(size)-freezing-rain", "medium-freezing-rain", "\(size)-rain", "medium-rain"]
        case .rain, .sleet, .snow:
            let noun = phenomenon.kind == .rain ? "rain" : phenomenon.kind == .sleet ? "sleet" : "snow"
            let plain = ["\(size)-\(noun)", "medium-\(noun)"]
            guard phenomenon.showers else { return plain + (noun == "sleet" ? ["medium-snow"] : []) }
            let showers = phenomenon.intensity == .moderate ? [] : ["\(size)-\(noun)-showers"]
            return showers + ["\(noun)-showers"] + plain + (noun == "sleet" ? ["medium-snow"] : [])
        case .snowGrains: return ["snow-grains", "light-snow", "medium-snow"]
        case .thunderstorm: return ["thunderstorm"]
        }
    }

    /// `template` with `$1` and `$2` filled in.
    static func fill(_ template: String, _ first: String, _ second: String = "") -> String {
        template.replacing("$1", with: first).replacing("$2", with: second)
    }
}
