/// The words a person reads, in their language: every view's sentences go through `tr`, whose English is the code's
/// own and the key of each translation (gettext's way: `po/weathertag.pot` is made from the `tr(…)` calls by
/// `tools/make-pot.py`, `po/LL.po` translates it, `msgfmt` compiles `LL.mo`).
///
/// A message names what it holds in braces (`{count} stamped`), so a language can put them where its grammar wants
/// them (`po` files mark such messages `python-brace-format`, which `msgfmt --check` checks); `{{` and `}}` are
/// braces themselves. A message with a count has a plural (`tr(_:plural:count:)`), and the catalog's `Plural-Forms`
/// picks the form. A message the catalogs lack is said in English.
///
/// The pseudo-language (`en-XA`, as Android and Chromium have it) wraps each message's own words in `⟦…⟧` and
/// accents and lengthens them: a view that shows English outside the brackets shows words that never reach a
/// translator.
/// Machine output (`--json`, `/v1/*`, the stamp's keys) never goes through here.
package struct Messages: Sendable {
    private enum Voice: Sendable {
        case source
        case catalogs([MessageCatalog])
        case pseudo
    }

    private let voice: Voice
    /// The language the words are in (`en`, `ko`, `zh_TW`, `en-XA`): the first catalog's.
    package let language: String

    /// The code's own English.
    package static let english = Messages(voice: .source, language: "en")
    /// Every message marked, accented and longer.
    package static let pseudo = Messages(voice: .pseudo, language: "en-XA")

    private init(voice: Voice, language: String) {
        self.voice = voice
        self.language = language
    }

    /// Words from `catalogs`, the first that has a message giving it; English when none does.
    package init(language: String, catalogs: [MessageCatalog]) {
        self.init(voice: catalogs.isEmpty ? .source : .catalogs(catalogs), language: catalogs.isEmpty ? "en" : language)
    }

    /// Whether the words are the code's own English.
    package var isEnglish: Bool {
        if case .source = self.voice { return true }
        return false
    }

    /// `id` in the reader's language, its `{name}`s replaced by `arguments`.
    package func tr(
        _ id: StaticString, context: StaticString? = nil, _ arguments: KeyValuePairs<String, String> = [:]
    ) -> String {
        Self.format(self.template(id.description, context: context?.description), Array(arguments))
    }

    /// `message`, a catalog's id kept as text (`Said`), in the reader's language, its names filled.
    package func translated(_ message: String, _ arguments: [(key: String, value: String)]) -> String {
        Self.format(self.template(message, context: nil), arguments)
    }

    /// The template of `source` in the reader's language.
    private func template(_ source: String, context: String?) -> String {
        switch self.voice {
        case .source: return source
        case .pseudo: return Self.pseudo(source)
        case .catalogs(let catalogs):
            return catalogs.lazy.compactMap { $0.translation(source, context: context) }.first ?? source
        }
    }

    /// `id` or `plural` as `count` wants in the reader's language, `{count}` and the other `{name}`s replaced.
    package func tr(
        _ id: StaticString, plural: StaticString, count: Int, context: StaticString? = nil,
        _ arguments: KeyValuePairs<String, String> = [:]
    ) -> String {
        let source = count == 1 ? id.description : plural.description
        let template: String
        switch self.voice {
        case .source: template = source
        case .pseudo: template = Self.pseudo(source)
        case .catalogs(let catalogs):
            let context = context?.description
            template =
                catalogs.lazy.compactMap { $0.translation(id.description, context: context, count: count) }.first
                ?? source
        }
        return Self.format(template, Array(arguments), count: count)
    }

    /// A list of words joined as the language joins them (`a · b · c` in every language weathertag speaks).
    package func list(_ items: [String]) -> String {
        items.joined(separator: self.tr(" · ", context: "list separator"))
    }

    /// `template` with each `{name}` replaced; `{{` and `}}` are braces. A name without an argument stays as it is.
    static func format(
        _ template: String, _ arguments: [(key: String, value: String)], count: Int? = nil
    ) -> String {
        guard template.contains("{") || template.contains("}") else { return template }
        var result = ""
        result.reserveCapacity(template.utf8.count)
        var rest = template[...]
        while let brace = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            result += rest[..<brace]
            let after = rest.index(after: brace)
            if after < rest.endIndex, rest[after] == rest[brace] {
                result.append(rest[brace])
                rest = rest[rest.index(after: after)...]
                continue
            }
            guard rest[brace] == "{", let close = rest[after...].firstIndex(of: "}") else {
                result.append(rest[brace])
                rest = rest[after...]
                continue
            }
            let name = rest[after..<close]
            if name == "count", let count {
                result += String(count)
            } else if let value = arguments.first(where: { $0.key == name })?.value {
                result += value
            } else {
                result += rest[brace...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// The pseudo-language's form of a message: its letters accented, a third longer, and each run of its own words
    /// between its `{name}`s wrapped in `⟦…⟧`, so that what fills a name (data, or words that never reached a
    /// catalog) stays outside the marks.
    static func pseudo(_ message: String) -> String {
        var result = ""
        var run = ""
        var letters = 0
        var inName = false
        func close() {
            guard !run.isEmpty else { return }
            result += "⟦" + run + "⟧"
            run = ""
        }
        var characters = Array(message)[...]
        while let character = characters.popFirst() {
            // `{{` and `}}` are braces, not a name.
            if !inName, character == "{" || character == "}", characters.first == character {
                run += String([character, character])
                characters = characters.dropFirst()
                continue
            }
            if character == "{" {
                close()
                inName = true
            }
            if inName {
                result.append(character)
            } else if let accented = Self.accents[character] {
                run.append(accented)
                letters += 1
            } else {
                run.append(character)
            }
            if character == "}" { inName = false }
        }
        run += String(repeating: "·", count: (letters + 2) / 3)
        close()
        return result
    }

    private static let accents: [Character: Character] = [
        "a": "á", "b": "ƀ", "c": "ç", "d": "ð", "e": "é", "f": "ƒ", "g": "ĝ", "h": "ĥ", "i": "î", "j": "ĵ", "k": "ķ",
        "l": "ļ", "m": "ɱ", "n": "ñ", "o": "ö", "p": "þ", "q": "ǫ", "r": "ŕ", "s": "š", "t": "ţ", "u": "û", "v": "ṽ",
        "w": "ŵ", "x": "ẋ", "y": "ý", "z": "ž", "A": "Å", "B": "Ɓ", "C": "Ç", "D": "Ð", "E": "É", "F": "Ƒ", "G": "Ĝ",
        "H": "Ĥ", "I": "Î", "J": "Ĵ", "K": "Ķ", "L": "Ļ", "M": "Ṁ", "N": "Ñ", "O": "Ö", "P": "Þ", "Q": "Ǫ", "R": "Ŕ",
        "S": "Š", "T": "Ţ", "U": "Û", "V": "Ṽ", "W": "Ŵ", "X": "Ẋ", "Y": "Ý", "Z": "Ž",
    ]
}
