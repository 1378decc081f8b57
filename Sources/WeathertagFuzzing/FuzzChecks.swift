import FoundationEssentials
import NIOCore
import NIOEmbedded
import NIOHTTP1
import WeathertagCore
import WeathertagDaemon

/// What the fuzzers check for each input. Every check traps (`precondition`) when an invariant breaks, which is
/// what libFuzzer reports as a crash; the tests run the same checks over the committed corpus.
package enum FuzzChecks {
    static let lines = ["weather:", "  condition: \"Clouds\"", "  temperature: 12.3", "  units: metric"]

    /// The stamper never loses or reorders a byte of the original, and a stamped file is recognised as stamped.
    package static func stamper(_ bytes: [UInt8]) {
        let (outcome, frontMatter) = FrontMatterStamper.stampComposing(bytes, lines: Self.lines)
        // The front matter handed on to the index is what its text composes to: the stamper knows a stamped one
        // without composing it where the block only adds a key (`FrontMatterStamper.appended`).
        if let frontMatter {
            let composed = (try? YAMLNode.compose(frontMatter.yaml)) ?? nil
            precondition(composed == .mapping(frontMatter.mapping), "the front matter handed on is what it composes to")
        }
        guard case .stamped(let output) = outcome else { return }
        // (Not always longer: a template's line with many blanks after `weather:` can outweigh the block.)
        precondition(output != bytes, "a stamp changes the file")
        // The output is the original with one run of bytes inserted: a common prefix and suffix cover it all.
        let shorter = min(bytes.count, output.count)
        var prefix = 0
        while prefix < shorter && output[prefix] == bytes[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < shorter - prefix && output[output.count - 1 - suffix] == bytes[bytes.count - 1 - suffix] {
            suffix += 1
        }
        if prefix + suffix < bytes.count {
            // The one thing a stamp replaces: a template's empty `weather:` line (nothing, `~` or `null` after it, a
            // comment may follow), whose place the block takes. Every other byte is kept, in order.
            var start = prefix
            while start > 0 && bytes[start - 1] != 0x0A { start -= 1 }
            var end = bytes.count - suffix - 1
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            end = min(end + 1, bytes.count)
            var value = String(decoding: bytes[start..<end], as: UTF8.self)
            precondition(value.hasPrefix("weather:"), "only a template's empty weather line is replaced")
            value = String(value.dropFirst("weather:".count))
            // The comment starts at the first `#` after a space or a tab, whichever comes first.
            let comments = [value.firstRange(of: " #"), value.firstRange(of: "\t#")].compactMap { $0 }
            if let comment = comments.min(by: { $0.lowerBound < $1.lowerBound }) {
                value = String(value[..<comment.lowerBound])
            }
            // (CR LF is one `Character` of its own, neither CR nor LF: a CR LF template's line is blank at its end.)
            let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
            let trimmed = String(value.drop(while: blank).reversed().drop(while: blank).reversed())
            precondition(["", "~", "null", "Null", "NULL"].contains(trimmed), "the replaced line held no value")
            precondition(
                output.starts(with: bytes[..<start]) && output.suffix(bytes.count - end).elementsEqual(bytes[end...]),
                "every byte outside the replaced line is kept")
        }
        // The block is in it whole, as one run of lines (where it meets the original, say a template's `weather:`
        // line, the prefix and suffix above may take its first line for the original's).
        // By bytes: a string search matches whole characters, and a combining mark after the block's last line end
        // (found by the fuzzer: U+064F) made its `\n` part of another for Foundation's search.
        precondition(
            Self.holds(Array((Self.lines.joined(separator: "\n") + "\n").utf8), in: output)
                || Self.holds(Array((Self.lines.joined(separator: "\r\n") + "\r\n").utf8), in: output),
            "the block is written whole")
        precondition(FrontMatterStamper.stamp(output, lines: Self.lines) == .alreadyStamped, "stamping is idempotent")
        // `stamp --remove` gives back what was there, when the stamp only added its block (a template's empty
        // `weather:` line, which the block takes the place of, is not given back).
        if prefix + suffix >= bytes.count, !Self.holds("weather:", bytes),
            let removed = FrontMatterStamper.removingStamp(output)
        {
            precondition(
                removed == bytes || Self.holdsABlankFrontMatter(bytes), "taking the stamp out gives the file back")
        }
        Self.stamperWithProperties(bytes)
        Self.ownWeather(bytes)
    }

    /// Whether `text` is somewhere in `bytes`.
    static func holds(_ text: String, _ bytes: [UInt8]) -> Bool {
        Self.holds(Array(text.utf8), in: bytes)
    }

    /// Whether `needle` is a run of `bytes`.
    static func holds(_ needle: [UInt8], in bytes: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= bytes.count else { return needle.isEmpty }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// Whether `bytes` open with a front matter holding nothing (blank lines at most): its `---` lines go with a
    /// stamp taken out of it.
    static func holdsABlankFrontMatter(_ bytes: [UInt8]) -> Bool {
        let text = String(
            decoding: bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...], as: UTF8.self)
        // (By `isNewline`: CR LF is one `Character`, which a split at "\n" would not see.)
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map {
            $0.trimmingWhitespaceAndNewlines()
        }
        guard lines.first == "---", let closing = lines.dropFirst().firstIndex(where: { $0 == "---" || $0 == "..." })
        else { return false }
        return lines[1..<closing].allSatisfy(\.isEmpty)
    }

    /// Whose weather a block is, for any file: the placeholders' scan, what a block says of itself, and the decision
    /// with a memory that says weathertag wrote it elsewhere; a block replaced is the only change.
    static func ownWeather(_ bytes: [UInt8]) {
        _ = TemplatePlaceholders.first(in: bytes)
        _ = EDNSettings(bytes)
        guard let block = FrontMatterStamper.weatherBlock(bytes) else { return }
        let facts = StampFacts(block: block)
        precondition(facts.fingerprint == StampFacts.fingerprint(block.reversed()), "a block's order is no matter")
        let decision = StampDecision.decide(
            bytes, name: "2026-12-07.md", modified: Date(timeIntervalSince1970: 1_796_637_600), lines: Self.lines,
            known: StampDecision.Known(
                ownership: BlockOwnership(timeZone: .utc),
                provenance: { _ in .writtenInto("Templates/Daily.md", at: Date(timeIntervalSince1970: 0)) }))
        if case .write(let output, _, false) = decision {
            precondition(FrontMatterStamper.stamp(output, lines: Self.lines) == .alreadyStamped, "the new block is one")
            precondition(FrontMatterStamper.weatherBlock(output) == Self.lines, "the entry's own block replaced it")
        }
    }

    static let properties = ["weather_condition: Clouds", "weather_temperature: 12.3", "weather_daylight: true"]

    /// The stamp as Obsidian's properties (`stamp.format: properties`): the front matter handed on is what its text
    /// composes to, every property is written, the stamp is known as one (in either form), and the block's
    /// memory reads the properties back.
    static func stamperWithProperties(_ bytes: [UInt8]) {
        let (outcome, frontMatter) = FrontMatterStamper.stampComposing(bytes, lines: Self.properties)
        if let frontMatter {
            let composed = (try? YAMLNode.compose(frontMatter.yaml)) ?? nil
            precondition(composed == .mapping(frontMatter.mapping), "the front matter handed on is what it composes to")
        }
        guard case .stamped(let output) = outcome else { return }
        for line in Self.properties {
            precondition(
                Self.holds(line + "\n", output) || Self.holds(line + "\r\n", output), "every property is written")
        }
        precondition(
            FrontMatterStamper.stamp(output, lines: Self.properties) == .alreadyStamped, "stamping is idempotent")
        precondition(FrontMatterStamper.stamp(output, lines: Self.lines) == .alreadyStamped, "either form is a stamp")
        let remembered = FrontMatterStamper.weatherBlock(output, checked: true, mapping: frontMatter?.mapping) ?? []
        precondition(Set(Self.properties).isSubset(of: remembered), "the properties are remembered")
    }

    /// Front matter from anyone's files: the YAML composer keeps its bounds (what it reads nests at most
    /// `YAMLLimit.maximumDepth` levels and holds at most `maximumNodes` nodes, aliases counted as what they repeat),
    /// and every reader of front matter (the diary's, the position's, the time's) comes back without a trap.
    package static func frontMatter(_ bytes: [UInt8]) {
        // What the line reader takes, libyaml reads the same (`YAMLLines`): the same tree, nodes and verdict on keys
        // after it.
        let text = String(decoding: bytes, as: UTF8.self)
        for past in [false, true] {
            if let lines = YAMLNode.composeByLines(text, lookingPastTheDocument: past) {
                let libyaml = try? YAMLNode.composeWithLibYAML(text, lookingPastTheDocument: past)
                precondition(libyaml == lines, "the line reader reads what libyaml reads")
            }
        }
        if let node = try? YAMLNode.compose(text) {
            // Walked with a stack of its own: the check must not recurse either.
            var stack = [(node, 1)]
            var nodes = 0
            while let (next, depth) = stack.popLast() {
                nodes += 1
                precondition(nodes <= YAMLLimit.maximumNodes, "no more nodes than the bound")
                switch next {
                case .scalar: break
                case .sequence(let items):
                    precondition(depth <= YAMLLimit.maximumDepth, "no deeper than the bound")
                    stack += items.map { ($0, depth + 1) }
                case .mapping(let mapping):
                    precondition(depth <= YAMLLimit.maximumDepth, "no deeper than the bound")
                    stack += mapping.pairs.flatMap { [($0.key, depth + 1), ($0.value, depth + 1)] }
                }
            }
        }
        let file = Array("---\n".utf8) + bytes + Array("\n---\nBody\n".utf8)
        let fields = FrontMatterStamper.timeFields(file)
        _ = EntryTime.read(fields: fields, fileName: "entry.md", modified: Date(), timeZone: .utc)
        _ = FrontMatterStamper.position(file)
        _ = DiaryEntry.read(file, fileName: "entry.md", modified: Date(), timeZone: .utc)
    }

    /// Bytes on the socket go through the HTTP decoder with the daemon's limits, its connection guard and its
    /// routing without a trap, and every request routes to an endpoint or a 4xx answer.
    package static func request(_ bytes: [UInt8]) {
        let channel = EmbeddedChannel()
        do {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                withErrorHandling: false,
                withEncoderConfiguration: .init(),
                withDecoderLimitConfiguration: SocketServer.decoderLimits
            )
            let registry = ConnectionRegistry()
            try channel.pipeline.syncOperations.addHandler(
                RequestGuardHandler(idleTimeout: .seconds(30), connection: registry.add(channel), registry: registry)
            )
        } catch {
            preconditionFailure("pipeline set-up: \(error)")
        }
        // Two writes split where the first byte says, to exercise partial reads.
        let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
        for part in [bytes[..<split], bytes[split...]] where !part.isEmpty {
            _ = try? channel.writeInbound(ByteBuffer(bytes: part))
        }
        while let part = try? channel.readInbound(as: HTTPServerRequestPart.self) {
            guard case .head(let head) = part else { continue }
            switch APIRouter.route(method: "\(head.method)", uri: head.uri) {
            case .tag(let format): precondition(format == "json" || format == "text")
            case .location, .status: break
            case .entries(let query): precondition((1...EntryQuery.maximumLimit).contains(query.limit))
            case .entry(let path): precondition(!path.isEmpty)
            case .refused(let response):
                precondition((400..<500).contains(response.status), "refusals are client errors")
                precondition(response.body.utf8.count < 1024, "refusals stay small")
            }
        }
        _ = try? channel.finish()
    }

    /// The configuration's JSON parser never traps, and what it accepts serialises back to the same value; every
    /// plugin's answer readers read the same bytes, JSON or not (a track file is XML or lines).
    package static func json(_ bytes: [UInt8]) {
        Self.answers(bytes)
        Self.vaultSettings(bytes)
        guard let value = try? JSONParser.parse(bytes) else { return }
        guard let again = try? JSONParser.parse(Array(value.serialized.utf8)) else {
            preconditionFailure("the serialised form of an accepted document parses")
        }
        precondition(again == value, "parse ∘ serialise is the identity")
    }

    /// A vault's settings files, each holding `bytes`: read without a trap, and every place they give is inside the
    /// vault (no `..`, not absolute).
    static func vaultSettings(_ bytes: [UInt8]) {
        struct Files: ConfigurationFiles {
            let bytes: [UInt8]
            func contents(_ path: String) -> [UInt8]? { path.hasSuffix(".json") ? self.bytes : nil }
            func kind(_ path: String) -> ConfigurationFileKind? { path.hasSuffix(".obsidian") ? .folder : nil }
            func permissions(_ path: String) -> Int? { nil }
        }
        guard let vault = VaultLayout.read(inbox: "/vault", files: Files(bytes: bytes)) else {
            preconditionFailure("a vault is a vault")
        }
        for place in vault.entries + vault.templateFolders + vault.templateFiles {
            precondition(
                !place.path.hasPrefix("/") && !place.path.split(separator: "/").contains(".."), "inside the vault")
        }
    }

    /// Every answer reader of every registered plugin (`Plugin.answers`: each service's documented answers, each
    /// program's printed one, each track file's format), asked of the registry, so that a new plugin's are read
    /// here with no list to edit.
    package static let readers = PluginRegistries.builtIns.weather.answers + PluginRegistries.builtIns.location.answers

    /// Every reader reads the same bytes without a trap (numbers and times beyond any measure included); and
    /// Open-Meteo's hours (`OpenMeteoHistory`, read as they are parsed by `JSONPullReader`) stay bounded, kept and read
    /// back unchanged.
    package static func answers(_ bytes: [UInt8]) {
        for (_, reader) in Self.readers { reader.read(bytes) }
        guard let series = try? OpenMeteoHistory.decode(bytes) else { return }
        precondition(series.count <= 400 * 24, "at most 400 days of hours")
        precondition(HourlySeries(encoded: series.encoded) == series, "kept and read back unchanged")
    }
}
