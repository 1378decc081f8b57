import FoundationEssentials

/// What becomes of an entry, decided from the bytes read and what is known of it, before anything is written: the
/// pure half of a stamp (`EntryFile` in the daemon is the other, the system calls that write it in place).
///
/// In this order: a template is left alone, whatever it holds; an entry with a block of its own keeps it, one with
/// a block weathertag wrote for another entry (a template's, last week's note copied) gets its own weather in its
/// place, one with a block of another time weathertag did not write is left alone (`BlockOwnership`); one whose
/// front matter must not be edited is left alone; one that came back without its block gets the remembered block
/// back, whenever it was written; one written long ago waits for the weather of its time (or is left alone); one
/// dated ahead waits for its time; a current one gets the current weather, or waits for it.
package enum StampDecision: Sendable, Equatable {
    /// Write `content` in its place: the entry with `block` (`restoring`: the remembered block given back).
    case write([UInt8], block: [String], restoring: Bool)
    /// It has a block already (`block`, as read, when it reads as one).
    case alreadyStamped(block: [String]?)
    /// Left as it is: its content, its time, or back-dated without history.
    case leftAlone(LeftAloneReason)
    /// Back-dated: the weather of its time is to be asked for.
    case wantsHistory(HistoryRequest)
    /// Dated a little ahead of now: looked at again after `wait`.
    case datedAhead(EntryTime, wait: Duration)
    /// Current, and no current weather to be had: it waits for it, untouched.
    case needsWeather

    /// What the stamper is asked with when there is no current weather, to learn what the entry needs: never
    /// written. In the form stamps are written in (an author's own `weather: sunny` stops a block, not properties).
    static func placeholder(_ format: StampFormat) -> [String] {
        format == .block ? ["weather:", "  pending: true"] : ["weather_kind: pending"]
    }

    /// - Parameters:
    ///   - original: the entry's bytes, as read.
    ///   - name: its file name (a date in it dates the entry).
    ///   - modified: its modification time (the last word on its date).
    ///   - lines: the block of current weather; nil while none can be had.
    ///   - format: the form stamps are written in (`stamp.format`), for an entry asked about without weather.
    ///   - replacing: an existing block is replaced by `lines` (`stamp --fresh`).
    ///   - backdating: an entry written before what current weather can speak for is not given it.
    ///   - known: what is known of the entry besides its bytes: the block remembered for it, whether it is a template,
    ///     how a block found in it is judged.
    package static func decide(
        _ original: [UInt8], name: String, modified: Date, lines: [String]?, format: StampFormat = .block,
        replacing: Bool = false, backdating: BackdatingPolicy? = nil, known: Known = Known()
    ) -> StampDecision {
        Self.decideComposing(
            original, name: name, modified: modified, lines: lines, format: format, replacing: replacing,
            backdating: backdating, known: known
        ).decision
    }

    /// What is known of an entry besides its bytes: what the memory holds of it, and whether it is the diary's at
    /// all and a block found in it its own.
    package struct Known {
        /// The block remembered for the entry: given back when it has none (nil: new weather), and the block that
        /// is its own when it has one.
        package var remembered: () -> [String]?
        /// The note is a template by the vault's settings (`InboxTree.template`); its text may say so too
        /// (`TemplateSign.placeholder`), which the decision reads itself.
        package var template: TemplateSign?
        /// How a block found in an entry is judged; nil: every block found is the entry's own.
        package var ownership: BlockOwnership?
        /// What the memory of stamps says of a block (asked only when the judgement needs it).
        package var provenance: ([String]) -> BlockProvenance

        package init(
            remembered: @escaping () -> [String]? = { nil }, template: TemplateSign? = nil,
            ownership: BlockOwnership? = nil, provenance: @escaping ([String]) -> BlockProvenance = { _ in .unknown }
        ) {
            self.remembered = remembered
            self.template = template
            self.ownership = ownership
            self.provenance = provenance
        }
    }

    /// `decide`, with the front matter the stamper composed of the bytes the entry holds after it (what is written,
    /// or the original when it is stamped already; `FrontMatterStamper.stampComposing`): for the index, which reads
    /// the same bytes. Nil where nothing is written or none was composed.
    package static func decideComposing(
        _ original: [UInt8], name: String, modified: Date, lines: [String]?, format: StampFormat = .block,
        replacing: Bool = false, backdating: BackdatingPolicy? = nil, known: Known = Known()
    ) -> (decision: StampDecision, frontMatter: ComposedFrontMatter?) {
        // A template is never an entry: a note made from it would inherit what it held.
        if let template = known.template ?? TemplateSign.placeholder(in: original) {
            return (.leftAlone(.template(template, Self.held(original, known))), nil)
        }
        var content: [UInt8]
        var composed: ComposedFrontMatter?
        // The other entry whose block, written there by weathertag, this one holds (and is replaced).
        var copiedFrom: String?
        let first = FrontMatterStamper.stampComposing(
            original, lines: lines ?? Self.placeholder(format), replacing: replacing)
        switch first.outcome {
        case .stamped(let stamped): (content, composed) = (stamped, first.frontMatter)
        case .alreadyStamped:
            let block = FrontMatterStamper.weatherBlock(
                original, checked: true, mapping: first.frontMatter?.mapping)
            switch Self.judge(block, original, name: name, modified: modified, backdating, known) {
            case .own: return (.alreadyStamped(block: block), first.frontMatter)
            case .anotherTime(let another): return (.leftAlone(.anotherTime(another)), nil)
            case .copied(let other):
                let again = FrontMatterStamper.stampComposing(
                    original, lines: lines ?? Self.placeholder(format), replacing: true)
                switch again.outcome {
                case .stamped(let stamped): (content, composed, copiedFrom) = (stamped, again.frontMatter, other)
                case .alreadyStamped: return (.leftAlone(.content(.cannotAppend)), nil)
                case .skipped(let reason): return (.leftAlone(.content(reason)), nil)
                }
            }
        case .skipped(let reason): return (.leftAlone(.content(reason)), nil)
        }
        // Back without its block (an old buffer saved, a sync writing the unstamped version again): the same block
        // goes back, whenever the entry was written.
        if !replacing, copiedFrom == nil, let block = known.remembered() {
            let restored = FrontMatterStamper.stampComposing(original, lines: block)
            if case .stamped(let bytes) = restored.outcome {
                return (.write(bytes, block: block, restoring: true), restored.frontMatter)
            }
        }
        // Written long before now: current weather would not be the weather it was written in. A time that cannot
        // be read, or lies ahead, is never replaced by a guess.
        if let backdating {
            switch backdating.verdict(
                frontMatter: FrontMatterStamper.timeFields(original), fileName: name, modified: modified)
            {
            case .current: break
            case .backdated(let time):
                // The weather of its own time, where it was written (its front matter may say).
                guard backdating.asksHistory else { return (.leftAlone(.backdated(time)), nil) }
                return (.wantsHistory(HistoryRequest(time: time, position: FrontMatterStamper.position(original))), nil)
            case .ahead(let time, let wait): return (.datedAhead(time, wait: wait), nil)
            case .leftAlone(let reason): return (.leftAlone(reason), nil)
            }
        }
        guard let lines else { return (.needsWeather, nil) }
        return (.write(content, block: lines, restoring: false), composed)
    }

    /// Whether the block `block` found in the entry is its own (`BlockOwnership`): the one remembered for it is, by
    /// its fingerprint; otherwise its time is set against the entry's own, and the memory asked when they disagree.
    private static func judge(
        _ block: [String]?, _ original: [UInt8], name: String, modified: Date, _ backdating: BackdatingPolicy?,
        _ known: Known
    ) -> BlockOwnership.Verdict {
        guard let ownership = known.ownership, let block else { return .own }
        if let own = known.remembered(), own == block || StampFacts.fingerprint(own) == StampFacts.fingerprint(block) {
            return .own
        }
        let fields = FrontMatterStamper.timeFields(original)
        let time: EntryTime
        if let backdating {
            time = backdating.time(frontMatter: fields, fileName: name, modified: modified)
        } else {
            // (A batch with the weather of an entry's own hour asks no policy.)
            time = EntryTime.of(fields: fields, fileName: name, modified: modified, timeZone: ownership.timeZone)
        }
        return ownership.judge(StampFacts(block: block), entry: time) { known.provenance(block) }
    }

    /// What of a weather block a template holds: one weathertag wrote there, one it did not, or none.
    private static func held(_ original: [UInt8], _ known: Known) -> LeftAloneReason.TemplateBlock {
        guard let block = FrontMatterStamper.weatherBlock(original) else { return .none }
        if case .writtenHere(let at) = known.provenance(block) { return .written(at: at) }
        return .unknown
    }
}
