/// What every view says of an entry's lane: the words of the document the daemon made from its one `LaneState`
/// (`why` is its `sentence`, `remedy` its `remedy`, after `LaneState.shown` gave the running inbox's word on it).
/// `weathertag why`, `status`, `entries`, the timeline page's cards, `GET /v1/entries` and the bar's tooltip print
/// these, and no words of their own, so none can say an entry waits where `why` says it is left alone.
extension EntryDocument {
    /// Whether a view that lists entries says why this one is where it is: every entry but one plainly stamped (whose
    /// sentence, "It is stamped.", says nothing its weather does not).
    package var saysWhy: Bool {
        !(self.lane == Lane.stamped.rawValue && self.reason == LaneReason.stamped.rawValue)
    }

    /// `weathertag why`'s first lines: the entry, its lane and the sentence; then what would change it.
    package var explanation: [String] {
        ["\(self.path) (\(self.lane)): \(self.why)"] + (self.remedy.map { [$0] } ?? [])
    }

    /// One line for a list of entries (`status`'s latest): the path, and why where it says why.
    package var listed: String {
        self.saysWhy ? "\(self.path): \(self.why)" : self.path
    }
}

extension LanesDocument {
    /// `weathertag status`'s lines of the lanes: each lane's count, then the latest entries of each lane, a line each
    /// (an entry that says why with its `why`; plainly stamped ones together on one line).
    package var lines: [String] {
        // (Weather from another time is rare, and named only when there is some.)
        let all: [(String, Lane)] =
            [
                ("waiting", self.waiting), ("stamped", self.stamped), ("back-dated", self.backdated),
                ("left alone", self.leftAlone),
            ] + (self.otherTime.count > 0 ? [("with weather from another time", self.otherTime)] : [])
        var lines = [all.map { "\($1.count) \($0)" }.joined(separator: " · ")]
        for (name, lane) in all where !lane.latest.isEmpty {
            let plain = lane.latest.filter { !$0.saysWhy }.map(\.path)
            if !plain.isEmpty { lines.append("latest \(name): " + plain.joined(separator: " · ")) }
            for entry in lane.latest where entry.saysWhy { lines.append("latest \(name): \(entry.listed)") }
        }
        if !self.stampedTemplates.isEmpty {
            lines.append(
                "templates holding a block weathertag wrote (`weathertag stamp --remove` takes it out): "
                    + self.stampedTemplates.joined(separator: " · "))
        }
        return lines
    }
}
