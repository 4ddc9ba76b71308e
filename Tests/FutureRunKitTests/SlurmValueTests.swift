import Testing

@testable import FutureRunKit

/// `--slurm`'s decisions as values: the allocation read from its variables, its slots and their
/// nodes, and the step rate.
@Suite struct SlurmValues {
    private func allocation(_ variables: [String: String], nodes: [String], cpus: Int? = nil) -> SlurmAllocation? {
        try? SlurmAllocation.make(environment: variables, nodeNames: nodes, cpusPerStep: cpus).get()
    }

    @Test func cpusPerNodeReadsSlurmsRepeats() {
        #expect(SlurmAllocation.cpusPerNode("4(x2),2") == [4, 4, 2])
        #expect(SlurmAllocation.cpusPerNode("8") == [8])
        for bad in ["", "x", "4(2)", "4(x0)", "4(x2"] { #expect(SlurmAllocation.cpusPerNode(bad) == nil, "\(bad)") }
    }

    @Test func slotsAreTheTasksElseTheCPUsOverTheStepsCPUs() throws {
        let base = ["SLURM_JOB_ID": "7", "SLURM_JOB_CPUS_PER_NODE": "4(x2),2"]
        let nodes = ["n1", "n2", "n3"]
        #expect(allocation(base.merging(["SLURM_NTASKS": "5"]) { $1 }, nodes: nodes)?.slots == 5)
        #expect(allocation(base, nodes: nodes)?.slots == 10)
        #expect(allocation(base, nodes: nodes, cpus: 2)?.slots == 5)
        #expect(allocation(base.merging(["SLURM_CPUS_PER_TASK": "4"]) { $1 }, nodes: nodes)?.slots == 2, "n3 holds none")
        #expect(allocation(["SLURM_JOB_CPUS_PER_NODE": "4"], nodes: ["n1"]) == nil, "no job: outside an allocation")
        #expect(allocation(base, nodes: ["n1"]) == nil, "nodes and counts disagree")
    }

    @Test func slotsTakeTheNodesInTurnUpToWhatEachHolds() throws {
        let spread = try #require(
            allocation(["SLURM_JOB_ID": "7", "SLURM_JOB_CPUS_PER_NODE": "2,1,3"], nodes: ["a", "b", "c"]))
        #expect((1...6).map(spread.node(ofSlot:)) == ["a", "b", "c", "a", "c", "c"])
        #expect(spread.node(ofSlot: 7) == "a", "past the slots, in turn again")
    }

    @Test func theRateSpendsItsBurstThenStartsOneEachTick() {
        let start = ContinuousClock.now
        var rate = StepRate(perSecond: 10, now: start)
        #expect(rate.available(at: start) == 10)
        for _ in 0..<10 { rate.take(at: start) }
        #expect(rate.available(at: start) == 0)
        #expect(rate.wait(at: start) == .milliseconds(100))
        #expect(rate.available(at: start + .milliseconds(250)) == 2)
        #expect(rate.available(at: start + .seconds(60)) == 10, "never more than a burst saved up")
    }
}
