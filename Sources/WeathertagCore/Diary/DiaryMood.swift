/// What a `mood:` in an entry's front matter says, as a number: a number as written (on the diarist's own scale), or
/// one of Daylio's five words on its 1–5 scale (awful 1, bad 2, meh 3, good 4, rad 5) and their everyday neighbours
/// (terrible 1; sad, low 2; okay, ok, fine 3; happy 4; great, amazing 5). Anything else says nothing: no mood is
/// guessed.
package enum DiaryMood {
    package static let words: KeyValuePairs<String, Double> = [
        "awful": 1, "terrible": 1, "bad": 2, "sad": 2, "low": 2, "meh": 3, "okay": 3, "ok": 3, "fine": 3,
        "good": 4, "happy": 4, "rad": 5, "great": 5, "amazing": 5,
    ]

    package static func value(_ text: String) -> Double? {
        let word = text.trimmingWhitespace().lowercased()
        if let number = Double(word), number.isFinite, abs(number) <= 1000 { return number }
        return Self.words.first { $0.key == word }?.value
    }
}
