extension InboxStateMachine {
    /// Names not taken into the map yet, in order. The map holds at most `Configuration.intakeLimit` entries on their
    /// way (`Counts.moving`: those parked for weather, history, an editor or their day do not count). What arrives or
    /// a listing finds past that waits here as a name alone, its bytes and one more (`NameLine`), where an entry held
    /// costs about 130 (its slot in the map, its ticket in the queue, its notice); it is taken in as those on their
    /// way are done (`takeInFromIntake`). Held whole, a burst of 50,000 took 6.6 MiB (docs/PERFORMANCE.md).
    ///
    /// A name here is in no place: it waits for its turn only (`waitingReason` says `queued`), and nothing is decided
    /// about it until it is taken in, as it would have been when it came.
    struct Intake: Sendable {
        /// Written and closed, moved in, or their editor's lock went: taken in as arrivals (with their settle time).
        /// A name written again while it waits here is here twice, and the second time it is taken in it is already
        /// held (or stamped, and read once more).
        var arrived = NameLine()
        /// What listings found past the limit, in name order: taken in as they found them. Each listing's rest is
        /// merged in, each name once, so that polls over a long queue do not pile names up, and a listing that could
        /// not read a folder does not drop what an earlier one found there.
        var listed = NameLine()

        var count: Int { self.arrived.count + self.listed.count }
        var isEmpty: Bool { self.arrived.isEmpty && self.listed.isEmpty }

        /// Which of `names` wait here (a walk over the intake).
        func waiting(among names: Set<String>) -> Set<String> {
            guard !self.isEmpty, !names.isEmpty else { return [] }
            var found: Set<String> = []
            for line in [self.arrived, self.listed] {
                line.forEach { name in if names.contains(name) { found.insert(name) } }
            }
            return found
        }
    }

    /// Whether a name the map does not hold is taken in now: the map has room, and no arrival waits before it.
    var takesInArrivals: Bool {
        self.intake.arrived.isEmpty && self.counts.moving < self.configuration.intakeLimit
    }

    /// Whether the map holds `name` somewhere (not only remembers it): its news is taken in whatever the limit.
    func holds(_ name: String) -> Bool { self.entries[name]?.place != nil }

    /// Takes names from the intake while the map has room: arrivals first (someone has just written them), then what
    /// the last listing found.
    mutating func takeInFromIntake() {
        guard !self.intake.isEmpty else { return }
        let limit = self.configuration.intakeLimit
        let now = self.clock.now
        var arrived: [String] = []
        while self.counts.moving < limit, let name = self.intake.arrived.popFirst() {
            self.arrive(name, at: now)
            arrived.append(name)
        }
        if let delay = self.configuration.noticeDelay { self.notices.arrived(arrived, at: now, delay: delay) }
        var listed: [String] = []
        while self.counts.moving < limit, let name = self.intake.listed.popFirst() {
            self.list(name)
            listed.append(name)
        }
        // Found by a long listing: read before the first weather as the rest of it was.
        if self.weather.last == nil { self.listedBeforeWeather += listed.count }
        if let delay = self.configuration.noticeDelay { self.notices.arrived(listed, at: now, delay: delay) }
    }
}
