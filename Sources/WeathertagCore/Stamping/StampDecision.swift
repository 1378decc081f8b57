import FoundationEssentials

/// What becomes of an entry, decided from the bytes read and what is known of it, before anything is written: the
/// pure half of a stamp (`EntryFile` in the daemon is the other, the system calls that write it in place).
///
/// In this order: an entry with a block keeps it; one whose front matter must not be edited is left alone; one
/// that came back without its block gets the remembered block back, whenever it was written; one written long ago
/// waits for the weather of its time (or is left alone); one dated ahead waits for its time; a current one gets the
/// current weather, or waits for it.
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
    ///   - remembered: the block remembered for the entry, asked only when it has none.
    package static func decide(
        _ original: [UInt8], name: String, modified: Date, lines: [String]?, format: StampFormat = .block,
        replacing: Bool = false, backdating: BackdatingPolicy? = nil, remembered: () -> [String]? = { nil }
    ) -> StampDecision {
        Self.decideComposing(
            original, name: name, modified: modified, lines: lines, format: format, replacing: replacing,
            backdating: backdating, remembered: remembered
        ).decision
    }

    /// `decide`, with the front matter the stamper composed of the bytes the entry holds after it (what is written,
    /// or the original when it is stamped already; `FrontMatterStamper.stampComposing`): for the index, which reads
    /// the same bytes. Nil where nothing is written or none was composed.
    package static func decideComposing(
        _ original: [UInt8], name: String, modified: Date, lines: [String]?, format: StampFormat = .block,
        replacing: Bool = false, backdating: BackdatingPolicy? = nil, remembered: () -> [String]? = { nil }
    ) -> (decision: StampDecision, frontMatter: ComposedFrontMatter?) {
        let content: [UInt8]
        let first = FrontMatterStamper.stampComposing(
            original, lines: lines ?? Self.placeholder(format), replacing: replacing)
        switch first.outcome {
        case .stamped(let stamped): content = stamped
        case .alreadyStamped:
            return (.alreadyStamped(block: FrontMatterStamper.weatherBlock(original, checked: true)), first.frontMatter)
        case .skipped(let reason): return (.leftAlone(.content(reason)), nil)
        }
        // Back without its block (an old buffer saved, a sync writing the unstamped version again): the same block
        // goes back, whenever the entry was written.
        if !replacing, let block = remembered() {
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
        return (.write(content, block: lines, restoring: false), first.frontMatter)
    }
}
