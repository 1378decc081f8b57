import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

/// The inbox's policy, driven without files, threads or sleeps: the clock moves when the test says.
@Suite("inbox state machine")
struct InboxStateMachineTests {
    typealias Machine = InboxStateMachine<TestClock>

    let clock = TestClock()

    /// The tests count batches two in flight; the daemon's three are `threeBatchesAreInFlight`'s.
    func machine(_ adjust: (inout Machine.Configuration) -> Void = { _ in }) -> Machine {
        var configuration = Machine.Configuration()
        configuration.batchesInFlight = 2
        adjust(&configuration)
        return Machine(configuration: configuration, clock: self.clock)
    }

    static let version = FileVersion(device: 1, inode: 2, size: 3, modifiedSeconds: 4, modifiedNanoseconds: 5)

    static func names(_ count: Int, _ prefix: String = "entry") -> [String] {
        (0..<count).map { "\(prefix)-\($0).md" }
    }

    static func stamped(_ batch: Machine.Batch) -> BatchOutcome {
        BatchOutcome(results: batch.names.map { ($0, .stamped(Self.version)) })
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    struct WriteFailure: RecurringFailure, CustomStringConvertible {
        var description: String
        var recurrenceKey: String
    }

    // MARK: Batching

    /// A batch that stopped at its bytes hands back the names it did not reach: they go in the next batch, with
    /// no failure told and no pause.
    @Test func namesABatchDidNotReachGoInTheNext() throws {
        var machine = self.machine { $0.batchesInFlight = 1 }
        _ = machine.receive(.start)
        _ = machine.receive(.weatherArrived(Fixtures.tag))
        let names = Self.names(10)
        let first = try #require(machine.receive(.listed(candidates: names, present: nil)).batches.first)
        #expect(first.names == names)
        let outcome = BatchOutcome(
            results: names.prefix(3).map { ($0, .stamped(Self.version)) }, unprocessed: Array(names.dropFirst(3)))
        let after = machine.receive(.batchFinished(first, outcome, arrivedMeanwhile: []))
        #expect(after.batches.map(\.names) == [Array(names.dropFirst(3))])
        #expect(!after.contains { if case .report(.entry(_, .failed, _)) = $0 { true } else { false } })
        let last = try #require(after.batches.first)
        let done = machine.receive(.batchFinished(last, Self.stamped(last), arrivedMeanwhile: []))
        #expect(done.batches.isEmpty && machine.isIdle)
    }

    /// By default three batches are in flight: two read while one tells the memory (`InboxFiles.stamp`); a
    /// fourth starts when one of them is done.
    @Test func threeBatchesAreInFlight() {
        var machine = Machine(configuration: Machine.Configuration(), clock: self.clock)
        _ = machine.receive(.start)
        _ = machine.receive(.listed(candidates: Self.names(200, "a"), present: nil))
        let first = machine.receive(.weatherArrived(Fixtures.tag)).batches
        #expect(first.map(\.names.count) == [32, 32, 32])
        let next = machine.receive(.batchFinished(first[0], Self.stamped(first[0]), arrivedMeanwhile: []))
        #expect(next.batches.map(\.names.count) == [32])
    }

    @Test func aBurstIsStampedInFullBatchesTwoInFlight() throws {
        var machine = self.machine()
        #expect(machine.receive(.start).lists.count == 1)
        // No tag yet: one request for weather, however many names come.
        #expect(machine.receive(.listed(candidates: Self.names(40, "a"), present: nil)).fetches == 1)
        #expect(machine.receive(.arrived(Self.names(30, "b"))).fetches == 0)
        let first = machine.receive(.weatherArrived(Fixtures.tag)).batches
        #expect(first.map(\.names.count) == [32, 32])
        #expect(first[0].names == Self.names(32, "a"))
        #expect(first.allSatisfy { $0.tag == Fixtures.tag })
        #expect(machine.waiting == 70)

        let after = machine.receive(.batchFinished(first[0], Self.stamped(first[0]), arrivedMeanwhile: []))
        #expect(after.batches.map(\.names.count) == [6], "the rest, while the second batch is in flight")
        #expect(after.reports.filter { if case .entry(_, .stamped, _) = $0 { true } else { false } }.count == 32)
        #expect(machine.waiting == 38)
        _ = machine.receive(.batchFinished(first[1], Self.stamped(first[1]), arrivedMeanwhile: []))
        let last = try #require(after.batches.first)
        _ = machine.receive(.batchFinished(last, Self.stamped(last), arrivedMeanwhile: []))
        #expect(machine.waiting == 0)
        #expect(machine.isIdle)
    }

    /// A long queue (a start-up's listing, a diary moved in) goes in large batches, one transaction and one fsync of
    /// the folder each; what is left of it, as the entries people drop, in small ones that are reported soon.
    @Test func aLongQueueGoesInLargeBatches() {
        var machine = self.machine()
        _ = machine.receive(.start)
        _ = machine.receive(.listed(candidates: Self.names(1200, "a"), present: nil))
        let first = machine.receive(.weatherArrived(Fixtures.tag)).batches
        #expect(first.map(\.names.count) == [512, 512])
        #expect(first[0].names == Self.names(512, "a"))
        let after = machine.receive(.batchFinished(first[0], Self.stamped(first[0]), arrivedMeanwhile: []))
        #expect(after.batches.map(\.names.count) == [32], "176 left: a short queue")
        #expect(machine.waiting == 688)
    }

    /// What a long listing finds before any weather came (an index filled again from the files at start-up) is read
    /// while the first weather is asked for: what needs none is done by then; what needs it waits for it and is
    /// stamped with it. A short listing, and a burst dropped in (before any weather or after), wait for the weather
    /// and are read once.
    @Test func aLongListingIsReadWhileTheFirstWeatherIsAskedFor() throws {
        var machine = self.machine { $0.sortsWithoutWeather = true }
        _ = machine.receive(.start)
        let listed = machine.receive(.listed(candidates: Self.names(1200, "a"), present: nil))
        #expect(listed.fetches == 1)
        #expect(listed.batches.map(\.names.count) == [512, 512])
        #expect(listed.batches.allSatisfy { $0.tag == nil })
        #expect(machine.waitingReason("a-1100.md") == .queued, "its turn, not the weather (nor told to the index)")
        // The socket's question: a name asked twice is answered once; one in a batch or unknown, not at all.
        #expect(
            machine.waitingReasons(["a-1100.md", "a-1100.md", "a-0.md", "unknown.md"]) == ["a-1100.md": .queued])
        // All but one were stamped before; that one is new and needs the weather being asked for.
        let first = listed.batches[0]
        let results: [(String, EntryResult)] = first.names.map {
            ($0, $0 == "a-7.md" ? .needsWeather : .alreadyStamped(Self.version))
        }
        let after = machine.receive(.batchFinished(first, BatchOutcome(results: results), arrivedMeanwhile: []))
        #expect(after.batches.map(\.names.count) == [32], "the rest, in short batches")
        #expect(after.batches.allSatisfy { $0.tag == nil })
        #expect(after.fetches == 0, "one ask is out")
        #expect(machine.waitingReason("a-7.md")?.reason == .noWeather)
        // The weather comes: what is left, and the entry that needs it, go with it.
        var inFlight = machine.receive(.weatherArrived(Fixtures.tag)).batches + [listed.batches[1]] + after.batches
        var withWeather: [String] = []
        var without: [String] = []
        while let batch = inFlight.popLast() {
            if batch.tag == Fixtures.tag { withWeather += batch.names } else { without += batch.names }
            inFlight += machine.receive(.batchFinished(batch, Self.stamped(batch), arrivedMeanwhile: [])).batches
        }
        without += first.names
        #expect(machine.isIdle)
        #expect(withWeather.contains("a-7.md"), "stamped with the weather that came")
        #expect(withWeather.count + without.count == 1201, "each read once, and the one that needed weather twice")
        #expect(Set(withWeather + without) == Set(Self.names(1200, "a")))

        // A short listing waits for its weather.
        var short = self.machine { $0.sortsWithoutWeather = true }
        _ = short.receive(.start)
        let few = short.receive(.listed(candidates: Self.names(10), present: nil))
        #expect(few.fetches == 1 && few.batches.isEmpty)
        #expect(short.waitingReason("entry-3.md")?.reason == .noWeather)

        // A burst dropped in waits for its weather, before any came and after: read once, with it.
        var dropped = self.machine { $0.sortsWithoutWeather = true }
        _ = dropped.receive(.start)
        _ = dropped.receive(.listed(candidates: [], present: nil))
        let burst = dropped.receive(.arrived(Self.names(1200, "b")))
        #expect(burst.fetches == 1 && burst.batches.isEmpty)
        self.clock.advance(by: .seconds(5))
        let later = machine.receive(.arrived(Self.names(1200, "c")))
        #expect(later.fetches == 1 && later.batches.isEmpty)
    }

