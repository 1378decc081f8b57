/// One language's translations, read from the `.mo` file `msgfmt` compiles a `po/LL.po` into (the format glibc's
/// `gettext` reads: a magic number, the count of messages, and two tables of lengths and offsets, one of the
/// original strings, one of their translations; a context is joined to its id by `\u{4}`, plural forms by `\0`).
///
/// weathertag reads the file itself rather than through glibc's `dgettext`: glibc gives the process's message
/// locale only when that locale is installed (`locale-gen`; a fresh Debian machine has only `C.UTF-8`, where
/// `LANGUAGE` is ignored and every program speaks English), and the daemon writes its page in the language of its
/// configuration, not of its process. The bytes are a bounded input: every count, length and offset is checked
/// against the file before it is used.
package struct MessageCatalog: Sendable {
    /// Why a file is not a catalog.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        case tooLarge(Int)
        case notACatalog
        case truncated(String)
        case notUTF8
        case pluralForms(String)

        package var description: String {
            switch self {
            case .tooLarge(let bytes): return "it is \(bytes) bytes, more than a catalog's \(MessageCatalog.maxBytes)"
            case .notACatalog: return "it does not start with a .mo file's magic number"
            case .truncated(let what): return "its \(what) reaches past its end"
            case .notUTF8: return "a string in it is not UTF-8"
            case .pluralForms(let why): return "its Plural-Forms header cannot be read: \(why)"
            }
        }
    }

    /// A catalog larger than this is refused (weathertag's are tens of kilobytes).
    package static let maxBytes = 8 << 20

    /// Each message's forms by its key: the id, after its context and `\u{4}` when it has one.
    private var translations: [String: [String]]
    /// Which plural form a count takes (`Plural-Forms`; `n != 1` when the header has none, as gettext does).
    package let plural: PluralRule
    /// The `Language` header (`ko`, `zh_TW`), when it has one.
    package let language: String?

    /// How many messages it translates.
    package var count: Int { self.translations.count }

    package init(mo bytes: [UInt8]) throws(Failure) {
        guard bytes.count <= Self.maxBytes else { throw .tooLarge(bytes.count) }
        guard bytes.count >= 28 else { throw .notACatalog }
        func word(_ at: Int, swapped: Bool) -> UInt32 {
            let value =
                UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
                | UInt32(bytes[at + 3]) << 24
            return swapped ? value.byteSwapped : value
        }
        let swapped: Bool
        switch word(0, swapped: false) {
        case 0x9504_12de: swapped = false
        case 0xde12_0495: swapped = true
        default: throw .notACatalog
        }
        let count = Int(word(8, swapped: swapped))
        let originals = Int(word(12, swapped: swapped))
        let translated = Int(word(16, swapped: swapped))
        // Each message takes 16 bytes of the two tables, so a count the file cannot hold is refused before any table
        // is read.
        guard count <= bytes.count / 16 else { throw .truncated("count of messages") }
        func table(_ start: Int, _ name: String) throws(Failure) -> [String] {
            guard start >= 0, start <= bytes.count, count * 8 <= bytes.count - start else { throw .truncated(name) }
            var strings: [String] = []
            strings.reserveCapacity(count)
            for index in 0..<count {
                let length = Int(word(start + index * 8, swapped: swapped))
                let offset = Int(word(start + index * 8 + 4, swapped: swapped))
                guard offset <= bytes.count, length <= bytes.count - offset else {
                    throw .truncated("\(name) \(index)")
                }
                guard let string = String(validating: bytes[offset..<offset + length], as: UTF8.self) else {
                    throw .notUTF8
                }
                strings.append(string)
            }
            return strings
        }
        let ids = try table(originals, "table of originals")
        let forms = try table(translated, "table of translations")
        var translations: [String: [String]] = [:]
        translations.reserveCapacity(count)
        var header = ""
        for (id, translation) in zip(ids, forms) {
            guard !id.isEmpty else {
                header = translation
                continue
            }
            // The key leaves out the plural id (`msgid\0msgid_plural`): a message is looked up by its singular id.
            let key = id.split(separator: "\0", maxSplits: 1, omittingEmptySubsequences: false)[0]
            translations[String(key)] = translation.split(separator: "\0", omittingEmptySubsequences: false).map(
                String.init)
        }
        self.translations = translations
        var plural = PluralRule.germanic
        var language: String?
        for line in header.split(separator: "\n") {
            let field = line.split(separator: ":", maxSplits: 1)
            guard field.count == 2 else { continue }
            let value = field[1].trimmingSpaces
            switch field[0].trimmingSpaces {
            case "Plural-Forms":
                do { plural = try PluralRule(header: value) } catch { throw .pluralForms(error.description) }
            case "Language": language = value.isEmpty ? nil : value
            default: continue
            }
        }
        self.plural = plural
        self.language = language
    }

    /// The translation of `id` (in `context`), or nil when the catalog has none (or an empty one, which gettext also
    /// treats as untranslated).
    package func translation(_ id: String, context: String? = nil) -> String? {
        guard let forms = self.translations[Self.key(id, context: context)], let first = forms.first,
            !first.isEmpty
        else { return nil }
        return first
    }

    /// The form of `id`'s translation for `count`, by the catalog's plural rule; nil when it has none.
    package func translation(_ id: String, context: String? = nil, count: Int) -> String? {
        guard let forms = self.translations[Self.key(id, context: context)] else { return nil }
        let index = self.plural.form(count)
        guard index < forms.count, !forms[index].isEmpty else { return nil }
        return forms[index]
    }

    private static func key(_ id: String, context: String?) -> String {
        context.map { "\($0)\u{4}\(id)" } ?? id
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(
            self.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed()
        )
    }
}
