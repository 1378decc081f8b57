/// A Logseq graph's settings (`logseq/config.edn`, as Logseq's own template writes it: recorded in
/// Tests/WeathertagCoreTests/Recorded/Vaults/): its journals are in `:journals-directory` (`journals` by default),
/// its pages elsewhere, and `logseq/` is Logseq's own (its `bak/` holds backups of pages, which are no entries).
/// `:hidden` paths are left out as Logseq leaves them out. Logseq's templates are blocks of pages, not files.
extension VaultLayout {
    static func logseq(root: String, inbox: String, files: any ConfigurationFiles) -> VaultLayout {
        let inside = Self.inboxInside(root: root, inbox: inbox)
        var layout = VaultLayout(app: .logseq, root: root, inboxIsRoot: inside.isEmpty)
        let settings = files.contents(Self.join(root, "logseq/config.edn")).map(EDNSettings.init) ?? EDNSettings()
        let journals = settings.strings[":journals-directory"].flatMap(\.first).flatMap(Self.vaultPath) ?? "journals"
        if layout.inboxIsRoot {
            let setting =
                settings.strings[":journals-directory"] == nil
                ? "Logseq's journals, its default" : "Logseq's :journals-directory, logseq/config.edn"
            layout.entries = [Place(journals.isEmpty ? "journals" : journals, setting: setting)]
        }
        for path in ["logseq"] + (settings.strings[":hidden"] ?? []).compactMap(Self.vaultPath) where !path.isEmpty {
            if let relative = Self.relative(path, inside: inside), !relative.isEmpty {
                layout.ownFolders.append(relative)
            }
        }
        return layout
    }
}

/// The few top-level keys weathertag reads from a Logseq `config.edn`: each keyword of the top-level map with the
/// strings of its value (a string, or a vector or set of strings). Written here because no EDN reader is in the
/// package mirror, and weathertag needs only this: a linear scan that skips comments (`;` to the end of the line),
/// strings (with their escapes) and everything nested deeper than the map's values, keeping a depth count rather
/// than recursing, so that a file of any shape costs one pass and no stack.
package struct EDNSettings: Sendable, Equatable {
    /// `:journals-directory` → `["journals"]`, `:hidden` → `["/archived", "/test.md"]`.
    package var strings: [String: [String]] = [:]

    package init() {}

    package init(_ bytes: [UInt8]) {
        var index = 0
        var depth = 0
        // The keyword whose value is being read (at depth 1), and the depth its value opened at.
        var key: String?
        var valueDepth: Int?
        func isDelimiter(_ byte: UInt8) -> Bool {
            byte <= 0x20 || byte == UInt8(ascii: ",") || byte == UInt8(ascii: ";") || byte == UInt8(ascii: "\"")
                || [
                    UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"),
                    UInt8(ascii: "}"),
                ].contains(byte)
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: ";"):
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            case UInt8(ascii: "\""):
                var text: [UInt8] = []
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count { index += 1 }
                    text.append(bytes[index])
                    index += 1
                }
                // (A string cut short by the end of the file is no value.)
                if index < bytes.count, let name = key, depth == 1 || valueDepth.map({ depth == $0 + 1 }) == true {
                    self.strings[name, default: []].append(String(decoding: text, as: UTF8.self))
                    if depth == 1 { (key, valueDepth) = (nil, nil) }
                }
                index += 1
                continue
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"):
                if depth == 1, key != nil { valueDepth = depth }
                depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth = max(0, depth - 1)
                if let opened = valueDepth, depth == opened { (key, valueDepth) = (nil, nil) }
            case UInt8(ascii: ":") where depth == 1 && valueDepth == nil:
                let start = index
                while index < bytes.count, !isDelimiter(bytes[index]) { index += 1 }
                key = String(decoding: bytes[start..<index], as: UTF8.self)
                continue
            default:
                // Any other value at the map's level (a number, `true`, a symbol) ends the pair.
                if depth == 1, valueDepth == nil, !isDelimiter(byte), byte != UInt8(ascii: "#") {
                    while index < bytes.count, !isDelimiter(bytes[index]) { index += 1 }
                    key = nil
                    continue
                }
            }
            index += 1
        }
    }
}
