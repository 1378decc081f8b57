/// The text of a pseudo-language view outside its `⟦…⟧` marks: what no catalog translated.
package enum PseudoText {
    /// The words of two or more ASCII letters outside the marks, after `data` (the diary's own text) is taken out.
    package static func english(in text: String, data: [String] = []) -> [String] {
        var outside = ""
        var depth = 0
        for character in text {
            if character == "⟦" {
                depth += 1
            } else if character == "⟧" {
                depth = max(0, depth - 1)
            } else if depth == 0 {
                outside.append(character)
            }
        }
        for datum in data { outside = outside.replacing(datum, with: " ") }
        var words: [String] = []
        var word = ""
        for character in outside + " " {
            if character.isASCII && character.isLetter {
                word.append(character)
            } else {
                if word.count >= 2 { words.append(word) }
                word = ""
            }
        }
        return words
    }
}
