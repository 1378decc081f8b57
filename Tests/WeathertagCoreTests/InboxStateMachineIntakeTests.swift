import Testing
import WeathertagTestSupport

@testable import WeathertagCore

/// The machine's intake: past `intakeLimit` entries held, names wait as names alone, in order, and are taken in as
/// the held ones are done, each as it would have been when it came.
extension InboxStateMachineTests {
    func machine(limit: Int, _ adjust: (inout Machine.Configuration) -> Void = { _ in }) -> Machine {
        self.machine { configuration in
            configuration.intakeLimit = limit
            adjust(&configuration)
        }
    }

    /// Answers every batch as stamped until nothing is out, checking after each event that the map holds no more
    /// than the limit; the names in the order they were stamped.
    static func stampAll(_ machine: inout Machine, _ first: [Machine.Batch], limit: Int) -> [String] {
        var inFlight = first
        var stamped: [String] = []
        while !inFlight.isEmpty {
            let batch = inFlight.removeFirst()
            stamped += batch.names
            let outcome = BatchOutcome(results: batch.names.map { ($0, .stamped(Self.version)) })
            inFlight += machine.receive(.batchFinished(batch, outcome, arrivedMeanwhile: [])).batches
            #expect(machine.entries.count <= limit, "\(machine.entries.count) entries held")
        }
        return stamped
    }

    /// A burst of 1,000 with room for 100: the map never holds more than 100, the rest wait as names and count as
    /// waiting, and every entry is stamped once, in the order it came.
    @Test func aBurstPastTheLimitWaitsAsNamesAndIsStampedInOrder() throws {
        var machine = self.machine(limit: 100)
        _ = machine.receive(.start)
        _ = machine.receive(.weatherArrived(Fixtures.tag))
        let names = Self.names(1000)
        let first = machine.receive(.arrived(names)).batches
        #expect(machine.entries.count == 100)
        #expect(machine.intake.count == 900)
        #expect(machine.waiting == 1000)
        #expect(machine.waitingReason("entry-999.md") == .queued, "a name in the intake waits for its turn")
        #expect(machine.waitingReasons(["entry-0.md", "entry-500.md", "nowhere.md"]) == ["entry-500.md": .queued])
        let stamped = Self.stampAll(&machine, first, limit: 100)
        #expect(stamped == names)
        #expect(machine.isIdle && machine.entries.isEmpty && machine.intake.isEmpty)
    }

    /// Names the map holds are taken in whatever the limit: an entry written again while queued keeps its turn,
    /// and one written again while in its batch is read once more after it, not put in the intake.
    @Test func newsOfAnEntryHeldIsTakenInAtTheLimit() throws {
        var machine = self.machine(limit: 3) { $0.batchSize = 2 }
        _ = machine.receive(.start)
        _ = machine.receive(.weatherArrived(Fixtures.tag))
        let batches = machine.receive(.arrived(["a.md", "b.md", "c.md", "d.md"])).batches
        #expect(batches.map(\.names) == [["a.md", "b.md"], ["c.md"]])
        #expect(machine.intake.count == 1)
        _ = machine.receive(.arrived(["a.md", "c.md"]))
        #expect(machine.intake.count == 1, "written again while held: no second name in the intake")
        let stamped = Self.stampAll(&machine, batches, limit: 3)
        #expect(stamped.sorted() == ["a.md", "a.md", "b.md", "c.md", "c.md", "d.md"])
        #expect(machine.isIdle)
    }

    /// A listing past the limit leaves the rest in the intake; the next listing's rest is merged in, each name
    /// once, so polls over a long queue do not pile names up, and one that could not read a folder (here, the names
    /// from 300 on) drops nothing an earlier one found.
    @Test func aListingsRestIsMergedWithWhatTheLastOneLeft() throws {
        var machine = self.machine(limit: 100)
        _ = machine.receive(.start)
        let names = Self.names(500).sorted()
        let first = machine.receive(.listed(candidates: names, present: nil)).batches
        #expect(machine.entries.count == 100 && machine.intake.listed.count == 400)
        _ = machine.receive(.rescan)
        _ = machine.receive(.listed(candidates: names, present: nil))
        #expect(machine.intake.listed.count == 400, "the same names once")
        _ = machine.receive(.rescan)
        _ = machine.receive(.listed(candidates: Array(names.prefix(300)), present: nil))
        #expect(machine.intake.listed.count == 400, "what the partial listing did not see is kept")
        #expect(machine.waiting == 500)
        let inFlight = first + machine.receive(.weatherArrived(Fixtures.tag)).batches
        let stamped = Self.stampAll(&machine, inFlight, limit: 100)
        #expect(Set(names).subtracting(stamped).sorted().prefix(5) == [], "never stamped")
        #expect(machine.isIdle && machine.intake.isEmpty)
    }

