import Testing
import WeathertagCore

@Suite("The open files a burst's batches may hold")
struct DescriptorBudgetTests {
    /// The daemon's defaults: three batches in flight, chunks of 32 (each entry open with its copy), and the
    /// socket's 64 connections.
    func budget(soft: UInt64, hard: UInt64, connections: Int = 64) -> DescriptorBudget {
        DescriptorBudget(soft: soft, hard: hard, connections: connections, batchesInFlight: 3, writtenTogether: 32)
    }

    /// What the batches need: three chunks of 32 entries and their copies, the connections, and the reserve.
    let needed = UInt64(3 * 2 * 32 + 64 + DescriptorBudget.reserve)

    /// systemd's default for a service (1,024 soft, 524,288 hard) holds three batches as they are: nothing is raised.
    @Test func systemdsDefaultLimitHoldsThreeBatches() {
        let budget = self.budget(soft: 1024, hard: 524_288)
        #expect(self.needed == 352)
        #expect(budget.needed == self.needed)
        #expect(budget.raiseTo == nil)
        #expect(budget.batchesInFlight == 3)
        #expect(!budget.isShort)
    }

    /// A limit that is enough already is left as it is, and so is an unlimited one; never lowered.
    @Test func aLimitThatIsEnoughIsLeftAlone() {
        for soft in [self.needed, 20_000, UInt64.max] {
            let budget = self.budget(soft: soft, hard: .max)
            #expect(budget.raiseTo == nil)
            #expect(budget.batchesInFlight == 3)
            #expect(!budget.isShort)
        }
        #expect(self.budget(soft: 4096, hard: 1024).raiseTo == nil)
    }

    /// Many connections (`socket.max_connections`) raise the soft limit to what they and the batches need.
    @Test func manyConnectionsRaiseTheSoftLimit() {
        let budget = self.budget(soft: 1024, hard: 524_288, connections: 4096)
        #expect(budget.raiseTo == UInt64(3 * 64 + 4096 + DescriptorBudget.reserve))
        #expect(budget.batchesInFlight == 3)
        #expect(!budget.isShort)
    }

    /// A hard limit below the need: raised to it, and as many batches at once as then fit.
    @Test func aLowHardLimitIsRaisedToAndFewerBatchesRun() {
        let budget = self.budget(soft: 256, hard: 300)
        #expect(budget.raiseTo == 300)
        #expect(budget.batchesInFlight == 2)  // 2 × 64 + 160 = 288 ≤ 300 < 352
        #expect(!budget.isShort)
        #expect(self.budget(soft: 256, hard: 256).batchesInFlight == 1)
        #expect(self.budget(soft: 256, hard: 256).raiseTo == nil)
    }

    /// A limit too low even for one batch: one, and the budget says it is short.
    @Test func aLimitTooLowForOneBatchIsSaid() {
        let budget = self.budget(soft: 128, hard: 128)
        #expect(budget.raiseTo == nil)
        #expect(budget.batchesInFlight == 1)
        #expect(budget.isShort)
        // The same with the connections taking the limit whole.
        #expect(self.budget(soft: 1024, hard: 1024, connections: 1000).isShort)
    }
}