    /// What `why` and `GET /v1/entries` say of an entry that waits comes from here.
    @Test func eachWaitingEntrySaysWhy() throws {
        var machine = self.machine { $0.settle = .seconds(2) }
        _ = machine.receive(.start)
        _ = machine.receive(.listed(candidates: ["queued.md"], present: nil))
        #expect(machine.waitingReason("queued.md")?.reason == .noWeather)
        _ = machine.receive(.weatherFailed(Failure(description: "HTTP 500"), retryAfter: nil))
        #expect(
            machine.waitingReason("queued.md") == LaneState(.waiting, .noWeather, detail: Said(verbatim: "HTTP 500")))
        _ = machine.receive(.arrived(["new.md"]))
        #expect(machine.waitingReason("new.md")?.reason == .settling)
        self.clock.advance(by: .seconds(30))
        let batches = machine.receive(.weatherArrived(Fixtures.tag)).batches
        let batch = try #require(batches.first)
        #expect(machine.waitingReason("queued.md") == nil, "in a batch")
        let lock = EditorLock(file: ".queued.md.swp", editor: "vim")
        _ = machine.receive(
            .batchFinished(batch, BatchOutcome(results: batch.names.map { ($0, .locked(lock)) }), arrivedMeanwhile: []))
        #expect(
            machine.waitingReason("queued.md") == LaneState(.waiting, .editor, detail: Said(verbatim: ".queued.md.swp"))
        )
        #expect(machine.waitingReason("never-seen.md") == nil)
    }

    @Test func aNameQueuedTwiceIsStampedOnce() {
        var machine = self.machine()
        _ = machine.receive(.arrived(["a.md", "b.md", "a.md"]))
        _ = machine.receive(.listed(candidates: ["b.md", "a.md"], present: nil))
        #expect(machine.receive(.weatherArrived(Fixtures.tag)).batches.map(\.names) == [["a.md", "b.md"]])
    }

    @Test func aLongBurstAsksForWeatherAgainOnceTheTagIsASecondOld() {
        var machine = self.machine { $0.batchesInFlight = 1 }
        _ = machine.receive(.arrived(Self.names(64)))
        let first = machine.receive(.weatherArrived(Fixtures.tag)).batches
        #expect(first.count == 1)
        self.clock.advance(by: .milliseconds(999))
        #expect(
            machine.receive(.batchFinished(first[0], Self.stamped(first[0]), arrivedMeanwhile: [])).batches.count == 1,
            "the tag still serves")
        self.clock.advance(by: .milliseconds(1))
        _ = machine.receive(.arrived(["late.md"]))
        var fresh = Fixtures.tag
        fresh.weather.temperature = -3
        let actions = machine.receive(
            .batchFinished(
                Machine.Batch(names: Self.names(64)[32...].map { $0 }, tag: Fixtures.tag),
                Self.stamped(Machine.Batch(names: Self.names(64)[32...].map { $0 }, tag: Fixtures.tag)),
                arrivedMeanwhile: []))
        #expect(actions.fetches == 1 && actions.batches.isEmpty, "a tag 1 s old is not reused")
        #expect(machine.receive(.weatherArrived(fresh)).batches.first?.tag == fresh)
    }

    // MARK: Waiting for weather

    @Test func withoutWeatherEntriesWaitWithAGrowingBackoff() throws {
        var machine = self.machine()
        #expect(machine.receive(.arrived(["a.md"])).fetches == 1)
        var previous = Duration.zero
        for attempt in 0..<4 {
            let actions = machine.receive(.weatherFailed(Failure(description: "no position"), retryAfter: nil))
            let wait = try #require(
                actions.reports.compactMap { report -> Duration? in
                    if case .waitingForWeather(let waiting, let retryIn, _) = report, waiting >= 1 { return retryIn }
                    return nil
                }.first)
            let full = Duration.seconds(1 << attempt)
            #expect(wait >= full / 2 && wait <= full, "attempt \(attempt): \(wait)")
            #expect(wait > previous / 2)
            previous = wait
            #expect(actions.wakeUps == [self.clock.now.advanced(by: wait)])
            // New entries wait too: nothing is stamped and weather is not asked for before the wake-up.
            #expect(machine.receive(.arrived(["b.md"])).isEmpty)
            self.clock.advance(by: wait)
            #expect(machine.receive(.wokeUp).fetches == 1)
        }
        // Weather again: the backoff starts over.
        #expect(machine.receive(.weatherArrived(Fixtures.tag)).batches.map(\.names) == [["a.md", "b.md"]])
        self.clock.advance(by: .seconds(5))
        _ = machine.receive(.arrived(["c.md"]))
        let actions = machine.receive(.weatherFailed(Failure(description: "down"), retryAfter: nil))
        #expect(actions.wakeUps.first.map { self.clock.now.duration(to: $0) <= .seconds(1) } == true)
    }

    /// An entry dated a little ahead (today east of here) waits for its time, explained, and is looked at then; the
    /// `stamp` command, which does not wait a day, leaves it alone with the reason.
    @Test func anEntryDatedAheadWaitsForItsTime() throws {
        var machine = self.machine()
        let time = try #require(EntryTime.given("2026-11-24", timeZone: .utc))
        let batch = try #require(
            (machine.receive(.arrived(["ahead.md"])) + machine.receive(.weatherArrived(Fixtures.tag))).batches.first)
        let actions = machine.receive(
            .batchFinished(
                batch, BatchOutcome(results: [("ahead.md", .datedAhead(time, wait: .seconds(3600)))]),
                arrivedMeanwhile: []))
        #expect(actions.wakeUps == [self.clock.now.advanced(by: .seconds(3600))])
        #expect(machine.waitingReason("ahead.md")?.reason == .datedAhead)
        #expect(machine.waiting == 1)
        self.clock.advance(by: .seconds(3599))
        #expect(machine.receive(.wokeUp).batches.isEmpty, "not before its time")
        self.clock.advance(by: .seconds(1))
        let retry = machine.receive(.wokeUp)
        #expect(retry.fetches + retry.batches.count == 1, "looked at again when its time comes")

        var command = self.machine { $0.waitsForDatedEntries = false }
        let once = try #require(
            (command.receive(.arrived(["ahead.md"])) + command.receive(.weatherArrived(Fixtures.tag))).batches.first)
        let told = command.receive(
            .batchFinished(
                once, BatchOutcome(results: [("ahead.md", .datedAhead(time, wait: .seconds(3600)))]),
                arrivedMeanwhile: [])
        )
        let reports = told.reports
        guard case .entry("ahead.md", .leftAlone(.future(time, withinADay: true), _), _)? = reports.first else {
            Issue.record("\(reports)")
            return
        }
        // Its batch indexed it as dated ahead; the index learns it is left alone.
        #expect(told.contains { if case .index("ahead.md", let lane) = $0 { lane.reason == .future } else { false } })
        #expect(command.isIdle)
    }

    /// History never waits on the present: while current weather fails, entries are read without it, back-dated
    /// ones go on to history, current ones wait for weather (and ask for it again when its pause is over).
    @Test func backDatedEntriesDoNotWaitForCurrentWeather() throws {
        var machine = self.machine { $0.sortsWithoutWeather = true }
        #expect(machine.receive(.arrived(["old.md", "today.md"])).fetches == 1)
        let sorting = try #require(
            machine.receive(.weatherFailed(Failure(description: "HTTP 500"), retryAfter: nil)).batches.first)
        #expect(sorting.tag == nil && sorting.names == ["old.md", "today.md"], "read without current weather")
        let time = try #require(EntryTime.given("2024-01-01", timeZone: .utc))
        let request = HistoryRequest(time: time, position: nil)
        let after = machine.receive(
            .batchFinished(
                sorting, BatchOutcome(results: [("old.md", .wantsHistory(request)), ("today.md", .needsWeather)]),
                arrivedMeanwhile: []))
        #expect(after.histories.map(\.0) == ["old.md"], "history is asked at once")
        #expect(after.batches.isEmpty && after.fetches == 0, "today's waits for the pause")
        #expect(machine.waitingReason("today.md")?.reason == .noWeather)
        let historical = machine.receive(.historyArrived("old.md", Fixtures.tag)).batches
        #expect(historical.map(\.names) == [["old.md"]] && historical[0].historical)
        // The pause ends: weather is asked for again for the entry that waits, and it is stamped with it.
        self.clock.advance(by: .seconds(2))
        #expect(machine.receive(.wokeUp).fetches == 1)
        let stamped = machine.receive(.weatherArrived(Fixtures.tag)).batches
        #expect(stamped.map(\.names) == [["today.md"]] && stamped[0].tag == Fixtures.tag)
    }

    /// An entry waiting for weather that is written again is read again, and is in one place, not two.
    @Test func anEntryWaitingForWeatherWrittenAgainIsInOnePlace() throws {
        var machine = self.machine { $0.sortsWithoutWeather = true }
        _ = machine.receive(.arrived(["today.md"]))
        let sorting = try #require(
            machine.receive(.weatherFailed(Failure(description: "HTTP 500"), retryAfter: nil)).batches.first)
        _ = machine.receive(
            .batchFinished(sorting, BatchOutcome(results: [("today.md", .needsWeather)]), arrivedMeanwhile: []))
        #expect(machine.waiting == 1)
        let again = machine.receive(.arrived(["today.md"]))
        #expect(again.batches.map(\.names) == [["today.md"]], "read again without weather")
        #expect(machine.waiting == 1, "in the batch only, not also held for weather")
    }

    /// When history answers again after an outage, what waits for it is looked at now, not at the end of each
    /// entry's deferral.
    @Test func historyAnsweringAgainEndsEveryDeferral() throws {
        var machine = self.machine { $0.sortsWithoutWeather = true }
        let time = try #require(EntryTime.given("2024-01-01", timeZone: .utc))
        let request = HistoryRequest(time: time, position: nil)
        let batch = try #require(
            (machine.receive(.arrived(["a.md", "b.md", "c.md"])) + machine.receive(.weatherArrived(Fixtures.tag)))
                .batches.first)
        let asked = machine.receive(
            .batchFinished(
                batch, BatchOutcome(results: batch.names.map { ($0, .wantsHistory(request)) }), arrivedMeanwhile: [])
        ).histories.map(\.0)
        #expect(asked == ["a.md", "b.md", "c.md"])
        _ = machine.receive(.historyFailed("a.md", .later(.seconds(300), Failure(description: "HTTP 500"))))
        _ = machine.receive(.historyFailed("b.md", .later(.seconds(300), Failure(description: "HTTP 500"))))
        // c.md's answer comes: a.md and b.md go now (with the fresh tag, as the batch that finds them back-dated).
        let now = machine.receive(.historyArrived("c.md", Fixtures.tag))
        #expect(Set(now.batches.flatMap(\.names)) == ["a.md", "b.md", "c.md"], "\(now.batches.map(\.names))")
    }

    @Test func openWeathersOwnBackoffDecidesTheRetry() {
        var machine = self.machine()
        _ = machine.receive(.arrived(["a.md"]))
        let actions = machine.receive(.weatherFailed(Failure(description: "429"), retryAfter: .seconds(61)))
        #expect(actions.wakeUps == [self.clock.now.advanced(by: .seconds(61))])
        self.clock.advance(by: .seconds(60))
        #expect(machine.receive(.wokeUp).isEmpty, "not before its time")
        self.clock.advance(by: .seconds(1))
        #expect(machine.receive(.wokeUp).fetches == 1)
    }

    // MARK: Writes failing

    @Test func aFailedWriteRequeuesTheBatchAndPausesWithItsOwnBackoff() throws {
        var machine = self.machine { $0.batchesInFlight = 1 }
        _ = machine.receive(.arrived(["a.md", "b.md", "c.md"]))
        var batch = try #require(machine.receive(.weatherArrived(Fixtures.tag)).batches.first)
        var waits: [Duration] = []
        var firstTimes: [Bool] = []
        for attempt in 0..<3 {
            let stamped: [(String, EntryResult)] = attempt == 0 ? [("a.md", .stamped(Self.version))] : []
            let actions = machine.receive(
                .batchFinished(
                    batch,
                    BatchOutcome(
                        results: stamped,
                        // Each attempt writes a temp file of another name, and the error names it.
                        failure: (
                            "b.md",
                            WriteFailure(
                                description: "write .b.md.\(attempt).weathertag-tmp: No space left on device",
                                recurrenceKey: "write 28")
                        ),
                        unprocessed: ["c.md"]), arrivedMeanwhile: []))
            #expect(actions.batches.isEmpty, "paused")
            for case .entry(let name, .failed, let telling) in actions.reports {
                #expect(name == "b.md")
                waits.append(try #require(telling.retryIn))
                firstTimes.append(telling.firstTime)
            }
            #expect(machine.waiting == 2)
            self.clock.advance(by: waits.last ?? .zero)
            var woken = machine.receive(.wokeUp)
            if woken.fetches == 1 { woken = machine.receive(.weatherArrived(Fixtures.tag)) }
            batch = try #require(woken.batches.first)
            #expect(batch.names == ["b.md", "c.md"], "the failed entry first, then those after it")
        }
        #expect(firstTimes == [true, false, false], "the same error, in other words each time, is logged once")
        #expect(waits[2] >= .seconds(2) && waits[2] <= .seconds(4))
        let recovered = machine.receive(.batchFinished(batch, Self.stamped(batch), arrivedMeanwhile: []))
        #expect(recovered.reports.contains { if case .writingWorksAgain = $0 { true } else { false } })
    }

    @Test func theStampCommandReportsAFailedWriteAndGoesOn() throws {
        var machine = self.machine {
            $0.batchSize = 1
            $0.batchesInFlight = 1
            $0.retriesFailedWrites = false
        }
        _ = machine.receive(.arrived(["a.md", "b.md"]))
        let first = try #require(machine.receive(.weatherArrived(Fixtures.tag)).batches.first)
        let actions = machine.receive(
            .batchFinished(first, BatchOutcome(failure: ("a.md", Failure(description: "EROFS"))), arrivedMeanwhile: []))
        #expect(actions.batches.map(\.names) == [["b.md"]], "no pause")
        guard case .entry("a.md", .failed, let telling) = actions.reports.first, telling.retryIn == nil else {
            Issue.record("\(actions)")
            return
        }
        #expect(machine.waiting == 1)
    }

    // MARK: Entries changing under the stamp

    @Test func anEntryThatChangesWhileStampedIsRetriedLaterThenLeftForItsNextChange() throws {
        var machine = self.machine()
        _ = machine.receive(.arrived(["busy.md"]))
        var batch = try #require(machine.receive(.weatherArrived(Fixtures.tag)).batches.first)
        for attempt in 1...5 {
            let actions = machine.receive(
                .batchFinished(batch, BatchOutcome(results: [("busy.md", .changedWhileStamping)]), arrivedMeanwhile: [])
            )
            let delay = Duration.milliseconds(100 << attempt)
            #expect(actions.wakeUps == [self.clock.now.advanced(by: delay)], "attempt \(attempt)")
            #expect(machine.waiting == 1)
            // Its own events do not bring it back before its time.
            #expect(machine.receive(.arrived(["busy.md"])).batches.isEmpty)
            self.clock.advance(by: delay - .milliseconds(1))
            #expect(machine.receive(.wokeUp).batches.isEmpty)
            self.clock.advance(by: .milliseconds(1))
            var woken = machine.receive(.wokeUp)
            // Past a second the tag is asked for again.
            if woken.fetches == 1 { woken = machine.receive(.weatherArrived(Fixtures.tag)) }
            batch = try #require(woken.batches.first)
        }
        let last = machine.receive(
            .batchFinished(batch, BatchOutcome(results: [("busy.md", .changedWhileStamping)]), arrivedMeanwhile: []))
        guard case .entry("busy.md", .leftAlone(.keepsChanging, _), let telling) = last.reports.first, telling.firstTime
        else {
            Issue.record("\(last)")
            return
        }
        #expect(
            last.contains { if case .index("busy.md", let lane) = $0 { lane.reason == .keepsChanging } else { false } })
        #expect(last.wakeUps.isEmpty)
        #expect(machine.waiting == 0)
    }

    @Test func otherEntriesAreNotHeldUpByOneThatChanges() throws {
        var machine = self.machine { $0.batchSize = 1 }
        _ = machine.receive(.arrived(["busy.md", "calm.md"]))
        let batches = machine.receive(.weatherArrived(Fixtures.tag)).batches
        _ = machine.receive(
            .batchFinished(
                batches[0], BatchOutcome(results: [("busy.md", .changedWhileStamping)]), arrivedMeanwhile: []))
        #expect(machine.receive(.arrived(["new.md"])).batches.map(\.names) == [["new.md"]])
    }

    // MARK: Settling and editors

    @Test func aWrittenEntryWaitsUntilNoWriteHasReachedItForTheSettleTime() throws {
        var machine = self.machine { $0.settle = .seconds(2) }
        _ = machine.receive(.weatherArrived(Fixtures.tag))
        let first = machine.receive(.arrived(["a.md"]))
        #expect(first.batches.isEmpty && first.wakeUps == [self.clock.now.advanced(by: .seconds(2))])
        #expect(machine.waiting == 1)
        self.clock.advance(by: .milliseconds(1500))
        #expect(machine.receive(.arrived(["a.md"])).isEmpty, "another save: the time moves on")
        self.clock.advance(by: .milliseconds(600))
        let early = machine.receive(.wokeUp)
        #expect(early.batches.isEmpty, "2.1 s after the first save, 0.6 s after the last")
        #expect(early.wakeUps == [self.clock.now.advanced(by: .milliseconds(1400))])
        self.clock.advance(by: .milliseconds(1400))
        var woken = machine.receive(.wokeUp)
        if woken.fetches == 1 { woken = machine.receive(.weatherArrived(Fixtures.tag)) }
        #expect(woken.batches.map(\.names) == [["a.md"]])
        // What a listing finds (at start, a rescan) is not held back.
        var listed = machine.receive(.listed(candidates: ["b.md"], present: nil))
        if listed.fetches == 1 { listed = machine.receive(.weatherArrived(Fixtures.tag)) }
        #expect(listed.batches.map(\.names) == [["b.md"]])
    }

    @Test func anEntryAnEditorHasOpenWaitsForItsLockToGo() throws {
        var machine = self.machine()
        let lock = EditorLock(file: ".a.md.swp", editor: "vim or nano")
        _ = machine.receive(.arrived(["a.md"]))
        var batch = try #require(machine.receive(.weatherArrived(Fixtures.tag)).batches.first)
        var actions = machine.receive(
            .batchFinished(batch, BatchOutcome(results: [("a.md", .locked(lock))]), arrivedMeanwhile: []))
        guard case .entry("a.md", .locked(lock), let telling) = actions.reports.first, telling.firstTime else {
            Issue.record("\(actions)")
            return
        }
        #expect(actions.wakeUps.isEmpty && actions.batches.isEmpty, "no polling: the lock file's going is an event")
        #expect(machine.waiting == 1)
        // A save while vim stays open: looked at after the lock grace, still locked, not logged again.
        batch = try self.lookedAtAfterTheLockGrace(&machine, "a.md")
        actions = machine.receive(
            .batchFinished(batch, BatchOutcome(results: [("a.md", .locked(lock))]), arrivedMeanwhile: []))
        guard case .entry("a.md", .locked(lock), let telling) = actions.reports.first, !telling.firstTime else {
            Issue.record("\(actions)")
            return
        }
        // vim quits: the swap file goes, the watcher reports the entry, and it is stamped.
        batch = try self.lookedAtAfterTheLockGrace(&machine, "a.md")
        _ = machine.receive(.batchFinished(batch, Self.stamped(batch), arrivedMeanwhile: []))
        #expect(machine.waiting == 0)
    }

    /// nano rewrites its lock file (unlink, then create) at the first keystroke after each save. The unlink brings
    /// the entry back, but it is looked at only after `lockGrace`, by which time the lock is there again: even with
    /// `settle` zero, nothing is stamped in between.
    @Test func aLockFileThatIsRewrittenDoesNotLetAStampIn() throws {
        var machine = self.machine { $0.lockGrace = .seconds(1) }
        let lock = EditorLock(file: ".a.md.swp", editor: "vim or nano")
        _ = machine.receive(.arrived(["a.md"]))
        let batch = try #require(machine.receive(.weatherArrived(Fixtures.tag)).batches.first)
        _ = machine.receive(
            .batchFinished(batch, BatchOutcome(results: [("a.md", .locked(lock))]), arrivedMeanwhile: []))
        let unlinked = machine.receive(.arrived(["a.md"]))
        #expect(unlinked.batches.isEmpty, "looked at in the middle of nano's rewrite")
        #expect(unlinked.wakeUps == [self.clock.now.advanced(by: .seconds(1))])
        #expect(machine.waitingReason("a.md")?.reason == .settling)
        // An entry no editor had is still stamped at once.
        #expect(machine.receive(.arrived(["b.md"])).batches.map(\.names) == [["b.md"]])
    }

    /// An entry that was locked comes back through `namesArrived` and, after the lock grace, in a batch.
    func lookedAtAfterTheLockGrace(_ machine: inout Machine, _ name: String) throws -> Machine.Batch {
        #expect(machine.receive(.arrived([name])).batches.isEmpty)
        self.clock.advance(by: machine.configuration.lockGrace)
        var woken = machine.receive(.wokeUp)
        if woken.fetches == 1 { woken = machine.receive(.weatherArrived(Fixtures.tag)) }
        return try #require(woken.batches.first)
    }

    /// The lock goes while the batch that found it is out: the entry is queued again, and counted once.
    @Test func aLockThatGoesWhileItsBatchIsOutDoesNotHoldTheEntry() throws {
        var machine = self.machine { $0.batchesInFlight = 1 }
        let lock = EditorLock(file: ".a.md.swp", editor: "vim or nano")
        _ = machine.receive(.arrived(["a.md"]))
        let batch = try #require(machine.receive(.weatherArrived(Fixtures.tag)).batches.first)
        #expect(machine.receive(.arrived(["a.md"])).batches.isEmpty, "one batch at a time")
        let again = try #require(
            machine.receive(
                .batchFinished(batch, BatchOutcome(results: [("a.md", .locked(lock))]), arrivedMeanwhile: [])
            ).batches.first)
        #expect(machine.waiting == 1)
        _ = machine.receive(.batchFinished(again, Self.stamped(again), arrivedMeanwhile: []))
        #expect(machine.waiting == 0)
    }

    @Test func lockFilesNameTheirEntries() {
        #expect(EditorLock.entry(forLockFile: ".2026-11-23.md.swp") == "2026-11-23.md")
        #expect(EditorLock.entry(forLockFile: ".a.md.swo") == "a.md")
        #expect(EditorLock.entry(forLockFile: ".#a.md") == "a.md")
        #expect(EditorLock.entry(forLockFile: ".a.md.kate-swp") == "a.md")
        #expect(EditorLock.entry(forLockFile: ".~lock.a.md#") == "a.md")
        #expect(EditorLock.entry(forLockFile: ".notes.txt.swp") == nil, "not an entry")
        #expect(EditorLock.entry(forLockFile: "a.md") == nil)
        for lock in EditorLock.candidates(for: "a.md") {
            #expect(EditorLock.entry(forLockFile: lock.file) == "a.md", "\(lock.file)")
        }
    }

    // MARK: Counting and reporting

    @Test func resultsAreReportedAndALeftAloneEntryIsReportedOncePerReason() throws {
        var machine = self.machine()
        _ = machine.receive(.arrived(["a.md", "b.md", "c.md", "d.md", "e.md"]))
        let batch = try #require(machine.receive(.weatherArrived(Fixtures.tag)).batches.first)
        let outcome = BatchOutcome(results: [
            ("a.md", .stamped(Self.version)), ("b.md", .alreadyStamped(Self.version)),
            ("c.md", .leftAlone(.readOnly, Self.version)), ("d.md", .inUse), ("e.md", .vanished),
        ])
        let reports = machine.receive(.batchFinished(batch, outcome, arrivedMeanwhile: [])).reports.compactMap {
            report -> (String, EntryResult, Machine.Telling)? in
            if case .entry(let name, let result, let telling) = report { (name, result, telling) } else { nil }
        }
        #expect(reports.map(\.0) == ["a.md", "b.md", "c.md", "d.md", "e.md"])
        #expect(reports.map(\.1) == outcome.results.map(\.1), "the batch's results, as they came")
        #expect(reports[0].2.tag == Fixtures.tag, "stamped with the batch's weather")
        #expect(reports.allSatisfy { $0.2.firstTime })
        #expect(machine.isIdle)

        // Found again by a rescan: counted again, but not worth another log line; a new reason is.
        for (reason, firstTime) in [(LeftAloneReason.readOnly, false), (.hardLinks(2), true)] {
            let again = try #require(machine.receive(.arrived(["c.md"])).batches.first)
            let reported = machine.receive(
                .batchFinished(again, BatchOutcome(results: [("c.md", .leftAlone(reason, nil))]), arrivedMeanwhile: []))
            guard case .entry("c.md", .leftAlone(reason, _), let telling) = reported.reports.first,
                telling.firstTime == firstTime
            else {
                Issue.record("\(reported)")
                continue
            }
        }
    }

    @Test func reasonsReadAsBefore() {
        #expect(LeftAloneReason.content(.empty).description.hasPrefix("it is empty"))
        #expect(LeftAloneReason.content(.notText).description == StampSkipReason.notText.description)
        #expect(LeftAloneReason.tooLarge(limit: 10).description == "it is larger than inbox.max_bytes (10 bytes)")
        #expect(LeftAloneReason.notRegularFile(.fifo).description == "it is a FIFO")
    }

    // MARK: Stopping

    @Test func stoppingFinishesTheBatchesInHandAndStartsNoOther() throws {
        var machine = self.machine { $0.batchSize = 1 }
        _ = machine.receive(.arrived(["a.md", "b.md", "c.md"]))
        let batches = machine.receive(.weatherArrived(Fixtures.tag)).batches
        #expect(batches.count == 2)
        #expect(machine.receive(.stop).isEmpty, "two batches in flight")
        #expect(
            machine.receive(.batchFinished(batches[0], Self.stamped(batches[0]), arrivedMeanwhile: [])).batches.isEmpty)
        let last = machine.receive(.batchFinished(batches[1], Self.stamped(batches[1]), arrivedMeanwhile: []))
        #expect(last.finishes && last.batches.isEmpty)
        #expect(machine.waiting == 1, "c.md waits in the inbox for the next start")
    }

    @Test func aRefusedBatchIsPutBackAndNothingMoreStarts() throws {
        var machine = self.machine { $0.batchSize = 1 }
        _ = machine.receive(.arrived(["a.md", "b.md", "c.md"]))
        let batches = machine.receive(.weatherArrived(Fixtures.tag)).batches
        #expect(machine.receive(.batchFinished(batches[0], nil, arrivedMeanwhile: [])).batches.isEmpty)
        #expect(machine.waiting == 3)
        #expect(machine.receive(.stop).isEmpty)
        #expect(machine.receive(.batchFinished(batches[1], Self.stamped(batches[1]), arrivedMeanwhile: [])).finishes)
    }

    // MARK: Rescans and settled entries

    @Test func rescansAreCoalescedAndSkipSettledEntriesWhenPolling() throws {
        var machine = self.machine { $0.pollInterval = .seconds(30) }
        #expect(machine.receive(.start).lists == [[:]])
        #expect(machine.receive(.rescan).isEmpty, "one listing at a time")
        #expect(machine.receive(.rescan).isEmpty)
        _ = machine.receive(.arrived(["a.md"]))
        let batch = try #require(machine.receive(.weatherArrived(Fixtures.tag)).batches.first)
        _ = machine.receive(.batchFinished(batch, Self.stamped(batch), arrivedMeanwhile: []))
        // The listing asked for meanwhile runs once, after the first, and skips what is settled.
        let actions = machine.receive(.listed(candidates: [], present: nil))
        #expect(actions.lists == [["a.md": Self.version]])
        // A write brings it back; a listing without it forgets it.
        _ = machine.receive(.arrived(["a.md"]))
        #expect(machine.settled.isEmpty)
        _ = machine.receive(.listed(candidates: [], present: []))
        #expect(machine.receive(.rescan).lists == [[:]])
    }

    /// Out of inotify watches, the shell starts polling once, and settled entries are remembered from then on.
    @Test func exhaustedWatchesStartPollingOnce() throws {
        var machine = self.machine()
        #expect(machine.receive(.watchesExhausted).pollingIntervals == [InboxConfiguration.fallbackPollInterval])
        #expect(machine.receive(.watchesExhausted).isEmpty, "once")
        _ = machine.receive(.arrived(["a.md"]))
        let batch = try #require(machine.receive(.weatherArrived(Fixtures.tag)).batches.first)
        _ = machine.receive(.batchFinished(batch, Self.stamped(batch), arrivedMeanwhile: []))
        #expect(machine.settled == ["a.md": Self.version])
        var polling = self.machine { $0.pollInterval = .seconds(30) }
        #expect(polling.receive(.watchesExhausted).isEmpty, "the shell polls already")
    }

    @Test func withoutPollingNothingIsRemembered() throws {
        var machine = self.machine()
        _ = machine.receive(.arrived(["a.md"]))
        let batch = try #require(machine.receive(.weatherArrived(Fixtures.tag)).batches.first)
        _ = machine.receive(.batchFinished(batch, Self.stamped(batch), arrivedMeanwhile: []))
        #expect(machine.settled.isEmpty)
    }

    // MARK: The weather of a back-dated entry's time

    static let spring = EntryTime(
        date: Date(timeIntervalSince1970: 1_556_668_800), dayOnly: true, source: .fileName, timeZone: .utc)

    /// A diary moved in at once: eight questions open at a time, the next asked as each is answered, every entry
    /// asked once.
    @Test func historyIsAskedEightAtATime() throws {
        var machine = self.machine()
        let names = (0..<20).map { "day-\($0).md" }
        _ = machine.receive(.arrived(names))
        let request = HistoryRequest(time: Self.spring, position: nil)
        var asked: [String] = []
        while let batch = machine.receive(.weatherArrived(Fixtures.tag)).batches.first {
            asked += machine.receive(
                .batchFinished(
                    batch, BatchOutcome(results: batch.names.map { ($0, .wantsHistory(request)) }), arrivedMeanwhile: []
                )
            ).histories.map(\.0)
        }
        #expect(asked == Array(names.prefix(8)))
        #expect(machine.waitingForHistory == 20)
        var historical = Fixtures.tag
        historical.kind = .historical
        asked += machine.receive(.historyArrived(asked[0], historical)).histories.map(\.0)
        asked += machine.receive(.historyFailed(asked[1], .later(.seconds(60), Failure(description: "429")))).histories
            .map(\.0)
        asked += machine.receive(.historyFailed(asked[2], .unavailable(.noPosition))).histories.map(\.0)
        #expect(asked == Array(names.prefix(11)), "one more for each answer")
        for name in names.dropFirst(3) {
            asked += machine.receive(.historyArrived(name, historical)).histories.map(\.0)
        }
        #expect(asked == names, "each asked once, in turn")
    }

    /// A back-dated entry asks for the weather of its time once, and is stamped with it in a batch of its own,
    /// even while current weather is failing; failures leave it alone or bring it back later, said once.
    @Test func backDatedEntriesAskForHistoryAndAreStampedWithIt() throws {
        var machine = self.machine()
        _ = machine.receive(.arrived(["old.md", "older.md", "none.md"]))
        let batch = try #require(machine.receive(.weatherArrived(Fixtures.tag)).batches.first)
        let request = HistoryRequest(time: Self.spring, position: nil)
        let asked = machine.receive(
            .batchFinished(
                batch,
                BatchOutcome(results: [
                    ("old.md", .wantsHistory(request)), ("older.md", .wantsHistory(request)),
                    ("none.md", .wantsHistory(request)),
                ]), arrivedMeanwhile: []))
        #expect(asked.histories.map(\.0) == ["old.md", "older.md", "none.md"])
        #expect(machine.waiting == 3, "waiting for the weather of their time")
        #expect(request.moment == Date(timeIntervalSince1970: 1_556_668_800 + 12 * 3600), "noon of a bare day")

        // Current weather failing does not hold back the weather of an earlier time.
        _ = machine.receive(.weatherFailed(Failure(description: "503"), retryAfter: .seconds(60)))
        var historical = Fixtures.tag
        historical.kind = .historical
        let stamp = machine.receive(.historyArrived("old.md", historical)).batches
        #expect(stamp == [Machine.Batch(names: ["old.md"], tag: historical, historical: true)])
        // Its weather is that entry's own: the batch does not ask again whether it is back-dated.
        #expect(stamp[0].backdating(BackdatingPolicy()) == nil)
        #expect(batch.backdating(BackdatingPolicy()) != nil, "a batch of current weather asks")
        let done = machine.receive(.batchFinished(stamp[0], Self.stamped(stamp[0]), arrivedMeanwhile: []))
        #expect(
            done.reports.contains {
                if case .entry("old.md", .stamped, let telling) = $0 { telling.tag == historical } else { false }
            })

        // Not now: looked at again later, said once.
        let later = machine.receive(.historyFailed("older.md", .later(.seconds(30), Failure(description: "500"))))
        #expect(
            later.reports.contains { if case .waitingForHistory("older.md", _, _, true) = $0 { true } else { false } })
        #expect(later.wakeUps.count <= 1)
        // Not to be had: left alone with the reason, counted as back-dated.
        let alone = machine.receive(.historyFailed("none.md", .unavailable(.noPosition)))
        #expect(
            alone.reports.contains {
                if case .entry("none.md", .leftAlone(.backdated(Self.spring, .noPosition), _), let telling) = $0 {
                    telling.firstTime
                } else {
                    false
                }
            })
        // The index, which its batch told it waits for history, learns the answer: every view reads the index.
        #expect(
            alone.contains {
                if case .index("none.md", let lane) = $0 {
                    lane.lane == .backdated && lane.reason == .noPosition
                } else {
                    false
                }
            }, "\(alone)")
        #expect(machine.waiting == 1, "older.md waits for its retry")
        #expect(machine.waitingForHistory == 1, "and it is history it waits for")
        #expect(machine.waitingReason("older.md")?.reason == .waitingForHistory)
        self.clock.advance(by: .seconds(60))
        _ = machine.receive(.wokeUp)
        #expect(machine.waiting == 1)
    }

    /// A history failure that comes again in other words (a time, a count in the message) is the same failure,
    /// said once; another kind of failure is said again. The machine compares kinds, not text.
    @Test func aHistoryFailureInOtherWordsIsSaidOnce() throws {
        var machine = self.machine()
        _ = machine.receive(.arrived(["old.md"]))
        let batch = try #require(machine.receive(.weatherArrived(Fixtures.tag)).batches.first)
        let request = HistoryRequest(time: Self.spring, position: nil)
        var firstTimes: [Bool] = []
        let failures = [
            WeatherError(kind: .unreachable, message: "OpenWeather's history unreachable: timed out after 5001 ms"),
            WeatherError(kind: .unreachable, message: "OpenWeather's history unreachable: timed out after 5013 ms"),
            WeatherError(kind: .serverError(status: 502), message: "HTTP 502"),
            WeatherError(kind: .serverError(status: 503), message: "HTTP 503"),
        ]
        var actions = machine.receive(
            .batchFinished(batch, BatchOutcome(results: [("old.md", .wantsHistory(request))]), arrivedMeanwhile: []))
        for failure in failures {
            #expect(actions.histories.map(\.0) == ["old.md"])
            for case .waitingForHistory("old.md", _, _, let firstTime) in machine.receive(
                .historyFailed(
                    "old.md", .later(.seconds(30), failure)
                )
            ).reports {
                firstTimes.append(firstTime)
            }
            self.clock.advance(by: .seconds(30))
            actions = machine.receive(.wokeUp)
            if actions.histories.isEmpty {
                // Asked again once the entry's batch comes back wanting history.
                let again = try #require(
                    actions.batches.first ?? machine.receive(.weatherArrived(Fixtures.tag)).batches.first)
                actions = machine.receive(
                    .batchFinished(
                        again, BatchOutcome(results: [("old.md", .wantsHistory(request))]), arrivedMeanwhile: []))
            }
        }
        #expect(firstTimes == [true, false, true, false])
    }

    // MARK: One place at a time

    /// A back-dated entry written again while its history is asked for is read again (its date may have changed):
    /// the answer to the old question is not stamped, the new one is, and it is counted once meanwhile.
    @Test func anEntryWrittenAgainWhileAskingHistoryIsReadAgainAndStampedOnce() throws {
        var machine = self.machine()
        _ = machine.receive(.arrived(["old.md"]))
        let batch = try #require(machine.receive(.weatherArrived(Fixtures.tag)).batches.first)
        let request = HistoryRequest(time: Self.spring, position: nil)
        let asked = machine.receive(
            .batchFinished(batch, BatchOutcome(results: [("old.md", .wantsHistory(request))]), arrivedMeanwhile: []))
        #expect(asked.histories.map(\.0) == ["old.md"])
        #expect(machine.waiting == 1 && machine.waitingForHistory == 1)
        // Written again: read again, no longer waiting for the old answer.
        let reread = try #require(machine.receive(.arrived(["old.md"])).batches.first)
        #expect(reread.names == ["old.md"] && !reread.historical)
        #expect(machine.waiting == 1 && machine.waitingForHistory == 0, "in one place: its batch")
        // The old answer comes: nothing is stamped with it.
        #expect(machine.receive(.historyArrived("old.md", Fixtures.tag)).batches.isEmpty)
        // The new reading asks again, and that answer is stamped.
        let again = machine.receive(
            .batchFinished(reread, BatchOutcome(results: [("old.md", .wantsHistory(request))]), arrivedMeanwhile: []))
        #expect(again.histories.map(\.0) == ["old.md"])
        let stamp = try #require(machine.receive(.historyArrived("old.md", Fixtures.tag)).batches.first)
        #expect(stamp.names == ["old.md"] && stamp.historical)
        _ = machine.receive(.batchFinished(stamp, Self.stamped(stamp), arrivedMeanwhile: []))
        #expect(machine.isIdle)
    }

    /// An entry written again while its batch is out is looked at again once the batch is back (its settle time
    /// after the last write), and is in one place meanwhile.
    @Test func anEntryWrittenDuringItsBatchIsLookedAtAgainAfterIt() throws {
        var machine = self.machine { $0.settle = .seconds(2) }
        _ = machine.receive(.listed(candidates: ["a.md"], present: nil))
        let batch = try #require(machine.receive(.weatherArrived(Fixtures.tag)).batches.first)
        let back = machine.receive(.batchFinished(batch, Self.stamped(batch), arrivedMeanwhile: ["a.md"]))
        #expect(back.batches.isEmpty, "not before its settle time")
        #expect(machine.waiting == 1)
        #expect(machine.waitingReason("a.md") == LaneState(.waiting, .settling))
        self.clock.advance(by: .seconds(2))
        // Due: it asks for fresh weather (the last tag is older than `tagReuse`), then goes.
        #expect(machine.receive(.wokeUp).fetches == 1)
        let look = try #require(machine.receive(.weatherArrived(Fixtures.tag)).batches.first)
        #expect(look.names == ["a.md"])
        _ = machine.receive(
            .batchFinished(look, BatchOutcome(results: [("a.md", .alreadyStamped(Self.version))]), arrivedMeanwhile: [])
        )
        #expect(machine.isIdle)
    }
}

