import FoundationEssentials
import Glibc
import Synchronization

/// What the stamper decided for one file.
package enum StampOutcome: Sendable, Equatable {
    /// The new file content: the original's bytes with a `weather:` block added.
    case stamped([UInt8])
    /// The front matter already has a `weather:` mapping; nothing to do.
    case alreadyStamped
    /// Left as it is, for this reason.
    case skipped(StampSkipReason)
}

/// A front matter the stamper composed on its way, handed to the next reader of the same bytes (`DiaryEntry.read`)
/// so that a stamp composes each file's YAML once for itself and the index, not twice. A reader uses `mapping` only
/// when its own front matter's text is `yaml`: where the two would find the front matter differently (a closing line
/// with spaces before it, a line break other than LF), it composes its own.
package struct ComposedFrontMatter: Sendable, Equatable {
    package var yaml: String
    package var mapping: YAMLNode.Mapping

    package init(yaml: String, mapping: YAMLNode.Mapping) {
        self.yaml = yaml
        self.mapping = mapping
    }

    /// The front matter an entry without one has once stamped: the block's `lines` alone, each ended by LF (what
    /// `FrontMatterStamper.stamp` writes above a file that starts without `---`; a CR LF file's reads as other text
    /// and is composed by its reader). The same for every such entry of a batch, so a batch composes it once: half the
    /// bench's entries are new files without front matter, and composing each one's again was a tenth of a burst's
    /// instructions. Nil when the lines do not compose to a mapping.
    package static func block(_ lines: [String]) -> ComposedFrontMatter? {
        ComposedBlock.of(lines)?.frontMatter
    }
}

/// A block's lines composed on their own, each ended by LF, and kept for the next entry: a batch stamps all its
/// entries with one block (`ComposedFrontMatter.block`, `FrontMatterStamper.stampComposing`).
struct ComposedBlock: Sendable {
    var lines: [String]
    var frontMatter: ComposedFrontMatter
    /// Its nodes, as `YAMLLimit.nodes` counts them.
    var nodes: Int

    /// The last block composed (one is enough: a batch asks for its own block again and again; an entry given its
    /// remembered block back asks for another, composed anew).
    private static let last = Mutex<ComposedBlock?>(nil)

    /// `lines` composed (nil when they do not compose to a mapping).
    static func of(_ lines: [String]) -> ComposedBlock? {
        if let last = Self.last.withLock({ $0 }), last.lines == lines { return last }
        let yaml = lines.map { $0 + "\n" }.joined()
        guard let composed = try? YAMLNode.composeForAppending(yaml), let mapping = composed.node?.mapping else {
            return nil
        }
        let block = ComposedBlock(
            lines: lines, frontMatter: ComposedFrontMatter(yaml: yaml, mapping: mapping), nodes: composed.nodes)
        Self.last.withLock { $0 = block }
        return block
    }

    /// Its pairs, when they are a stamp: one `weather` key holding a mapping, or the stamp's properties (what the
    /// stamper writes); nil otherwise.
    var stampPairs: [(key: YAMLNode, value: YAMLNode)]? {
        let pairs = self.frontMatter.mapping.pairs
        if pairs.count == 1, pairs[0].key.string == "weather", pairs[0].value.mapping != nil { return pairs }
        guard !pairs.isEmpty,
            pairs.allSatisfy({ $0.key.string.map(StampProperties.isProperty) == true && $0.value.scalar != nil })
        else { return nil }
        return pairs
    }
}

