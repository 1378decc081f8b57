import Foundation
import Testing
import WeathertagCore

/// Never weather from a borrowed place: the rule (`BorrowedPlace`) and a current entry's verdict under it.
@Suite("a place lent by this machine, and an entry's own clock")
struct BorrowedPlaceRuleTests {
    static let seoul = Zone(TimeZone(identifier: "Asia/Seoul") ?? .gmt)
    static let berlin = Zone(TimeZone(identifier: "Europe/Berlin") ?? .gmt)
    /// 2026-11-23 11:00Z.
    static let now = Date(timeIntervalSince1970: 1_795_431_600)

    func time(_ text: String, machine: Zone = .utc) throws -> EntryTime {
        try EntryTime.read(fields: ["date": text], fileName: "e.md", modified: Self.now, timeZone: machine).get()
    }

    @Test func aClockAgreesWithTheMachineOrThePlaceOrNamesNoOffset() throws {
        // Seoul's own clock, the machine's, none at all: the place may be used.
        for text in ["2025-07-01T21:00:00+09:00", "2025-07-01T12:00:00Z", "2025-07-01 12:00", "2025-07-01"] {
            let contradiction = BorrowedPlace.contradiction(
                try self.time(text), machineZone: .utc, place: "Seoul", placeZone: Self.seoul)
            #expect(contradiction == nil, "\(text)")
        }
        // Berlin's: neither. Both clocks are named, with the place.
        let berlin = try #require(
            BorrowedPlace.contradiction(
                try self.time("2025-07-01T14:00:00+02:00"), machineZone: .utc, place: "Seoul",
                placeZone: Self.seoul))
        #expect(berlin == Elsewhere(entryOffset: 7200, machineOffset: 0, place: "Seoul", placeOffset: 32_400))
        #expect(berlin.description == "its own clock (+02:00) is neither this machine's (UTC) nor Seoul's (+09:00)")
        // The place's zone not known: only the machine's clock can agree.
        #expect(
            BorrowedPlace.contradiction(try self.time("2025-07-01T21:00:00+09:00"), machineZone: .utc)
                == Elsewhere(entryOffset: 32_400, machineOffset: 0))
        // A machine in Berlin in summer is +02:00 and in winter +01:00: the offset at the entry's own instant.
        #expect(
            BorrowedPlace.contradiction(try self.time("2025-07-01T14:00:00+02:00"), machineZone: Self.berlin) == nil)
        #expect(
            BorrowedPlace.contradiction(try self.time("2025-01-01T14:00:00+02:00"), machineZone: Self.berlin) != nil)
    }

    /// A current entry written elsewhere: asked of history (where the providers that know where the author was
    /// answer) or left alone, never given current weather from here.
    @Test func aCurrentEntryWrittenElsewhereIsNotGivenWeatherFromHere() throws {
        var policy = BackdatingPolicy(timeZone: .utc, now: { Self.now })
        policy.currentPlace = ("Seoul", Self.seoul)
        func verdict(_ date: String, _ policy: BackdatingPolicy) -> BackdatingPolicy.Verdict {
            policy.verdict(frontMatter: ["date": date], fileName: "e.md", modified: Self.now)
        }
        let berlin = "2026-11-23T11:59:00+01:00"
        let time = try self.time(berlin)
        #expect(
            verdict(berlin, policy)
                == .leftAlone(
                    .backdated(
                        time,
                        .elsewhere(Elsewhere(entryOffset: 3600, machineOffset: 0, place: "Seoul", placeOffset: 32_400))
                    )))
        var asking = policy
        asking.asksHistory = true
        #expect(verdict(berlin, asking) == .backdated(time))
        // Seoul's clock, the machine's, none: current.
        for date in ["2026-11-23T19:59:00+09:00", "2026-11-23T10:59:00Z", "2026-11-23 10:59"] {
            guard case .current = verdict(date, policy) else {
                Issue.record("\(date) is current")
                continue
            }
        }
        // Without a current place (no weather yet), nothing is decided by it.
        guard case .current = verdict(berlin, BackdatingPolicy(timeZone: .utc, now: { Self.now })) else {
            Issue.record("no current place: current")
            return
        }
    }
}

/// A town is named only where it is near: further out, the region (`PlaceName.townReach`).
@Suite("a place named only where it is near")
struct TownReachTests {
    @Test func aHamletFarFromTheNearestTownGetsItsRegion() {
        let cairns = PlaceName(name: "Cairns", region: "Queensland", country: "AU", zone: "Australia/Brisbane")
        #expect(PlaceName.near(cairns, distance: 4_000) == cairns)
        let hamlet = PlaceName.near(cairns, distance: 30_000)
        #expect(hamlet.name == "Queensland" && hamlet.region == "Queensland" && hamlet.zone == "Australia/Brisbane")
        let noRegion = PlaceName(name: "Somewhere", country: "NR", zone: "Pacific/Nauru")
        #expect(PlaceName.near(noRegion, distance: 30_000).name == "NR")
    }
}