/// What the inbox tells its diary index, and when it looks its store over: the machine's decisions, not the shell's.
@Suite("inbox state machine: the diary index and the store")
struct InboxIndexDecisionTests {
    typealias Machine = InboxStateMachine<TestClock>
    let clock = TestClock()

    @Test func arrivalsAreNoticedInOneListASecondAfterTheFirst() throws {
        var machine = Machine(
            configuration: {
                var configuration = Machine.Configuration()
                configuration.noticeDelay = .seconds(1)
                configuration.settle = .seconds(5)
                return configuration
            }(), clock: self.clock)
        _ = machine.receive(.start)
        _ = machine.receive(.listed(candidates: [], present: nil))
        let first = machine.receive(.arrived(["a.md"]))
        let due = self.clock.now.advanced(by: .seconds(1))
        #expect(first.wakeUps == [due], "woken when the notice is due, before the settle time")
        self.clock.advance(by: .milliseconds(400))
        #expect(machine.receive(.arrived(["b.md", "a.md"])).wakeUps.isEmpty, "the same list, the same time")
        self.clock.advance(by: .milliseconds(599))
        #expect(machine.receive(.wokeUp).notices.isEmpty)
        self.clock.advance(by: .milliseconds(1))
        #expect(machine.receive(.wokeUp).notices == [["a.md", "b.md"]], "each name once")
        self.clock.advance(by: .seconds(10))
        #expect(machine.receive(.wokeUp).notices.isEmpty, "once")
        // A new arrival starts a new list; a machine without an index notices nothing.
        _ = machine.receive(.arrived(["c.md"]))
        self.clock.advance(by: .seconds(1))
        #expect(machine.receive(.wokeUp).notices == [["c.md"]])
        var plain = Machine(configuration: Machine.Configuration(), clock: self.clock)
        _ = plain.receive(.start)
        #expect(plain.receive(.arrived(["d.md"])).notices.isEmpty)
    }

