/// The photos an entry shows: its Markdown images (`![alt](photos/beach.jpeg)`) whose destination is a path
/// relative to the entry (as `weathertag import` writes the photos it copies) and a picture a browser draws. What the
/// index keeps (as written) and the timeline page shows as thumbnails in the entry's card. Pure.
///
/// Read left to right with no recursion, in the first `maximumBytes` of the text; a destination is looked for at most
/// `lookAhead` characters after its `![`, and at most `limit` photos are kept an entry.
package enum EntryPhotos {
    package static let limit = 4
    static let lookAhead = 512
    static let maximumBytes = 64 * 1024
    static let extensions: Set<String> = ["jpg", "jpeg", "png", "gif", "webp", "avif"]

    /// The relative image links of `text`, as written (at most `limit`).
    package static func links(in text: Substring) -> [String] {
        var links: [String] = []
        var rest = text.utf8.count > Self.maximumBytes ? text.prefix(Self.maximumBytes) : text
        while links.count < Self.limit, let start = rest.firstRange(ofASCII: "![") {
            rest = rest[start.upperBound...]
            let window = rest.prefix(Self.lookAhead)
            guard let close = window.firstRange(ofASCII: "](") else { continue }
            var destination = window[close.upperBound...]
            if destination.first == "<" {
                guard let end = destination.firstIndex(of: ">") else { continue }
                destination = destination[destination.index(after: destination.startIndex)..<end]
            } else {
                guard let end = destination.firstIndex(where: { $0 == ")" || $0 == " " || $0 == "\n" }) else {
                    continue
                }
                destination = destination[..<end]
            }
            rest = rest[close.upperBound...]
            let link = String(destination)
            if Self.isRelativePicture(link), !links.contains(link) { links.append(link) }
        }
        return links
    }

    /// A path relative to the entry (no scheme, not absolute, no query) naming a picture by its extension.
    static func isRelativePicture(_ link: String) -> Bool {
        guard !link.isEmpty, !link.hasPrefix("/"), !link.hasPrefix("#"), !link.contains("?"), !link.contains("\\")
        else { return false }
        if let colon = link.firstIndex(of: ":"), !link[..<colon].contains("/") { return false }
        guard let dot = link.lastIndex(of: ".") else { return false }
        return Self.extensions.contains(link[link.index(after: dot)...].lowercased())
    }

    /// `link` (relative to the entry at `entryPath`, both relative to the inbox) as a path relative to the inbox;
    /// nil when it leads out of the inbox or does not decode.
    package static func resolved(_ link: String, entryPath: String) -> String? {
        guard let decoded = percentDecoded(link) else { return nil }
        var parts = entryPath.split(separator: "/").dropLast().map(String.init)
        for part in decoded.split(separator: "/") {
            switch part {
            case ".": continue
            case "..":
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            default: parts.append(String(part))
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: "/")
    }
}