    /// Entries parked for the world do not fill the map's room: with current weather down, four of today's entries
    /// are read and wait for it, and a back-dated one dropped after them still asks history at once (history never
    /// waits on the present, whatever the limit).
    @Test func entriesWaitingOnTheWorldLeaveTheirRoom() throws {
        var machine = self.machine(limit: 2) { $0.sortsWithoutWeather = true }
        _ = machine.receive(.start)
        _ = machine.receive(.listed(candidates: [], present: nil))
        var batches = machine.receive(.arrived(["a.md", "b.md", "c.md", "d.md"])).batches
        batches += machine.receive(.weatherFailed(Failure(description: "HTTP 500"), retryAfter: nil)).batches
        while !batches.isEmpty {
            let batch = batches.removeFirst()
            let outcome = BatchOutcome(results: batch.names.map { ($0, .needsWeather) })
            batches += machine.receive(.batchFinished(batch, outcome, arrivedMeanwhile: [])).batches
        }
        #expect(machine.intake.isEmpty, "all four read, and waiting for weather")
        let old = try #require(machine.receive(.arrived(["old.md"])).batches.first)
        #expect(old.names == ["old.md"] && old.tag == nil)
        let time = try #require(EntryTime.given("2024-01-01", timeZone: .utc))
        let outcome = BatchOutcome(results: [("old.md", .wantsHistory(HistoryRequest(time: time, position: nil)))])
        let asked = machine.receive(.batchFinished(old, outcome, arrivedMeanwhile: [])).histories.map(\.0)
        #expect(asked == ["old.md"], "the back-dated entry asked history behind four that wait for weather")
        #expect(machine.waiting == 5 && machine.intake.isEmpty)
        #expect(machine.counts.moving == 0 && machine.counts.awaitingWeather == 4)
    }

    /// An arrival taken in from the intake settles as it would have when it came: it is not stamped at once.
    @Test func anArrivalTakenInLaterStillSettles() throws {
        var machine = self.machine(limit: 1) {
            $0.settle = .seconds(2)
            $0.tagReuse = .seconds(3600)
        }
        _ = machine.receive(.start)
        _ = machine.receive(.weatherArrived(Fixtures.tag))
        #expect(machine.receive(.arrived(["a.md", "b.md"])).batches.isEmpty)
        #expect(machine.intake.arrived.count == 1)
        self.clock.advance(by: .seconds(2))
        let first = machine.receive(.wokeUp).batches
        #expect(first.map(\.names) == [["a.md"]])
        let outcome = BatchOutcome(results: [("a.md", .stamped(Self.version))])
        let after = machine.receive(.batchFinished(first[0], outcome, arrivedMeanwhile: []))
        #expect(after.batches.isEmpty, "b.md settles first")
        #expect(machine.intake.isEmpty && machine.waitingReason("b.md") == LaneState(.waiting, .settling))
        self.clock.advance(by: .seconds(2))
        #expect(machine.receive(.wokeUp).batches.map(\.names) == [["b.md"]])
    }

    /// The intake's names as bytes: given back as they went in (UTF-8, long, short), in order, and once taken not
    /// walked over again; the bytes taken are dropped as the line empties.
    @Test func aNameLineGivesBackEachNameInOrderAndItsRoom() throws {
        var line = NameLine()
        let names = ["a.md", "2026/11/Abendspaziergang am Fluss, mit Regen.md", "日記/雨.md", "e000001.md"]
        for name in names { line.append(name) }
        #expect(line.count == 4)
        #expect(line.popFirst() == "a.md")
        var rest: [String] = []
        line.forEach { rest.append($0) }
        #expect(rest == Array(names.dropFirst()))
        let popped = [line.popFirst(), line.popFirst(), line.popFirst(), line.popFirst()]
        #expect(popped == Array(names.dropFirst()) + [nil])
        #expect(line.isEmpty)
        let many = (0..<20_000).map { "entry-\($0).md" }
        for name in many { line.append(name) }
        let full = line.capacity
        var taken: [String] = []
        while let name = line.popFirst() { taken.append(name) }
        #expect(taken == many)
        #expect(line.capacity < full / 2, "\(line.capacity) of \(full) bytes kept")
    }
}
