import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

/// The weather in the diarist's language for the sources that send a code and no words (Open-Meteo's WMO codes, MET
/// Norway's symbols): every code in every language of the catalog, OpenWeather's language codes, intensity, showers,
/// freezing, thunder and hail kept where a language's words allow, the data's errors corrected, English whole for
/// a language without words.
@Suite("weather words in every language")
struct WeatherWordsTests {
    /// OpenWeather's `lang` codes (its documentation's list).
    static let openWeather = [
        "af", "al", "ar", "az", "bg", "ca", "cz", "da", "de", "el", "en", "eu", "fa", "fi", "fr", "gl", "he", "hi",
        "hr",
        "hu", "id", "it", "ja", "kr", "la", "lt", "mk", "no", "nl", "pl", "pt", "pt_br", "ro", "ru", "sv", "se", "sk",
        "sl", "sp", "es", "sr", "th", "tr", "ua", "uk", "vi", "zh_cn", "zh_tw", "zu",
    ]
    /// Those the catalog has no words for: English, whole.
    static let withoutWords: Set = ["af", "al", "en", "eu", "gl", "mk", "th", "zu"]

    static func wmo(_ code: Int) throws -> WMOWeatherCode { try #require(WMOWeatherCode(code)) }
    static func met(_ code: String) throws -> METSymbolCode { try #require(METSymbolCode(code)) }

    @Test func openWeathersCodesAreTheCatalogsLanguages() {
        for lang in Self.openWeather {
            #expect((WeatherWords.language(for: lang) == nil) == Self.withoutWords.contains(lang), "\(lang)")
        }
        let expected = [
            "kr": "ko", "cz": "cs", "la": "lv", "ua": "uk", "se": "sv", "sp": "es", "zh_cn": "zh", "zh_tw": "zh-tw",
            "pt_br": "pt", "ko_KR.UTF-8": "ko", "zh-Hant": "zh-tw", "zh_HK": "zh-tw", "de_CH@euro": "de", "nb": "no",
        ]
        for (lang, code) in expected { #expect(WeatherWords.language(for: lang) == code, "\(lang)") }
        // 41 of OpenWeather's 49 codes (37 of its 45 languages other than English) have words.
        #expect(Self.openWeather.filter { WeatherWords.language(for: $0) != nil }.count == 41)
    }

    /// Every documented WMO code and every symbol of MET's legend, day and night, in every language of the catalog:
    /// words of that language, no placeholder left; the condition and the icon stay the machine's.
    @Test func everyCodeInEveryLanguage() throws {
        let languages = Self.openWeather.compactMap(WeatherWords.language(for:))
        for lang in Set(languages) {
            for code in WMOWeatherCode.documented {
                let words = try Self.wmo(code).description(in: lang)
                #expect(!words.isEmpty && !words.contains("$"), "\(lang) \(code): \(words)")
                #expect(words != (try Self.wmo(code).description(in: "en")) || lang == "tet", "\(lang) \(code)")
            }
            for symbol in METSymbolCode.legend {
                let words = try Self.met(symbol).description(in: lang)
                #expect(!words.isEmpty && !words.contains("$"), "\(lang) \(symbol): \(words)")
            }
        }
        #expect(try Self.wmo(61).condition == "Rain" && Self.met("heavysnowshowers_night").condition == "Snow")
    }

    /// The languages weathertag ships complete, each word checked by a reader of the language (the table is the
    /// test): intensity, showers, freezing, thunder and hail kept.
    @Test(arguments: [
        ("ko", [0: "맑음", 3: "흐림", 51: "약한 이슬비", 66: "약한 어는 비", 81: "소나기", 86: "강한 소낙눈", 96: "약한 우박을 동반한 뇌우"]),
        ("ja", [0: "晴れ", 2: "一部曇り", 55: "強い霧雨", 67: "強い着氷性の雨", 80: "弱いにわか雨", 77: "霧雪", 99: "強い雹を伴う雷雨"]),
        ("zh_cn", [3: "阴", 45: "雾", 63: "中雨", 75: "大雪", 82: "强阵雨", 77: "米雪", 96: "雷暴伴有小冰雹"]),
        ("zh_tw", [3: "陰", 45: "霧", 63: "中雨", 75: "大雪", 82: "強陣雨", 85: "小陣雪", 99: "雷暴伴有大冰雹"]),
        (
            "de",
            [
                0: "klar", 65: "starker Regen", 80: "leichte Regenschauer", 57: "starker gefrierender Nieselregen",
                96: "Gewitter mit leichtem Hagel",
            ]
        ),
        (
            "fr",
            [
                45: "brouillard", 48: "brouillard givrant", 81: "averses de pluie", 85: "faibles averses de neige",
                99: "orage avec forte grêle",
            ]
        ),
        (
            "es",
            [
                66: "lluvia helada ligera", 67: "lluvia helada fuerte", 82: "chubascos fuertes", 77: "cinarra",
                96: "tormenta con granizo ligero",
            ]
        ),
    ])
    func theShippedLanguagesKeepEveryPart(lang: String, expected: [Int: String]) throws {
        for (code, words) in expected {
            #expect(try Self.wmo(code).description(in: lang) == words, "\(lang) \(code)")
        }
    }

    @Test func metNorwaysSymbolsComposeShowersAndThunder() throws {
        let cases: [(String, String, String)] = [
            ("ko", "rainshowersandthunder_day", "뇌우를 동반한 소나기"),
            ("ko", "lightsleetshowers_night", "약한 진눈깨비 소나기"),
            ("ja", "heavysnowandthunder", "雷を伴う大雪"),
            ("zh_cn", "lightrainandthunder", "小雨伴有雷暴"),
            ("de", "lightrainandthunder", "leichter Regen mit Gewitter"),
            ("de", "heavysleetshowers_day", "starke Schneeregenschauer"),
            ("fr", "snowshowers_night", "averses de neige"),
            ("es", "rainshowersandthunder_day", "chubascos con tormenta"),
            ("ru", "rainshowersandthunder_day", "ливень с грозой"),
            // A language without showers words keeps the rain's intensity, in its own words (no English).
            ("pl", "lightrainshowers_day", try Self.wmo(61).description(in: "pl")),
        ]
        for (lang, symbol, words) in cases {
            #expect(try Self.met(symbol).description(in: lang) == words, "\(lang) \(symbol)")
        }
    }

    /// The data's errors, as the issue saw them and as reading each language found more: corrected, every one of
    /// weathertag's own words (`tools/weather-words.tsv`) in force, and the errors the generator drops (a word the same
    /// as its "possible" form) gone.
    @Test func theDatasErrorsAreCorrected() throws {
        #expect(try Self.met("sleet").description(in: "ru") == "мокрый снег", "not град (hail)")
        #expect(try Self.wmo(65).description(in: "de") == "starker Regen", "not Regenschauer (showers)")
        #expect(try Self.wmo(3).description(in: "zh_cn") == "阴", "not 多云转阴 (cloudy turning overcast)")
        #expect(try Self.wmo(96).description(in: "kr").contains("우박"), "hail, not 빗발")
        #expect(try !Self.wmo(67).description(in: "ko").contains("가능성"), "not 'possible'")
        let table = Fixtures.repositoryRoot + "/tools/weather-words.tsv"
        var rows = 0
        for line in try String(contentsOfFile: table, encoding: .utf8).split(separator: "\n")
        where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            #expect(
                fields.count == 4 && (fields[3].hasPrefix("correction: ") || fields[3].hasPrefix("added")), "\(line)")
            guard fields.count == 4 else { continue }
            #expect(WeatherWords.word(fields[1], in: fields[0]) == fields[2], "\(line)")
            rows += 1
        }
        #expect(rows > 150)
    }

    @Test func aLanguageWithoutWordsIsEnglishWhole() throws {
        for lang in ["th", "zu", "af", "xx", "en", "en_GB"] {
            #expect(try Self.wmo(82).description(in: lang) == "violent shower rain", "\(lang)")
            #expect(
                try Self.met("heavyrainshowersandthunder").description(in: lang) == "heavy rain showers and thunder")
            #expect(WeatherWords.source(for: lang) == nil)
        }
        #expect(WeatherWords.source(for: "kr")?.own ?? 0 > 20)
        #expect(WeatherWords.source(for: "lt")?.source == .homeAssistant)
    }

    /// A change of `weather.lang` applies from the next stamp, the cache's too: weather cached in another language's
    /// words is not fresh.
    @Test func cachedWeatherInAnotherLanguageIsNotFresh() {
        var cache = WeatherCache()
        let seoul = Fixtures.position
        cache.store(Fixtures.weather, for: seoul, at: Fixtures.observedAt, lang: "en")
        #expect(cache.fresh(near: seoul, ttl: .seconds(600), now: Fixtures.observedAt, lang: "en") != nil)
        #expect(cache.fresh(near: seoul, ttl: .seconds(600), now: Fixtures.observedAt, lang: "ja") == nil)
        cache.store(Fixtures.weather, for: seoul, at: Fixtures.observedAt, lang: "ja")
        #expect(cache.fresh(near: seoul, ttl: .seconds(600), now: Fixtures.observedAt, lang: "ja") != nil)
        #expect(cache.entries.count == 1)
    }
}