/// Why a file is left alone. None of these is retried until the file changes.
package enum StampSkipReason: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    /// It contains NUL bytes.
    case binary
    case notText
    case unterminatedFrontMatter
    case tomlFrontMatter
    /// A JSON object opens the file, as Hugo allows for front matter.
    case jsonFrontMatter
    /// Why, and where: the file's line and column.
    case invalidFrontMatter(String)
    case frontMatterNotMapping
    case weatherNotMapping
    /// Adding the block would not give valid YAML (a flow-style or indented mapping, say).
    case cannotAppend
    /// The front matter goes past one of the bounds weathertag reads YAML within (`YAMLLimit`); the file's line.
    case frontMatterOverLimit(YAMLLimit, line: Int)

    package var description: String { self.said.english }

    /// Why, in words a view says in its reader's language.
    package var said: Said {
        switch self {
        case .empty: return Said("the file is empty")
        case .binary: return Said("the file is binary (contains NUL bytes)")
        case .notText: return Said("the file is not UTF-8 text")
        case .unterminatedFrontMatter: return Said("the front matter has no closing '---' line")
        case .tomlFrontMatter: return Said("the front matter is TOML ('+++'), not YAML")
        case .jsonFrontMatter: return Said("the front matter is JSON (the file opens with '{{'), not YAML")
        case .invalidFrontMatter(let reason):
            // (libyaml's words: data, as the YAML parser gave them.)
            return Said("the front matter is not valid YAML: {reason}", ["reason": .text(reason)])
        case .frontMatterNotMapping: return Said("the front matter is not a YAML mapping")
        case .weatherNotMapping: return Said("the front matter has a 'weather' key that is not a mapping")
        case .cannotAppend: return Said("a weather block cannot be appended to this front matter's style")
        case .frontMatterOverLimit(let limit, let line):
            return Said(
                "the front matter {limit} (at line {line}): weathertag reads no further (Limits, in docs/stamp.md)",
                ["limit": .said(limit.said), "line": .text(String(line))])
        }
    }
}

