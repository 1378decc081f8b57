/// What every view says of an entry's lane: the words of the document the daemon made from its one `LaneState`
/// (`why` is its `sentence`, `remedy` its `remedy`, after `LaneState.shown` gave the running inbox's word on it).
/// `weathertag why`, `status`, `entries`, the timeline page's cards, `GET /v1/entries` and the bar's tooltip print
/// these, and no words of their own, so none can say an entry waits where `why` says it is left alone. The document
/// carries them in English for machines; a view in another language says the same state in its words.
extension EntryDocument {
    /// Whether a view that lists entries says why this one is where it is: every entry but one plainly stamped (whose
    /// sentence, "It is stamped.", says nothing its weather does not).
    package var saysWhy: Bool {
        !(self.lane == Lane.stamped.rawValue && self.reason == LaneReason.stamped.rawValue)
    }

    /// The state the document gives, when this version knows its lane.
    package var laneState: LaneState? {
        guard let lane = Lane(rawValue: self.lane) else { return nil }
        let detail = self.detailMessage.flatMap(Said.init(nodes:)) ?? self.detail.map(Said.init(verbatim:))
        return LaneState(lane, LaneReason.indexed(self.reason, in: lane), detail: detail)
    }

    /// Its `why` in the reader's language.
    package func why(_ words: Messages) -> String {
        guard !words.isEnglish, let state = self.laneState else { return self.why }
        return state.sentence(words)
    }

    /// Its `remedy` in the reader's language.
    package func remedy(_ words: Messages) -> String? {
        guard !words.isEnglish, self.remedy != nil, let state = self.laneState else { return self.remedy }
        return state.remedy(words)
    }

    /// The name of a lane as a reader says it.
    package static func laneName(_ lane: String, _ words: Messages) -> String {
        switch Lane(rawValue: lane) {
        case .waiting: return words.tr("waiting", context: "lane")
        case .stamped: return words.tr("stamped", context: "lane")
        case .backdated: return words.tr("back-dated", context: "lane")
        case .leftAlone: return words.tr("left alone", context: "lane")
        case .otherTime: return words.tr("weather from another time", context: "lane")
        case nil: return lane
        }
    }

    /// `weathertag why`'s first lines: the entry, its lane and the sentence; then what would change it.
    package func explanation(_ words: Messages = .english) -> [String] {
        let lane = words.isEnglish ? self.lane : Self.laneName(self.lane, words)
        return ["\(self.path) (\(lane)): \(self.why(words))"] + (self.remedy(words).map { [$0] } ?? [])
    }

    /// One line for a list of entries (`status`'s latest): the path, and why where it says why.
    package func listed(_ words: Messages = .english) -> String {
        self.saysWhy ? "\(self.path): \(self.why(words))" : self.path
    }
}

extension LanesDocument {
    /// `weathertag status`'s lines of the lanes: each lane's count, then the latest entries of each lane, a line each
    /// (an entry that says why with its `why`; plainly stamped ones together on one line).
    package func lines(_ words: Messages = .english) -> [String] {
        // (Weather from another time is rare, and named only when there is some.)
        let all: [(count: String, latest: String, lane: Lane)] =
            [
                (
                    words.tr("{count} waiting", plural: "{count} waiting", count: self.waiting.count),
                    words.tr("latest waiting"), self.waiting
                ),
                (
                    words.tr("{count} stamped", plural: "{count} stamped", count: self.stamped.count),
                    words.tr("latest stamped"), self.stamped
                ),
                (
                    words.tr("{count} back-dated", plural: "{count} back-dated", count: self.backdated.count),
                    words.tr("latest back-dated"), self.backdated
                ),
                (
                    words.tr("{count} left alone", plural: "{count} left alone", count: self.leftAlone.count),
                    words.tr("latest left alone"), self.leftAlone
                ),
            ]
            + (self.otherTime.count > 0
                ? [
                    (
                        words.tr(
                            "{count} with weather from another time", plural: "{count} with weather from another time",
                            count: self.otherTime.count),
                        words.tr("latest with weather from another time"), self.otherTime
                    )
                ] : [])
        var lines = [words.list(all.map(\.count))]
        for (_, latest, lane) in all where !lane.latest.isEmpty {
            let plain = lane.latest.filter { !$0.saysWhy }.map(\.path)
            if !plain.isEmpty { lines.append("\(latest): " + words.list(plain)) }
            for entry in lane.latest where entry.saysWhy { lines.append("\(latest): \(entry.listed(words))") }
        }
        if !self.stampedTemplates.isEmpty {
            lines.append(
                words.tr(
                    "templates holding a block weathertag wrote (`weathertag stamp --remove` takes it out): {files}",
                    ["files": words.list(self.stampedTemplates)]))
        }
        return lines
    }
}