    /// A listing's candidates are handed to the index as arrivals are, a second later, and only those that wait for
    /// something besides their turn then: one stamped has its row from its batch, one in a batch or queued while
    /// stamping goes on will have it. Without an index nothing is.
    @Test func aListingsCandidatesWaitingBesidesTheirTurnAreNoticedASecondLater() throws {
        let indexed: Machine.Configuration = {
            var configuration = Machine.Configuration()
            configuration.noticeDelay = .seconds(1)
            return configuration
        }()
        let names = (0..<100).map { "e\($0).md" }
        // Stamping goes on: the first batch is stamped within the second; the rest are in batches or in the queue.
        var machine = Machine(configuration: indexed, clock: self.clock)
        _ = machine.receive(.start)
        _ = machine.receive(.weatherArrived(Fixtures.tag))
        let listed = machine.receive(.listed(candidates: names, present: nil))
        #expect(listed.notices.isEmpty, "not at once")
        #expect(listed.wakeUps == [self.clock.now.advanced(by: .seconds(1))])
        let first = try #require(listed.batches.first)
        _ = machine.receive(.batchFinished(first, InboxStateMachineTests.stamped(first), arrivedMeanwhile: []))
        self.clock.advance(by: .seconds(1))
        #expect(machine.receive(.wokeUp).notices.isEmpty)

        // No weather yet: every candidate waits for it, and each gets its row, once.
        var offline = Machine(configuration: indexed, clock: self.clock)
        _ = offline.receive(.start)
        #expect(offline.receive(.listed(candidates: names + ["e1.md"], present: nil)).batches.isEmpty)
        self.clock.advance(by: .seconds(1))
        #expect(offline.receive(.wokeUp).notices == [names])

        var plain = Machine(configuration: Machine.Configuration(), clock: self.clock)
        _ = plain.receive(.start)
        _ = plain.receive(.listed(candidates: names, present: nil))
        self.clock.advance(by: .seconds(1))
        #expect(plain.receive(.wokeUp).notices.isEmpty)
    }

