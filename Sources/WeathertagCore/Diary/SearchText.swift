/// Words found in every script: the text the diary index searches, and the terms a search asks for, made the same
/// way.
///
/// FTS5's `unicode61` splits words at spaces and punctuation. Japanese and Chinese are written without spaces, so a
/// whole sentence ("今日は東京で寿司を食べた") was one token and no word inside it could be found; Korean separates
/// words but joins particles to them ("서울에서"). As Lucene's CJK analyser does, a run of Han, Kana or Hangul is
/// indexed as its overlapping pairs of letters (bigrams: 今日 日は は東 東京 …) and its last letter alone, beside
/// `unicode61`'s words for every other script (Latin still folded by `remove_diacritics 2`). A query's run is cut
/// the same way: one or two letters are a prefix of a pair (every letter of a run begins one), longer ones the
/// phrase of their pairs, so "東京で" finds "東京で" and not "東京" and "で" apart. A run ends where the script does,
/// so no pair spans Latin and Han, or a sentence's end. (FTS5's `trigram` tokenizer finds nothing of fewer than
/// three letters, and most Chinese and Japanese words have two.)
///
/// Written here rather than with ICU's word breaker, which SQLite is not built with on Debian and which would add a
/// dictionary the size of the binary: pairs need no dictionary and find every word, at the price of a few matches
/// of two letters that are not a word there (the same price Lucene's analyser pays).
///
/// Thai, Lao, Khmer and Burmese are written without spaces between words too ("วันนี้ฉันไปตลาดน้ำและกินมะม่วง"), and
/// are indexed the same way, in pairs of letters where a letter is what Swift's `Character` is, a grapheme cluster
/// (`ม่`, a consonant with its tone mark, is one letter; a query never matches half of one). Pairs rather than
/// libthai's dictionary breaker (Debian's `libthai0`): libthai breaks Thai alone, not Lao, Khmer or Burmese, and
/// guesses at words its dictionary lacks (names, loanwords), where a query cut by the same guess would miss; pairs
/// find every word of all four the way Japanese and Chinese are found, with no library or dictionary in the daemon.
/// Each script is a run of its own: no pair spans Thai and Lao, or Thai and Han.
package enum SearchText {
    /// One term of a search, every one of which an entry must match.
    package enum Term: Sendable, Equatable {
        /// A token that starts with this.
        case prefix(String)
        /// These tokens in a row; the last one a prefix when `lastIsPrefix`.
        case phrase([String], lastIsPrefix: Bool)
    }

    /// A script written without spaces between words (Hangul with them, but with particles joined), whose runs are
    /// cut into pairs of letters.
    package enum Script: Sendable, Equatable {
        /// Han, Kana and Hangul: one run, as Japanese mixes Han and Kana.
        case cjk
        case thai
        case lao
        case khmer
        case burmese
    }

    /// `text` as the index holds it: every run of a script without spaces as its pairs and its last letter, each a
    /// word apart; anything else as it is. Text without such a letter is returned as it is, without a copy.
    package static func indexed(_ text: String) -> String {
        guard Self.mayHoldUnspaced(text) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count * 3)
        var run: [Character] = []
        var runScript: Script?
        func endRun() {
            guard !run.isEmpty else { return }
            result += " " + Self.tokens(run, last: true).joined(separator: " ") + " "
            run.removeAll(keepingCapacity: true)
        }
        for character in text {
            let script = Self.script(of: character)
            if script != runScript { endRun() }
            runScript = script
            if script != nil {
                run.append(character)
            } else {
                result.append(character)
            }
        }
        endRun()
        return result
    }

    /// The terms of what a person typed: each word a prefix (a CJK run one or two letters long too, a longer one the
    /// phrase of its pairs), each `"…"` a phrase. Only letters and digits count, so FTS5's own syntax (`NEAR`, `-`,
    /// `:`, `^`) cannot be typed in.
    package static func terms(_ query: String) -> [Term] {
        var terms: [Term] = []
        for (index, piece) in query.split(separator: "\"", omittingEmptySubsequences: false).enumerated() {
            let segments = Self.words(piece).flatMap(Self.segments)
            if index % 2 == 1 {
                // A phrase: its words in a row, each CJK run as the index has it; the last run may go on in the text.
                var tokens: [String] = []
                for (position, segment) in segments.enumerated() {
                    let last = position == segments.count - 1
                    tokens += segment.cjk ? Self.tokens(segment.letters, last: !last) : [String(segment.letters)]
                }
                if !tokens.isEmpty {
                    terms.append(.phrase(tokens, lastIsPrefix: segments.last?.cjk == true))
                }
            } else {
                for segment in segments {
                    if !segment.cjk || segment.letters.count <= 2 {
                        terms.append(.prefix(String(segment.letters)))
                    } else {
                        terms.append(.phrase(Self.tokens(segment.letters, last: false), lastIsPrefix: false))
                    }
                }
            }
        }
        return terms
    }

    /// Whether `text` may hold a letter of a script without spaces, by the bytes that lead one in UTF-8 (a look at
    /// each byte: most diaries have none, and their typographic quotes, dashes and emoji, led by 0xE2 and 0xF0 0x9F,
    /// are not mistaken for one).
    package static func mayHoldUnspaced(_ text: String) -> Bool {
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte >= 0xE0 else { continue }
            switch byte {
            case 0xE3...0xED: return true  // U+3000–U+DFFF (Myanmar Extended-A and -B among them)
            case 0xE0, 0xE1, 0xEF, 0xF0:
                // U+0E00–U+0EFF (Thai, Lao); U+1000–U+109F (Myanmar), U+1100–U+11FF (Hangul Jamo), U+1780–U+17FF
                // and U+19E0–U+19FF (Khmer); U+F900–U+FAFF and U+FF66–U+FFDC; U+20000–U+3FFFF.
                guard let next = utf8.next() else { return false }
                if byte == 0xE0, (0xB8...0xBB).contains(next) { return true }
                if byte == 0xE1,
                    (0x80...0x82).contains(next) || (0x84...0x87).contains(next)
                        || (0x9E...0x9F).contains(next) || next == 0xA7
                {
                    return true
                }
                if byte == 0xEF, (0xA4...0xAB).contains(next) || (0xBD...0xBF).contains(next) { return true }
                if byte == 0xF0, (0xA0...0xBF).contains(next) { return true }
            default: continue
            }
        }
        return false
    }

    /// A run's pairs of letters, and with `last` its last letter alone (a run of one is that letter).
    private static func tokens(_ run: [Character], last: Bool) -> [String] {
        var tokens: [String] = []
        tokens.reserveCapacity(run.count)
        if run.count > 1 {
            for index in 0..<(run.count - 1) { tokens.append(String([run[index], run[index + 1]])) }
        }
        if last || run.count == 1, let final = run.last { tokens.append(String(final)) }
        return tokens
    }

    /// Letters and digits only.
    private static func words(_ text: Substring) -> [Substring] {
        text.split { !($0.isLetter || $0.isNumber) }
    }

    /// A word cut where it goes into or out of a script without spaces, or from one such script into another.
    private static func segments(_ word: Substring) -> [(letters: [Character], cjk: Bool)] {
        var segments: [(letters: [Character], script: Script?)] = []
        for character in word {
            let script = Self.script(of: character)
            if let last = segments.indices.last, segments[last].script == script {
                segments[last].letters.append(character)
            } else {
                segments.append(([character], script))
            }
        }
        return segments.map { ($0.letters, $0.script != nil) }
    }

    /// The script without spaces a letter is of, by its first scalar (a grapheme cluster's base); nil for any other.
    package static func script(of character: Character) -> Script? {
        guard let scalar = character.unicodeScalars.first else { return nil }
        switch scalar.value {
        case 0x0E00...0x0E7F: return .thai
        case 0x0E80...0x0EFF: return .lao
        case 0x1000...0x109F, 0xA9E0...0xA9FF, 0xAA60...0xAA7F: return .burmese  // Myanmar, Extended-B, -A
        case 0x1780...0x17FF, 0x19E0...0x19FF: return .khmer  // Khmer, Khmer Symbols
        default: return Self.isCJK(character) ? .cjk : nil
        }
    }

    /// Han (with the iteration mark 々), Hiragana, Katakana (with the prolonged sound mark and the half-width forms)
    /// and Hangul (syllables and jamo).
    package static func isCJK(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        switch scalar.value {
        case 0x1100...0x11FF,  // Hangul Jamo
            0x3005, 0x3007,  // 々 〇
            0x3040...0x30FF,  // Hiragana, Katakana
            0x3130...0x318F,  // Hangul Compatibility Jamo
            0x31F0...0x31FF,  // Katakana Phonetic Extensions
            0x3400...0x4DBF,  // CJK Extension A
            0x4E00...0x9FFF,  // CJK Unified Ideographs
            0xA960...0xA97F,  // Hangul Jamo Extended-A
            0xAC00...0xD7AF,  // Hangul Syllables
            0xD7B0...0xD7FF,  // Hangul Jamo Extended-B
            0xF900...0xFAFF,  // CJK Compatibility Ideographs
            0xFF66...0xFF9F,  // Half-width Katakana
            0xFFA0...0xFFDC,  // Half-width Hangul
            0x20000...0x3FFFF:  // CJK Extensions B–H
            return true
        default:
            return false
        }
    }
}