/// Adds a `weather:` block to a Markdown file's YAML front matter without changing any byte the author wrote.
///
/// - No front matter: a new `---` block goes on top (after a UTF-8 BOM, if any), then the original content.
/// - Front matter: the block goes at its end, just before the closing `---` (or `...`); a template's empty
///   `weather:` line (no value, `~` or `null`) is replaced by the block where it stands.
/// - New lines use the line end of the file's first line (CRLF stays CRLF).
package enum FrontMatterStamper {
    private static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// - Parameter replacing: an existing `weather:` block is replaced by `lines` (`stamp --fresh`) instead of
    ///   leaving the file as it is.
    package static func stamp(_ original: [UInt8], lines: [String], replacing: Bool = false) -> StampOutcome {
        Self.stampComposing(original, lines: lines, replacing: replacing).outcome
    }

    /// `stamp`, with the front matter the outcome leaves as the stamper composed it: the original's when it is
    /// stamped already, the stamped one's (composed to check it) when stamped; nil where none was composed.
    package static func stampComposing(
        _ original: [UInt8], lines: [String], replacing: Bool = false
    ) -> (outcome: StampOutcome, frontMatter: ComposedFrontMatter?) {
        guard !original.isEmpty else { return (.skipped(.empty), nil) }
        let bodyStart = original.starts(with: Self.bom) ? Self.bom.count : 0
        let body = original[bodyStart...]
        guard !body.contains(0) else { return (.skipped(.binary), nil) }
        guard String(validating: body, as: UTF8.self) != nil else { return (.skipped(.notText), nil) }

        let firstLine = Self.line(in: original, from: bodyStart)
        let eol: [UInt8] = firstLine.hasCRLF ? [0x0D, 0x0A] : [0x0A]
        let firstText = Self.trimmed(original[firstLine.content])

        if Self.isMarker(firstText, of: "+") { return (.skipped(.tomlFrontMatter), nil) }
        if firstText.first == UInt8(ascii: "{") { return (.skipped(.jsonFrontMatter), nil) }
        guard Self.isMarker(firstText, of: "-") else {
            // No front matter: a new block on top, then every original byte.
            let opening = Array("---".utf8) + eol
            let block = Self.bytes(of: lines, eol: eol)
            return (.stamped(Self.joined([original[..<bodyStart], opening[...], block[...], opening[...], body])), nil)
        }
        guard firstLine.next < original.count else { return (.skipped(.unterminatedFrontMatter), nil) }

        guard let closingStart = Self.yamlRange(original)?.upperBound else {
            return (.skipped(.unterminatedFrontMatter), nil)
        }

        let yaml = String(decoding: original[firstLine.next..<closingStart], as: UTF8.self)
        // The YAML starts on the file's second line: errors name the file's lines.
        let weather: WeatherKey
        let mapping: YAMLNode.Mapping?
        let composed: YAMLNode.Composed
        switch Self.weatherKey(in: yaml, firstLine: 2) {
        case .failure(let reason): return (.skipped(reason), nil)
        case .success(let found): (weather, mapping, composed) = found
        }

        let writesBlock = lines.first == "weather:"
        let (insertion, removed): (Int, [Range<Int>])
        switch Self.placement(
            of: weather, in: original, firstLine.next..<closingStart, writesBlock: writesBlock, replacing: replacing)
        {
        case .at(let at, let taken): (insertion, removed) = (at, taken)
        case .alreadyStamped: return (.alreadyStamped, mapping.map { ComposedFrontMatter(yaml: yaml, mapping: $0) })
        case .skipped(let reason): return (.skipped(reason), nil)
        }
        // The block's bytes made only now: an entry stamped already (every one of an index rebuild) needs none.
        let block = Self.bytes(of: lines, eol: eol)
        let stamped = Self.spliced(original, 0..<original.count, block, at: insertion, removing: removed)
        // Never write YAML that does not read back with the stamp in it.
        let stampedYAML = String(
            decoding: Self.spliced(original, firstLine.next..<closingStart, block, at: insertion, removing: removed),
            as: UTF8.self)
        if weather == .absent, eol == [0x0A], let mapping,
            let appended = Self.appended(lines, to: mapping, composed, giving: stampedYAML)
        {
            return (.stamped(stamped), appended)
        }
        guard case .success((let kind, let stampedMapping?, _)) = Self.weatherKey(in: stampedYAML, firstLine: 2),
            kind == (writesBlock ? .mapping : .properties)
        else {
            return (.skipped(.cannotAppend), nil)
        }
        // Lines taken out (a stamp replaced, a template's empty places) held only the stamp: the author's pairs read
        // as they did, in order. (A line that only looks like a property, inside a flow collection, fails this.)
        if !removed.isEmpty, let mapping, !Self.authorsPairs(of: mapping, areThoseOf: stampedMapping) {
            return (.skipped(.cannotAppend), nil)
        }
        return (.stamped(stamped), ComposedFrontMatter(yaml: stampedYAML, mapping: stampedMapping))
    }

    /// Where a stamp goes in a front matter (`yaml`, the range of its lines in `original`).
    private enum Placement {
        /// At this offset, with these ranges taken out (in order; the offset at or before the first).
        case at(Int, removing: [Range<Int>])
        case alreadyStamped
        case skipped(StampSkipReason)
    }

    /// Where the stamp goes: in place of an empty `weather:` line (or of a template's empty properties), in place
    /// of the stamp it replaces (`replacing`), else before the closing line.
    private static func placement(
        of weather: WeatherKey, in original: [UInt8], _ yaml: Range<Int>, writesBlock: Bool, replacing: Bool
    ) -> Placement {
        switch weather {
        case .mapping, .properties:
            let existing =
                weather == .mapping
                ? Self.weatherBlock(in: original, from: yaml.lowerBound, to: yaml.upperBound).map { [$0] } ?? []
                : Self.propertyLines(in: original, from: yaml.lowerBound, to: yaml.upperBound)
            guard replacing, let first = existing.first else { return .alreadyStamped }
            return .at(first.lowerBound, removing: existing)
        case .absent: return .at(yaml.upperBound, removing: [])
        case .empty where writesBlock:
            guard let line = Self.emptyWeatherLine(in: original, from: yaml.lowerBound, to: yaml.upperBound) else {
                return .skipped(.weatherNotMapping)
            }
            return .at(line.lowerBound, removing: [line])
        case .emptyProperties where !writesBlock:
            // A template's `weather_temperature:` and the like, with nothing after them: the properties go there.
            let empty = Self.propertyLines(in: original, from: yaml.lowerBound, to: yaml.upperBound)
            return .at(empty.first?.lowerBound ?? yaml.upperBound, removing: empty)
        case .other where writesBlock: return .skipped(.weatherNotMapping)
        case .empty, .emptyProperties, .other:
            // The other form's empty places, or an author's own `weather:` beside properties: left as they are.
            return .at(yaml.upperBound, removing: [])
        }
    }

    /// Whether `mapping` and `stamped` hold the same pairs, in order, but the stamp's (`weather`, the properties).
    private static func authorsPairs(of mapping: YAMLNode.Mapping, areThoseOf stamped: YAMLNode.Mapping) -> Bool {
        let authors = { (mapping: YAMLNode.Mapping) in
            mapping.pairs.filter { pair in
                guard let key = pair.key.string else { return true }
                return key != "weather" && !StampProperties.isProperty(key)
            }
        }
        return authors(mapping).elementsEqual(authors(stamped)) { $0.key == $1.key && $0.value == $1.value }
    }

    /// The bytes of `original` in `range`, with `block` at `insertion` and the ranges `removed` (in order, inside
    /// `range`, `insertion` at or before the first) left out.
    private static func spliced(
        _ original: [UInt8], _ range: Range<Int>, _ block: [UInt8], at insertion: Int, removing removed: [Range<Int>]
    ) -> [UInt8] {
        var parts: [ArraySlice<UInt8>] = [original[range.lowerBound..<insertion], block[...]]
        var cursor = insertion
        for gone in removed {
            parts.append(original[cursor..<gone.lowerBound])
            cursor = gone.upperBound
        }
        parts.append(original[cursor..<range.upperBound])
        return Self.joined(parts)
    }

    /// The front matter `stampedYAML` composes to, known without composing it, where it is `mapping`'s text
    /// (`composed`) with the block's `lines` (ended by LF) after it: `mapping`'s pairs, then the block's `weather`.
    /// That holds when the mapping takes keys after it (`YAMLNode.Composed.takesKeysAfterIt`), has no `weather` key,
    /// and the block composes on its own to one `weather` key holding a mapping, within the bounds together. Nil
    /// otherwise: the caller composes the whole. (Composing the stamped front matter again was half of what
    /// deciding a stamp took; the fuzzer checks that both ways agree, `FuzzChecks.stamper`.)
    private static func appended(
        _ lines: [String], to mapping: YAMLNode.Mapping, _ composed: YAMLNode.Composed, giving stampedYAML: String
    ) -> ComposedFrontMatter? {
        guard composed.takesKeysAfterIt, mapping["weather"] == nil, let block = ComposedBlock.of(lines),
            let stamp = block.stampPairs,
            // The block's own root is the front matter's: counted once.
            composed.nodes + block.nodes - 1 <= YAMLLimit.maximumNodes,
            stampedYAML.utf8.count <= YAMLLimit.maximumBytes
        else { return nil }
        return ComposedFrontMatter(yaml: stampedYAML, mapping: YAMLNode.Mapping(mapping.pairs + stamp))
    }

    /// The lines of the front matter's `weather:` block as they stand in the file (without line ends), from its
    /// `weather:` line to its last indented line; nil when there is no such mapping. What the daemon remembers, to
    /// give the same block back should the entry come back without it.
    ///
    /// - Parameters:
    ///   - checked: the front matter is known to hold a stamp (`stamp` said `.alreadyStamped`): it is not composed
    ///     again.
    ///   - mapping: the front matter as `stamp` composed it, when it did: it says which form the stamp is in (a line
    ///     that reads `weather:` inside a quoted scalar of many lines is no key).
    ///
    /// An entry stamped with properties (`StampProperties`) gives their lines, in the order they stand (an editor
    /// that writes the front matter again may have moved them apart).
    package static func weatherBlock(
        _ original: [UInt8], checked: Bool = false, mapping: YAMLNode.Mapping? = nil
    ) -> [String]? {
        guard let yaml = Self.yamlRange(original) else { return nil }
        let block = Self.weatherBlock(in: original, from: yaml.lowerBound, to: yaml.upperBound)
        let kind: WeatherKey
        if checked, let mapping {
            kind = mapping["weather"]?.mapping != nil ? .mapping : .properties
        } else if checked {
            // Stamped: by its block, unless `weather:` holds a word beside the properties.
            kind = block.map { Self.holdsMapping(original, $0) } == true ? .mapping : .properties
        } else {
            guard
                case .success((let found, _, _)) = Self.weatherKey(
                    in: String(decoding: original[yaml], as: UTF8.self), firstLine: 2)
            else { return nil }
            kind = found
        }
        let ranges: [Range<Int>]
        switch kind {
        case .mapping: ranges = block.map { [$0] } ?? []
        case .properties: ranges = Self.propertyLines(in: original, from: yaml.lowerBound, to: yaml.upperBound)
        case .absent, .empty, .emptyProperties, .other: return nil
        }
        guard !ranges.isEmpty else { return nil }
        var lines: [String] = []
        for range in ranges {
            var position = range.lowerBound
            while position < range.upperBound {
                let line = Self.line(in: original, from: position)
                lines.append(String(decoding: original[line.content], as: UTF8.self))
                position = line.next
            }
        }
        return lines
    }

    /// Whether the `weather:` block at `range` is a mapping: lines indented under it (nothing after `weather:` but
    /// a comment, an anchor or a tag), or a flow mapping (`{…}`) on its line. A `weather:` alone is a template's
    /// empty line, beside properties.
    ///
    /// The indented lines hold a key: the first of them with more than anchors, tags and a comment has a `key:`
    /// (found by the fuzzer: `weather:  # a comment` over an indented lone `!` is an empty scalar with a tag, not
    /// a mapping, and the properties beside it are the stamp).
    private static func holdsMapping(_ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        let line = Self.line(in: bytes, from: range.lowerBound)
        let value = bytes[line.content].dropFirst("weather:".utf8.count).drop { $0 == 0x20 || $0 == 0x09 }
        if value.first == UInt8(ascii: "{") { return true }
        guard line.next < range.upperBound,
            value.first.map({ [UInt8(ascii: "#"), UInt8(ascii: "&"), UInt8(ascii: "!")].contains($0) }) ?? true
        else { return false }
        var cursor = line.next
        while cursor < range.upperBound {
            let child = Self.line(in: bytes, from: cursor)
            cursor = child.next
            var text = bytes[child.content].drop { $0 == 0x20 || $0 == 0x09 }
            // Anchors and tags before the node (`&a`, `!tag`), each with the blanks after it.
            while let first = text.first, first == UInt8(ascii: "&") || first == UInt8(ascii: "!") {
                text = text.drop { $0 != 0x20 && $0 != 0x09 }.drop { $0 == 0x20 || $0 == 0x09 }
            }
            guard let first = text.first, first != UInt8(ascii: "#") else { continue }
            if first == UInt8(ascii: "?") || first == UInt8(ascii: "{") { return true }
            // `key:` before any comment: a colon followed by a blank or the line's end.
            var index = text.startIndex
            while index < text.endIndex {
                let byte = text[index]
                let next = text.index(after: index)
                let blankAfter = next == text.endIndex || text[next] == 0x20 || text[next] == 0x09
                if byte == UInt8(ascii: ":"), blankAfter { return true }
                if byte == UInt8(ascii: "#"), index > text.startIndex,
                    text[text.index(before: index)] == 0x20 || text[text.index(before: index)] == 0x09
                {
                    return false
                }
                index = next
            }
            return false
        }
        return false
    }

    /// Where a front matter's YAML lies: from the line after the opening `---` (after a byte-order mark) to the start
    /// of the closing `---` or `...` line; nil without one.
    private static func yamlRange(_ original: [UInt8]) -> Range<Int>? {
        let start = original.starts(with: Self.bom) ? Self.bom.count : 0
        let first = Self.line(in: original, from: start)
        guard Self.isMarker(Self.trimmed(original[first.content]), of: "-") else { return nil }
        var cursor = first.next
        while cursor < original.count {
            let line = Self.line(in: original, from: cursor)
            let text = Self.trimmed(original[line.content])
            if Self.isMarker(text, of: "-") || Self.isMarker(text, of: ".") { return first.next..<cursor }
            cursor = line.next
        }
        return nil
    }

    /// The lines (with their line ends) of a top-level `weather:` key and the indented lines under it, between
    /// `start` and `end`; blank lines and comments after its last indented line are not part of it.
    private static func weatherBlock(in bytes: [UInt8], from start: Int, to end: Int) -> Range<Int>? {
        var cursor = start
        while cursor < end {
            let line = Self.line(in: bytes, from: cursor)
            if bytes[line.content].starts(with: "weather:".utf8) {
                return cursor..<Self.indentedLines(in: bytes, after: line, to: end).end
            }
            cursor = line.next
        }
        return nil
    }

    /// Where the indented lines under a top-level key's `line` end (`end`: after its last indented line that is
    /// neither blank nor a comment) and where the next look starts (`next`: the first line that is not indented,
    /// or `limit`).
    private static func indentedLines(
        in bytes: [UInt8], after line: Line, to limit: Int
    ) -> (end: Int, next: Int) {
        var (end, next) = (line.next, line.next)
        while next < limit {
            let child = Self.line(in: bytes, from: next)
            guard let first = bytes[child.content].first else {
                next = child.next
                continue
            }
            guard first == 0x20 || first == 0x09 else { break }
            let text = bytes[child.content].drop { $0 == 0x20 || $0 == 0x09 }
            if !text.isEmpty && text.first != UInt8(ascii: "#") { end = child.next }
            next = child.next
        }
        return (end, next)
    }

    /// Where the entry says it was written, from its front matter: `latitude` and `longitude` (or `lat`, `lon`,
    /// `lng`) at the top level, or under `location` (a mapping), or `location: [lat, lon]` (Obsidian Map View; also
    /// `"lat,lon"` as one string). Nil when it says nothing usable.
    package static func position(_ original: [UInt8]) -> Position? {
        guard let yaml = Self.yamlRange(original),
            let mapping = (try? YAMLNode.compose(String(decoding: original[yaml], as: UTF8.self)))??.mapping
        else { return nil }
        return Self.position(in: mapping)
    }

    /// The position a front matter's mapping (or a block's `location`) names, as `position(_:)` reads it.
    package static func position(in mapping: YAMLNode.Mapping) -> Position? {
        func number(_ node: YAMLNode?) -> Double? {
            guard case .scalar(let scalar)? = node else { return nil }
            return Double(scalar.string.trimmingWhitespace())
        }
        func pair(_ latitude: Double?, _ longitude: Double?) -> Position? {
            guard let latitude, let longitude, (-90...90).contains(latitude), (-180...180).contains(longitude) else {
                return nil
            }
            // Taken at the entry's time, which the caller knows.
            return Position(latitude: latitude, longitude: longitude, source: "front_matter", takenAt: .distantPast)
        }
        func inMapping(_ mapping: YAMLNode.Mapping) -> Position? {
            pair(
                number(mapping["latitude"] ?? mapping["lat"]),
                number(mapping["longitude"] ?? mapping["lon"] ?? mapping["lng"]))
        }
        func commaSeparated(_ node: YAMLNode?) -> Position? {
            guard case .scalar(let scalar)? = node else { return nil }
            let parts = scalar.string.split(separator: ",").map { Double($0.trimmingWhitespace()) }
            return parts.count == 2 ? pair(parts[0], parts[1]) : nil
        }
        if let position = inMapping(mapping) { return position }
        guard let location = mapping["location"] else { return nil }
        if let nested = location.mapping { return inMapping(nested) }
        if let sequence = location.sequence {
            if sequence.count == 2 { return pair(number(sequence[0]), number(sequence[1])) }
            if sequence.count == 1 { return commaSeparated(sequence[0]) }
            return nil
        }
        return commaSeparated(location)
    }

    /// The values of the front matter's top-level `date`, `created`, `created_at` and `time` lines, as written
    /// (for `EntryTime`); empty without front matter. Read by lines, not composed: it runs before the stamp.
    package static func timeFields(_ original: [UInt8]) -> [String: String] {
        let start = original.starts(with: Self.bom) ? Self.bom.count : 0
        let first = Self.line(in: original, from: start)
        guard Self.isMarker(Self.trimmed(original[first.content]), of: "-") else { return [:] }
        var fields: [String: String] = [:]
        var cursor = first.next
        while cursor < original.count {
            let line = Self.line(in: original, from: cursor)
            let text = String(decoding: Self.trimmed(original[line.content]), as: UTF8.self)
            if text == "---" || text == "..." { break }
            if let colon = text.firstIndex(of: ":"), !text.hasPrefix(" "), !text.hasPrefix("\t") {
                let key = text[..<colon].trimming { "\"' ".contains($0) }
                if EntryTime.frontMatterKeys.contains(key), fields[key] == nil {
                    var value = text[text.index(after: colon)...].trimmingWhitespace()
                    if let comment = value.firstRange(of: " #") { value = String(value[..<comment.lowerBound]) }
                    if !value.isEmpty {
                        fields[key] = value
                    } else if line.next < original.count {
                        // `date:` with a list or mapping under it says something, and not a time.
                        let next = Self.line(in: original, from: line.next)
                        let text = String(decoding: Self.trimmed(original[next.content]), as: UTF8.self)
                        if text.hasPrefix(" ") || text.hasPrefix("\t") || text.hasPrefix("- ") {
                            fields[key] = "a list or mapping"
                        }
                    }
                }
            }
            cursor = line.next
        }
        return fields
    }

    /// What the front matter holds of a stamp.
    private enum WeatherKey {
        /// No `weather` key and none of the stamp's properties (or no front matter content at all).
        case absent
        /// `weather:` with no value, `~` or `null`: a template's place for the block.
        case empty
        /// A `weather` mapping: the block.
        case mapping
        /// The stamp's properties (`StampProperties`), one of them at least with a value.
        case properties
        /// The stamp's properties, none with a value: a template's places for them.
        case emptyProperties
        /// `weather` holding something else (a word, a list): the author's own, where properties are written.
        case other
    }

    /// The stamp's properties in `mapping`: some with a value, all without, or none there.
    private static func properties(in mapping: YAMLNode.Mapping) -> WeatherKey {
        var found = WeatherKey.absent
        for (key, value) in mapping {
            guard let name = key.string, StampProperties.isProperty(name) else { continue }
            guard let scalar = value.scalar, StampProperties.isNull(scalar) else { return .properties }
            found = .emptyProperties
        }
        return found
    }

    /// The lines (with their line ends) of the stamp's top-level properties and the indented lines under each,
    /// between `start` and `end`, in order; blank lines and comments after a property's last line are not its.
    private static func propertyLines(in bytes: [UInt8], from start: Int, to end: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var cursor = start
        while cursor < end {
            let line = Self.line(in: bytes, from: cursor)
            cursor = line.next
            let content = bytes[line.content]
            // A top-level key, as written or quoted (an editor may quote it).
            guard let first = content.first, first != 0x20, first != 0x09,
                let colon = content.firstIndex(of: UInt8(ascii: ":"))
            else { continue }
            var key = content[content.startIndex..<colon]
            if let quote = key.first, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'"), key.last == quote,
                key.count >= 2
            {
                key = key.dropFirst().dropLast()
            }
            guard StampProperties.isProperty(String(decoding: key, as: UTF8.self)) else { continue }
            let under = Self.indentedLines(in: bytes, after: line, to: end)
            ranges.append(line.content.lowerBound..<under.end)
            cursor = under.next
        }
        return ranges
    }

    /// The whole line (with its line end) of a top-level `weather:` without a value, `~` or `null` (a comment may
    /// follow), between `start` and `end`.
    private static func emptyWeatherLine(in bytes: [UInt8], from start: Int, to end: Int) -> Range<Int>? {
        var cursor = start
        while cursor < end {
            let line = Self.line(in: bytes, from: cursor)
            let text = String(decoding: Self.trimmed(bytes[line.content]), as: UTF8.self)
            if text.hasPrefix("weather:") {
                // The value, without a comment (`#` at its start or after a blank) and the blanks around it.
                var value = text.dropFirst("weather:".count)
                var previous: Character = " "
                if let hash = value.firstIndex(where: { character in
                    defer { previous = character }
                    return character == "#" && (previous == " " || previous == "\t")
                }) {
                    value = value[..<hash]
                }
                let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
                let trimmed = value.drop(while: blank).reversed().drop(while: blank).reversed()
                if ["", "~", "null", "Null", "NULL"].contains(String(trimmed)) { return cursor..<line.next }
            }
            cursor = line.next
        }
        return nil
    }

    /// The entry without the stamp it holds (`weathertag stamp --remove`): the block's lines, or the stamp's
    /// properties, taken out and nothing else; the front matter's own `---` lines too when nothing else is left
    /// between them (weathertag writes them around its block in an entry that had none). Nil when it holds no stamp,
    /// or when what is left would not read as the author's pairs did.
    package static func removingStamp(_ original: [UInt8]) -> [UInt8]? {
        guard let yaml = Self.yamlRange(original),
            case .success((let kind, let mapping?, _)) = Self.weatherKey(
                in: String(decoding: original[yaml], as: UTF8.self), firstLine: 2)
        else { return nil }
        let ranges: [Range<Int>]
        switch kind {
        case .mapping:
            ranges = Self.weatherBlock(in: original, from: yaml.lowerBound, to: yaml.upperBound).map { [$0] } ?? []
        case .properties: ranges = Self.propertyLines(in: original, from: yaml.lowerBound, to: yaml.upperBound)
        case .absent, .empty, .emptyProperties, .other: return nil
        }
        guard let first = ranges.first else { return nil }
        let left = Self.spliced(original, yaml, [], at: first.lowerBound, removing: ranges)
        if left.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            let opening = original.starts(with: Self.bom) ? Self.bom.count : 0
            let closing = Self.line(in: original, from: yaml.upperBound)
            return Array(original[..<opening]) + Array(original[closing.next...])
        }
        guard
            case .success((_, let after?, _)) = Self.weatherKey(in: String(decoding: left, as: UTF8.self), firstLine: 2),
            Self.authorsPairs(of: after, areThoseOf: mapping)
        else { return nil }
        return Self.spliced(original, 0..<original.count, [], at: first.lowerBound, removing: ranges)
    }

    /// What the front matter holds under `weather`, with the front matter composed (nil when it is empty), or why
    /// it cannot take a block. `firstLine` is the file's line the YAML starts on, for errors.
    private static func weatherKey(
        in yaml: String, firstLine: Int
    ) -> Result<(WeatherKey, YAMLNode.Mapping?, YAMLNode.Composed), StampSkipReason> {
        let composed: YAMLNode.Composed
        do {
            composed = try YAMLNode.composeForAppending(yaml)
        } catch {
            // The file's line numbers, not the front matter's.
            if let limit = error.limit {
                return .failure(.frontMatterOverLimit(limit, line: error.line + firstLine - 1))
            }
            return .failure(
                .invalidFrontMatter("line \(error.line + firstLine - 1), column \(error.column): \(error.problem)"))
        }
        guard let node = composed.node else { return .success((.absent, nil, composed)) }
        guard let mapping = node.mapping else {
            if Self.isNull(node) { return .success((.absent, nil, composed)) }
            return .failure(.frontMatterNotMapping)
        }
        let properties = Self.properties(in: mapping)
        guard let weather = mapping["weather"] else { return .success((properties, mapping, composed)) }
        if weather.mapping != nil { return .success((.mapping, mapping, composed)) }
        if properties == .properties { return .success((.properties, mapping, composed)) }
        return .success((Self.isNull(weather) ? .empty : .other, mapping, composed))
    }

    private static func isNull(_ node: YAMLNode) -> Bool {
        guard case .scalar(let scalar) = node else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    /// The block's lines as bytes, each ended by `eol`, in one array sized first (a line's array and its end's
    /// appended to a growing array cost 47,000 instructions an entry, about a twentieth of a stamp).
    private static func bytes(of lines: [String], eol: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lines.reduce(0) { $0 + $1.utf8.count + eol.count })
        for line in lines {
            bytes.append(contentsOf: line.utf8)
            bytes.append(contentsOf: eol)
        }
        return bytes
    }

    /// `parts` one after the other, in one array sized first.
    private static func joined(_ parts: [ArraySlice<UInt8>]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(parts.reduce(0) { $0 + $1.count })
        for part in parts { bytes.append(contentsOf: part) }
        return bytes
    }

    private struct Line {
        var content: Range<Int>
        var next: Int
        var hasCRLF: Bool
    }

    private static func line(in bytes: [UInt8], from start: Int) -> Line {
        // Its line feed found by `memchr` (a byte at a time, the lines of an entry's front matter and of the text
        // after it, when it has none to close, were seven instructions a byte).
        let end = bytes.withUnsafeBufferPointer { buffer -> Int in
            guard start < buffer.count, let base = buffer.baseAddress else { return start }
            guard let found = memchr(base + start, 0x0A, buffer.count - start) else { return buffer.count }
            return UnsafeRawPointer(found) - UnsafeRawPointer(base)
        }
        let hasCRLF = end < bytes.count && end > start && bytes[end - 1] == 0x0D
        let contentEnd = hasCRLF ? end - 1 : end
        return Line(content: start..<contentEnd, next: min(end + 1, bytes.count), hasCRLF: hasCRLF)
    }

    /// The line without trailing spaces and tabs (a slice of it: each line of a front matter is looked at, and an
    /// array made of each cost a stamp 6,000 instructions).
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }

    /// Whether `text` is a front matter's marker line of `character`: `---`, `...` or `+++`.
    private static func isMarker(_ text: ArraySlice<UInt8>, of character: Unicode.Scalar) -> Bool {
        text.count == 3 && text.allSatisfy { $0 == UInt8(ascii: character) }
    }
}