    /// The daemon's machine from its inbox configuration, and its one entry point.
    @Test func theDaemonsMachineTakesEveryInputThroughReceive() throws {
        var inbox = InboxConfiguration(path: "/diary")
        inbox.settle = .zero
        let configuration = Machine.Configuration(inbox: inbox, pollInterval: .seconds(30), hasStore: true)
        #expect(configuration.pollInterval == .seconds(30) && configuration.checksIntegrity)
        #expect(configuration.noticeDelay == .seconds(1))
        let plain = Machine.Configuration(inbox: inbox, pollInterval: nil, hasStore: false)
        #expect(plain.pollInterval == nil && !plain.checksIntegrity && plain.noticeDelay == nil)

        var machine = Machine(configuration: configuration, clock: self.clock)
        let start = machine.receive(.start)
        #expect(start.checksIntegrity)
        #expect(start.pollingIntervals == [.seconds(30)], "polled from the start, as configured")
        var unpolled = Machine(configuration: plain, clock: self.clock)
        #expect(unpolled.receive(.start).pollingIntervals.isEmpty)
        #expect(machine.receive(.integrityChecked).lists.count == 1)
        _ = machine.receive(.listed(candidates: [], present: []))
        #expect(machine.receive(.arrived(["a.md"])).fetches == 1)
        let batch = try #require(machine.receive(.weatherArrived(Fixtures.tag)).batches.first)
        #expect(batch.names == ["a.md"])
        // Names that arrived while the batch was out join the queue before it is counted done.
        let done = machine.receive(
            .batchFinished(batch, InboxStateMachineTests.stamped(batch), arrivedMeanwhile: ["b.md"]))
        #expect(done.batches.map(\.names) == [["b.md"]], "the tag is fresh: b.md goes at once")
        #expect(machine.receive(.stop).finishes == false, "a batch is still out")
    }

