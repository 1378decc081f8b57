/// Why a note is a template and never an entry: a note made from it would inherit whatever weather it held, so it
/// is left as it is whatever it holds, and every view says so (`LaneReason.template`).
package enum TemplateSign: Sendable, Equatable, CustomStringConvertible {
    /// In a folder the vault's settings name for templates.
    case folder(VaultLayout.Place)
    /// Named as a template by a setting (a daily note's template, Templater's folder templates).
    case file(VaultLayout.Place)
    /// Its text holds a placeholder that a template plugin fills in when it makes a note of it.
    case placeholder(String)

    package var description: String { self.said.english }

    /// Why, in words a view says in its reader's language.
    package var said: Said {
        switch self {
        case .folder(let place):
            let folder: Said.Argument =
                place.path.isEmpty ? .said(Said("the vault's root")) : .text(place.folderName)
            return Said(
                "a template: it is in {folder}, the templates folder of {setting}",
                ["folder": folder, "setting": .text(place.setting)])
        case .file(let place):
            return Said("a template: {setting} names it as one", ["setting": .text(place.setting)])
        case .placeholder(let text):
            return Said(
                "a template: it holds {placeholder}, which a template plugin fills in when it makes a note of it",
                ["placeholder": .text(text)])
        }
    }

    /// The placeholder in `text` that marks a template, if any (`TemplatePlaceholders`).
    package static func placeholder(in text: [UInt8]) -> TemplateSign? {
        TemplatePlaceholders.first(in: text).map(TemplateSign.placeholder)
    }
}

/// The placeholders template plugins fill in, found in a note's text: Templater's tags (`<% tp.file.title %>`,
/// `<%* … %>`, `<%- … -%>`, closed by `%>`) and the core Templates and Daily notes plugins' `{{date}}`, `{{time}}` and
/// `{{title}}` (with a format: `{{date:YYYY-MM-DD}}`). A note made from a template holds none of them: the plugin put
/// the date, the time or the title in their place. Inside a fenced code block they are an example, not a
/// placeholder (a vault's README shows Templater's syntax so), and are passed over.
///
/// One pass over the bytes, line by line, with no backtracking: the cost of reading an entry, whatever it holds.
package enum TemplatePlaceholders {
    /// How much of a placeholder is quoted.
    static let quoted = 60

    /// The first placeholder outside fenced code, as written (shortened); nil when there is none.
    package static func first(in text: [UInt8]) -> String? {
        var fence: (byte: UInt8, count: Int)?
        // Whether a Templater tag could still close: after an opening with no `%>` anywhere after it, none can.
        var templaterCloses = true
        var lineStart = 0
        while lineStart < text.count {
            var lineEnd = lineStart
            while lineEnd < text.count, text[lineEnd] != 0x0A { lineEnd += 1 }
            if let marker = Self.fenceMarker(text, lineStart, lineEnd) {
                if let open = fence {
                    if marker.byte == open.byte, marker.count >= open.count { fence = nil }
                } else {
                    fence = marker
                }
            } else if fence == nil {
                var index = lineStart
                while index + 1 < lineEnd {
                    let (byte, next) = (text[index], text[index + 1])
                    if byte == UInt8(ascii: "<"), next == UInt8(ascii: "%"), templaterCloses {
                        if let close = Self.find([UInt8(ascii: "%"), UInt8(ascii: ">")], in: text, from: index + 2) {
                            return Self.quote(text[index..<(close + 2)])
                        }
                        templaterCloses = false
                    } else if byte == UInt8(ascii: "{"), next == UInt8(ascii: "{"),
                        let end = Self.corePlaceholder(text, index + 2, lineEnd)
                    {
                        return Self.quote(text[index..<end])
                    }
                    index += 1
                }
            }
            lineStart = lineEnd + 1
        }
        return nil
    }

    /// The end of `date}}`, `time:HH:mm}}` or `title}}` starting at `start` (after `{{`), on the line.
    private static func corePlaceholder(_ text: [UInt8], _ start: Int, _ lineEnd: Int) -> Int? {
        for word in ["date", "time", "title"] {
            let bytes = Array(word.utf8)
            guard start + bytes.count + 2 <= lineEnd, text[start..<(start + bytes.count)].elementsEqual(bytes) else {
                continue
            }
            var index = start + bytes.count
            if text[index] == UInt8(ascii: ":"), word != "title" {
                // A format: anything but braces, up to `}}`.
                index += 1
                let limit = min(lineEnd, index + 80)
                while index < limit, text[index] != UInt8(ascii: "}"), text[index] != UInt8(ascii: "{") { index += 1 }
            }
            if index + 1 < lineEnd, text[index] == UInt8(ascii: "}"), text[index + 1] == UInt8(ascii: "}") {
                return index + 2
            }
        }
        return nil
    }

    /// A fence's character and length when the line opens or closes one (up to three spaces, then three or more
    /// backticks or tildes).
    private static func fenceMarker(_ text: [UInt8], _ start: Int, _ end: Int) -> (byte: UInt8, count: Int)? {
        var index = start
        while index < end, index - start < 3, text[index] == 0x20 { index += 1 }
        guard index < end, text[index] == UInt8(ascii: "`") || text[index] == UInt8(ascii: "~") else { return nil }
        let byte = text[index]
        var count = 0
        while index < end, text[index] == byte {
            count += 1
            index += 1
        }
        return count >= 3 ? (byte, count) : nil
    }

    private static func find(_ needle: [UInt8], in text: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + needle.count <= text.count {
            if text[index] == needle[0], text[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    private static func quote(_ bytes: ArraySlice<UInt8>) -> String {
        let text = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).joined(separator: " ")
        guard text.count > Self.quoted else { return text }
        return String(text.prefix(Self.quoted - 1)) + "…"
    }
}
