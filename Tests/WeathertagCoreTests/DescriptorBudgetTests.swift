import Testing
import WeathertagCore

@Suite("The open files a burst's batches may hold")
struct DescriptorBudgetTests {
    /// The daemon's defaults: three batches in flight, 32 a batch, 512 while the queue is long, chunks of 32, and
    /// the socket's 64 connections.
    func budget(soft: UInt64, hard: UInt64, connections: Int = 64) -> DescriptorBudget {
        DescriptorBudget(
            soft: soft, hard: hard, connections: connections, batchesInFlight: 3, batchSize: 32,
            longQueueBatchSize: 512, writtenTogether: 32)
    }

    /// What the batches need: three of 512 names and a chunk of copies each, the connections, and the reserve.
    let needed = UInt64(3 * (512 + 32) + 64 + DescriptorBudget.reserve)

    /// systemd's default for a service (1,024 soft, 524,288 hard): the soft limit is raised to what is needed, and
    /// the batches keep their size.
    @Test func systemdsDefaultLimitIsRaisedToWhatTheBatchesNeed() {
        let budget = self.budget(soft: 1024, hard: 524_288)
        #expect(budget.raiseTo == self.needed)
        #expect(budget.needed == self.needed)
        #expect(budget.longQueueBatchSize == 512)
        #expect(budget.batchesInFlight == 3)
        #expect(!budget.isShort)
    }

    /// A limit that is enough already is left as it is, and so is an unlimited one.
    @Test func aLimitThatIsEnoughIsLeftAlone() {
        for soft in [self.needed, 20_000, UInt64.max] {
            let budget = self.budget(soft: soft, hard: .max)
            #expect(budget.raiseTo == nil)
            #expect(budget.longQueueBatchSize == 512)
            #expect(!budget.isShort)
        }
        // Never lowered: a soft limit above the hard one's needs is kept (the kernel would refuse it anyway).
        #expect(self.budget(soft: 4096, hard: 1024).raiseTo == nil)
    }

    /// A hard limit below the need: raised to it, and the long batches made to fit (three of 256 and their
    /// chunks, the connections and the reserve within 1,024).
    @Test func aLowHardLimitMakesTheLongBatchesFit() {
        let budget = self.budget(soft: 256, hard: 1024)
        #expect(budget.raiseTo == 1024)
        let fits = (1024 - 64 - DescriptorBudget.reserve) / 3 - 32
        #expect(budget.longQueueBatchSize == fits)
        #expect(3 * (budget.longQueueBatchSize + 32) + 64 + DescriptorBudget.reserve <= 1024)
        #expect(!budget.isShort)
    }

    /// A limit that holds fewer than three short batches: fewer at once, each as large as then fits (one batch of
    /// 64 within 256: 96 for the rest, 64 + 32 for the batch and its chunk).
    @Test func aLowLimitMeansFewerBatchesAtOnce() {
        let budget = self.budget(soft: 256, hard: 256)
        #expect(budget.raiseTo == nil)
        #expect(budget.batchesInFlight == 1)
        #expect(budget.longQueueBatchSize == 256 - 64 - DescriptorBudget.reserve - 32)
        #expect(!budget.isShort)
        #expect(self.budget(soft: 320, hard: 320).batchesInFlight == 2)
        #expect(self.budget(soft: 1024, hard: 1024).batchesInFlight == 3)
    }

    /// A limit too low even for one short batch: one, of the short size, and the budget says it is short.
    @Test func aLimitTooLowForOneShortBatchIsSaid() {
        let budget = self.budget(soft: 128, hard: 128)
        #expect(budget.raiseTo == nil)
        #expect(budget.batchesInFlight == 1)
        #expect(budget.longQueueBatchSize == 32)
        #expect(budget.isShort)
        // The same with the connections taking the limit whole.
        #expect(self.budget(soft: 1024, hard: 1024, connections: 1000).isShort)
    }

    /// More connections (`socket.max_connections`) ask for more descriptors, not for smaller batches.
    @Test func connectionsAreCountedBesideTheBatches() {
        let budget = self.budget(soft: 1024, hard: 524_288, connections: 4096)
        #expect(budget.raiseTo == UInt64(3 * (512 + 32) + 4096 + DescriptorBudget.reserve))
        #expect(budget.longQueueBatchSize == 512)
    }
}