    @Test func nothingIsListedOrStampedWhileTheStoreIsLookedOver() throws {
        var machine = Machine(
            configuration: {
                var configuration = Machine.Configuration()
                configuration.checksIntegrity = true
                return configuration
            }(), clock: self.clock)
        let start = machine.receive(.start)
        #expect(start.checksIntegrity && start.lists.isEmpty)
        #expect(machine.receive(.arrived(["a.md"])).fetches == 0, "an arrival waits for the look-over")
        #expect(machine.receive(.rescan).lists.isEmpty, "so does a rescan")
        let checked = machine.receive(.integrityChecked)
        #expect(checked.lists.count == 1 && checked.fetches == 1, "the first listing, and the arrival")
        #expect(machine.receive(.integrityChecked).lists.isEmpty, "answered once")
    }
}

extension Array where Element == InboxStateMachine<TestClock>.Action {
    var notices: [[String]] {
        self.compactMap { if case .notice(let names) = $0 { names } else { nil } }
    }
    var checksIntegrity: Bool { self.contains { if case .checkIntegrity = $0 { true } else { false } } }
    var pollingIntervals: [Duration] {
        self.compactMap { if case .startPolling(let interval) = $0 { interval } else { nil } }
    }
    var batches: [InboxStateMachine<TestClock>.Batch] {
        self.compactMap { if case .stamp(let batch) = $0 { batch } else { nil } }
    }
    var fetches: Int { self.filter { if case .fetchWeather = $0 { true } else { false } }.count }
    var lists: [[String: FileVersion]] {
        self.compactMap { if case .list(let unchanged) = $0 { unchanged } else { nil } }
    }
    var wakeUps: [TestClock.Instant] {
        self.compactMap { if case .wakeUp(let at) = $0 { at } else { nil } }
    }
    var reports: [InboxStateMachine<TestClock>.Report] {
        self.compactMap { if case .report(let report) = $0 { report } else { nil } }
    }
    var finishes: Bool { self.contains { if case .finish = $0 { true } else { false } } }
    var histories: [(String, HistoryRequest)] {
        self.compactMap { if case .fetchHistory(let name, let request) = $0 { (name, request) } else { nil } }
    }
}

