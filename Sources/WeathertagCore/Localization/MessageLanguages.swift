/// Which catalogs a reader's words come from, in the order they are looked in.
///
/// The command line follows the environment as any GNU program does: the locale is the first of `LC_ALL`,
/// `LC_MESSAGES` and `LANG` that is set; under `C` or `POSIX` (or none) everything is English; otherwise `LANGUAGE`,
/// a colon list (`ko:ja`), comes first when set, and the locale when not. Unlike glibc's `gettext`, the locale need
/// not be installed (`locale-gen`): a `LANG=ko_KR.UTF-8` on a machine with only `C.UTF-8` still reads Korean.
/// The daemon's page and map follow the configuration (`timeline.lang`, else `weather.lang`), where OpenWeather's
/// codes (`kr`, `zh_cn`, `pt_br`) name the same languages.
///
/// Each name is tried as gettext tries it, from the most to the least particular: `de_AT@euro` looks in `de_AT@euro`,
/// `de@euro`, `de_AT` and `de` (the codeset is left out: weathertag's catalogs are UTF-8). English (`en`, `C`) in the
/// list ends it: the words are the code's own.
package enum MessageLanguages {
    /// The environment variable naming the folder of compiled catalogs (`LL/LC_MESSAGES/weathertag.mo`); the
    /// command line sets it to the folder shipped beside the executable.
    package static let directoryVariable = "WEATHERTAG_LOCALEDIR"
    /// The gettext domain: the catalogs' file name.
    package static let domain = "weathertag"

    /// The pseudo-language (`LANGUAGE=en_XA`, `timeline.lang: en-XA`): every message marked, accented and longer,
    /// so that words no catalog can translate show (`Messages.pseudo`).
    package static let pseudo = "en_XA"

    /// The catalog names to look in, from the environment (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`).
    package static func of(environment: [String: String]) -> [String] {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        guard let locale, locale != "C", locale != "POSIX" else { return [] }
        let language = environment["LANGUAGE"].flatMap { $0.isEmpty ? nil : $0 } ?? locale
        return Self.candidates(language.split(separator: ":").map(String.init))
    }

    /// The catalog names to look in for a configuration's language (`ko`, `kr`, `zh_cn`, `pt-BR`, `de_DE.UTF-8`).
    package static func of(setting: String) -> [String] {
        Self.candidates([setting])
    }

    /// The catalog name gettext uses for `name`: the language lower-case, its territory upper-case
    /// (`zh-tw` → `zh_TW`), and OpenWeather's codes as the languages they name (`kr` → `ko`, `ua` → `uk`).
    package static func normalized(_ name: String) -> String {
        var rest = Substring(name)
        var modifier = ""
        if let at = rest.firstIndex(of: "@") {
            modifier = String(rest[at...])
            rest = rest[..<at]
        }
        if let dot = rest.firstIndex(of: ".") { rest = rest[..<dot] }
        let parts = rest.split(whereSeparator: { $0 == "_" || $0 == "-" })
        guard let first = parts.first else { return "" }
        var language = first.lowercased()
        language = Self.openWeatherCodes[language] ?? language
        guard parts.count > 1 else { return language + modifier }
        return language + "_" + parts[1].uppercased() + modifier
    }

    /// OpenWeather's `lang` codes that are not the language's own ISO 639-1 code.
    static let openWeatherCodes = [
        "kr": "ko", "cz": "cs", "la": "lv", "ua": "uk", "se": "sv", "sp": "es", "al": "sq",
    ]

    private static func candidates(_ names: [String]) -> [String] {
        var result: [String] = []
        for name in names.prefix(16) {
            let normalized = Self.normalized(name)
            let language = String(normalized.prefix { $0 != "_" && $0 != "@" })
            if language.isEmpty { continue }
            // The pseudo-language is English marked (`Messages.pseudo`).
            if normalized == Self.pseudo {
                result.append(normalized)
                break
            }
            // English, or the C locale named in LANGUAGE, ends the list: the code's own words.
            if language == "en" || language == "c" || language == "posix" { break }
            let modifier = normalized.firstIndex(of: "@").map { String(normalized[$0...]) } ?? ""
            let territorial = modifier.isEmpty ? normalized : String(normalized.dropLast(modifier.count))
            var tried = [normalized]
            if !modifier.isEmpty { tried += [language + modifier, territorial] }
            tried.append(language)
            for candidate in tried where !result.contains(candidate) {
                result.append(candidate)
            }
        }
        return result
    }
}
