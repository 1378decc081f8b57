import FoundationEssentials

/// Whether the weather block found in an entry is the entry's own, or came with its text from somewhere else: a
/// template weathertag stamped (every note made from it inherits the template's weather), or last week's note
/// copied to start today's.
///
/// Two signs mark a block that is not the entry's own: its time contradicts the entry's own time, and the memory of
/// stamps says weathertag wrote it into another entry that still holds it. Only both together make weathertag
/// replace it (`copied`): the block is then weathertag's own writing, for another entry, and the entry gets its own
/// weather in its place. A block whose time contradicts the entry's but that weathertag has no memory of writing
/// elsewhere may be the author's own, and is never rewritten (`anotherTime`: left as it is, in a lane of its own). A
/// block whose time agrees with the entry's is its own wherever else it was written: a same-day copy keeps the
/// day's weather, and two entries stamped in the same ten minutes share one block.
///
/// The entry's own time is its front matter's date, the date in its name, or its arrival (its modification time).
/// An arrival is no word of the author's on when it was written (an entry edited a week after its stamp arrives
/// again), so it marks a block as another's only where the memory says weathertag wrote it elsewhere.
package struct BlockOwnership: Sendable {
    /// How far a block's time may lie from the entry's own before it contradicts it: an hour each way for the
    /// weather of an entry's own hour; for current weather, an hour before the entry's time to an hour past the
    /// longest an entry waits for current weather (`backdatedAfter`).
    package static let tolerance: TimeInterval = 3600

    /// How long after its own time an entry is still given current weather (`stamp.backdated_after_seconds`).
    package var backdatedAfter: TimeInterval
    /// The zone an entry's time without an offset is read in.
    package var timeZone: Zone

    package init(backdatedAfter: TimeInterval = 10_800, timeZone: Zone = .current) {
        self.backdatedAfter = backdatedAfter
        self.timeZone = timeZone
    }

    /// What becomes of a block found in an entry.
    package enum Verdict: Sendable, Equatable {
        /// The entry's own: kept.
        case own
        /// Weathertag wrote it for another entry (`from`, relative to the inbox) and it is not of this entry's
        /// time: replaced by the entry's own weather, the author's bytes kept.
        case copied(from: String)
        /// Not of the entry's time, and weathertag has no memory of writing it elsewhere: left as it is.
        case anotherTime(AnotherTime)
    }

    /// - Parameters:
    ///   - facts: what the block says of itself.
    ///   - entry: the entry's own time.
    ///   - provenance: what the memory says of the block (asked only when its time contradicts the entry's, or
    ///     the block has no time of its own).
    package func judge(
        _ facts: StampFacts, entry: EntryTime, provenance: () -> BlockProvenance
    ) -> Verdict {
        var asked: BlockProvenance?
        func memory() -> BlockProvenance {
            if let asked { return asked }
            let answer = provenance()
            asked = answer
            return answer
        }
        // A block without a time of its own (`stamp.fields` without it) is of the time weathertag wrote it.
        let time: Date
        if let observed = facts.observed {
            time = observed
        } else if case .writtenInto(_, let at?) = memory() {
            time = at
        } else {
            return .own
        }
        guard self.contradicts(time, day: facts.localDay, kind: facts.kind, entry: entry) else { return .own }
        switch memory() {
        case .writtenInto(let other, _): return .copied(from: other)
        case .writtenHere, .foundHere: return .own
        case .unknown:
            guard entry.source != .modificationTime else { return .own }
            return .anotherTime(AnotherTime(block: time, blockDay: facts.localDay, entry: entry))
        }
    }

    /// Whether a block's weather at `time` (on its place's clock, the day `day`) cannot be the weather of an entry
    /// written at `entry`.
    package func contradicts(_ time: Date, day: String?, kind: StampFacts.Kind?, entry: EntryTime) -> Bool {
        if entry.dayOnly {
            // A day: the block's day on its own clock, or within the entry's day as the machine's clock has it.
            if let day, day == entry.localDay { return false }
            let start = entry.date.addingTimeInterval(-Self.tolerance)
            let end =
                entry.timeZone.calendar(at: entry.date).date(byAdding: .day, value: 1, to: entry.date)
                .map { $0.addingTimeInterval(Self.tolerance) } ?? entry.date.addingTimeInterval(86_400 + Self.tolerance)
            return time < start || time >= end
        }
        let offset = time.timeIntervalSince(entry.date)
        if kind == .historical { return abs(offset) > Self.tolerance }
        return offset < -Self.tolerance || offset > self.backdatedAfter + Self.tolerance
    }
}

/// What the memory of stamps says of a block found in an entry.
package enum BlockProvenance: Sendable, Equatable {
    /// Weathertag wrote this block into this entry (stamped or given back), at `at`.
    case writtenHere(at: Date?)
    /// Remembered for this entry, as found in it: weathertag did not write it.
    case foundHere
    /// Weathertag wrote it into another entry of the inbox (`path`, relative to it), which is still there, at `at`.
    case writtenInto(String, at: Date?)
    /// Nothing is remembered of it.
    case unknown
}

/// A block whose time is not the entry's: when its weather was, and when the entry was written.
package struct AnotherTime: Sendable, Equatable, CustomStringConvertible {
    package var block: Date
    /// Its day on its place's clock, when it says.
    package var blockDay: String?
    package var entry: EntryTime

    package init(block: Date, blockDay: String?, entry: EntryTime) {
        self.block = block
        self.blockDay = blockDay
        self.entry = entry
    }

    package var description: String { self.said.english }

    /// Why, in words a view says in its reader's language.
    package var said: Said {
        let blockTime: String
        if self.entry.dayOnly, let day = self.blockDay {
            blockTime = day
        } else {
            blockTime =
                EntryTime(date: self.block, dayOnly: false, source: .given, timeZone: self.entry.timeZone)
                .description
        }
        return Said(
            """
            its weather block is the weather of {block}, but it was written {time} (by {source}): weathertag did not \
            write that block for it, and leaves it as it is
            """,
            [
                "block": .text(blockTime), "time": .text(self.entry.description),
                "source": .said(self.entry.source.said),
            ])
    }
}

extension EntryTime.Source {
    /// `its front matter's date`, `its file name`, `its modification time`, `--at`.
    package var words: String { self.said.english }

    /// The same, in words a view says in its reader's language.
    package var said: Said {
        switch self {
        case .frontMatter(let key): return Said("its front matter's {key}", ["key": .text(key)])
        case .fileName: return Said("its file name")
        case .modificationTime: return Said("its modification time")
        case .given: return Said(verbatim: "--at")
        }
    }
}