/// The machine's own phase (`Lifecycle`) and its two concerns, current weather and writes, each with its own
/// backoff: one never ends the other's.
@Suite("inbox state machine: its phase")
struct InboxPhaseTests {
    typealias Machine = InboxStateMachine<TestClock>
    let clock = TestClock()

    /// Before, one pause was shared: a failed write replaced the weather service's `Retry-After`, and weather was
    /// asked for again as soon as the write's shorter backoff was over.
    @Test func aFailedWriteDoesNotEndTheWeatherServicesBackoff() throws {
        var machine = Machine(
            configuration: {
                var configuration = Machine.Configuration()
                configuration.sortsWithoutWeather = true
                configuration.writeBackoff = Backoff(base: .seconds(1), ceiling: .seconds(1))
                return configuration
            }(), clock: self.clock)
        _ = machine.receive(.start)
        #expect(machine.receive(.listed(candidates: ["a.md"], present: nil)).fetches == 1)
        let failed = machine.receive(
            .weatherFailed(InboxStateMachineTests.Failure(description: "429"), retryAfter: .seconds(120)))
        let sorting = try #require(failed.batches.first, "read without weather while none can be had")
        #expect(sorting.tag == nil)
        let refused = machine.receive(
            .batchFinished(
                sorting, BatchOutcome(failure: ("a.md", InboxStateMachineTests.Failure(description: "ENOSPC"))),
                arrivedMeanwhile: []))
        #expect(refused.batches.isEmpty)
        #expect(machine.waitingReason("a.md")?.reason == .diskRefused)

        self.clock.advance(by: .seconds(1))
        let retried = machine.receive(.wokeUp)
        #expect(retried.fetches == 0, "the weather service said 120 s")
        let again = try #require(retried.batches.first, "writes are tried again")
        #expect(again.tag == nil)
        let waits = machine.receive(
            .batchFinished(again, BatchOutcome(results: [("a.md", .needsWeather)]), arrivedMeanwhile: []))
        #expect(waits.fetches == 0 && !waits.reports.isEmpty, "stamping works again; weather is still waited for")
        #expect(machine.waitingReason("a.md")?.reason == .noWeather)

        self.clock.advance(by: .seconds(119))
        #expect(machine.receive(.wokeUp).fetches == 1, "asked again when the service said")
    }

