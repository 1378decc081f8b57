import FoundationEssentials

/// An entry whose own clock says it was not written where this machine is, or always was: a phone's entry written
/// in Berlin (`+02:00`), synced to a machine at home in Seoul. The weather of Seoul would be borrowed from a place
/// the entry's own clock contradicts, so it is not stamped with it.
package struct Elsewhere: Sendable, Equatable, CustomStringConvertible {
    /// The entry's own offset at its instant, in seconds.
    package var entryOffset: Int
    /// This machine's offset then (`TZ`, else `/etc/localtime`).
    package var machineOffset: Int
    /// The place the machine's providers give, when named, and its offset then, when known.
    package var place: String?
    package var placeOffset: Int?

    package init(entryOffset: Int, machineOffset: Int, place: String? = nil, placeOffset: Int? = nil) {
        self.entryOffset = entryOffset
        self.machineOffset = machineOffset
        self.place = place
        self.placeOffset = placeOffset
    }

    /// `its own clock (+02:00) is neither this machine's (UTC) nor Seoul's (+09:00)`.
    package var description: String { self.said.english }

    /// The same, in words a view says in its reader's language.
    package var said: Said {
        let own: Said.Argument = .text(DiaryFormatting.offsetName(self.entryOffset))
        let machine: Said.Argument = .text(DiaryFormatting.offsetName(self.machineOffset))
        switch (self.place, self.placeOffset) {
        case (let place?, let offset?):
            return Said(
                "its own clock ({own}) is neither this machine's ({machine}) nor {place}'s ({offset})",
                [
                    "own": own, "machine": machine, "place": .text(place),
                    "offset": .text(DiaryFormatting.offsetName(offset)),
                ])
        case (nil, let offset?):
            return Said(
                "its own clock ({own}) is neither this machine's ({machine}) nor its place's ({offset})",
                ["own": own, "machine": machine, "offset": .text(DiaryFormatting.offsetName(offset))])
        case (let place?, nil):
            return Said(
                "its own clock ({own}) is neither this machine's ({machine}) nor, as far as is known, {place}'s",
                ["own": own, "machine": machine, "place": .text(place)])
        case (nil, nil):
            return Said(
                "its own clock ({own}) is neither this machine's ({machine})", ["own": own, "machine": machine])
        }
    }
}

/// When a place from a provider that knows only where this machine is or always was (`fixed`, `ip`, `gpsd`, a
/// `command` without `{time}`) may be an entry's: when the entry names no offset of its own (its clock is the
/// machine's), or its own offset at its instant is the machine's or that place's. Pure.
package enum BorrowedPlace {
    /// Nil when the place may be used; otherwise the contradiction, to be told.
    ///
    /// - Parameters:
    ///   - placeZone: the place's zone (from the towns index, a GeoNames folder, or the weather source's answer),
    ///     nil when not known: then only the machine's clock can agree.
    package static func contradiction(
        _ time: EntryTime, machineZone: Zone, place: String? = nil, placeZone: Zone? = nil
    ) -> Elsewhere? {
        guard time.namesItsOffset else { return nil }
        let instant = time.moment
        let own = time.writtenIn.secondsFromGMT(for: instant)
        let machine = machineZone.secondsFromGMT(for: instant)
        let placeOffset = placeZone?.secondsFromGMT(for: instant)
        guard own != machine, own != placeOffset else { return nil }
        return Elsewhere(entryOffset: own, machineOffset: machine, place: place, placeOffset: placeOffset)
    }
}