    @Test func stopDuringTheLookOverFinishesAndStartsNothing() {
        var machine = Machine(
            configuration: {
                var configuration = Machine.Configuration()
                configuration.checksIntegrity = true
                return configuration
            }(), clock: self.clock)
        #expect(machine.receive(.start).checksIntegrity)
        _ = machine.receive(.arrived(["a.md"]))
        #expect(machine.receive(.stop).finishes, "nothing is in flight")
        let checked = machine.receive(.integrityChecked)
        #expect(checked.lists.isEmpty && checked.batches.isEmpty && checked.fetches == 0)
    }

    @Test func aRefusedBatchHaltsTheMachineUntilItStops() throws {
        var machine = Machine(configuration: Machine.Configuration(), clock: self.clock)
        _ = machine.receive(.start)
        _ = machine.receive(.listed(candidates: ["a.md"], present: nil))
        let batch = try #require(machine.receive(.weatherArrived(Fixtures.tag)).batches.first)
        let halted = machine.receive(.batchFinished(batch, nil, arrivedMeanwhile: ["b.md"]))
        #expect(halted.batches.isEmpty && halted.fetches == 0, "the thread pool refused: nothing more starts")
        #expect(machine.waiting == 2, "both wait in the inbox for the next start")
        #expect(machine.receive(.rescan).lists.count == 1, "a listing still runs")
        #expect(machine.receive(.listed(candidates: ["c.md"], present: nil)).batches.isEmpty)
        #expect(machine.receive(.stop).finishes)
    }
}
