import Glibc
import Testing

@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

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

/// What a slot's worker sends back, cut into each job's stdout, stderr and end.
@Suite struct SlotFrameReading {
    private let token = "futurerun-tok"

    private func frames(_ chunks: [String]) -> [SlotFrames.Piece] {
        var frames = SlotFrames(token: token)
        // Adjacent pieces of one stream as one, for comparing.
        var merged: [SlotFrames.Piece] = []
        for piece in chunks.flatMap({ frames.feed(Array($0.utf8)) }) {
            switch (merged.last, piece) {
            case (.stdout(let before)?, .stdout(let more)): merged[merged.count - 1] = .stdout(before + more)
            case (.stderr(let before)?, .stderr(let more)): merged[merged.count - 1] = .stderr(before + more)
            default: merged.append(piece)
            }
        }
        return merged
    }

    @Test func aJobsStdoutStderrAndStatusComeApartWhereverTheBytesAreCut() {
        let stream = "out 1\nline 2\u{1E}not a marker\n\u{1E}futurerun-tok e 4\nerr\n\n\u{1E}futurerun-tok s 3\n"
        let expected: [SlotFrames.Piece] = [
            .stdout(Array("out 1\nline 2\u{1E}not a marker".utf8)), .stderr(Array("err\n".utf8)), .end(status: 3),
        ]
        #expect(frames([stream]) == expected)
        let bytes = Array(stream.utf8)
        for cut in 1..<bytes.count {
            let parts = [String(decoding: bytes[..<cut], as: UTF8.self), String(decoding: bytes[cut...], as: UTF8.self)]
            #expect(frames(parts) == expected, "cut at \(cut)")
        }
    }

    @Test func onlyBytesThatMayBeginAMarkerAreHeldBack() {
        var frames = SlotFrames(token: token)
        #expect(frames.feed(Array("abc\n".utf8)) == [.stdout(Array("abc".utf8))], "the newline may begin a marker")
        #expect(frames.feed(Array("\u{1E}futurerun-t".utf8)).isEmpty, "nor may this")
        let more = Array(String(repeating: "x", count: 40).utf8)
        #expect(frames.feed(more) == [.stdout(Array("\n\u{1E}futurerun-t".utf8) + more)])
        // Without a newline first (warm shells), a job's last newline is its own at once.
        var bare = SlotFrames(token: "futurerun-tok", newlineFirst: false)
        #expect(bare.feed(Array("abc\n\u{1E}futu".utf8)) == [.stdout(Array("abc\n".utf8))])
        #expect(bare.feed(Array("rerun-tok s 4\nnext".utf8)) == [.end(status: 4), .stdout(Array("next".utf8))])
    }

    @Test func aJobWithoutOutputEndsAtOnceAndStderrMayHoldAMarkersBytes() {
        #expect(frames(["\n\u{1E}futurerun-tok s 0\n"]) == [.end(status: 0)])
        let err = "\n\u{1E}futurerun-tok s 9\n"
        #expect(
            frames(["\n\u{1E}futurerun-tok e \(err.utf8.count)\n" + err + "\n\u{1E}futurerun-tok s 1\n"])
                == [.stderr(Array(err.utf8)), .end(status: 1)])
    }

    @Test func aNodeListIsReadOnlyWhenItIsOne() {
        for good in ["vm", "node[1-3,7]", "a1,b[01-02]", "gpu-node.x[3]"] { #expect(SlurmAllocation.isNodeList(good), "\(good)") }
        for bad in ["vm[", "vm]", "vm[a]", "[1]", "vm[1-]", "vm,", "vm[1[2]]", "v m", ""] {
            #expect(!SlurmAllocation.isNodeList(bad), "\(bad)")
        }
    }

    @Test func halfAnArraysVariablesIsAnError() throws {
        let partial = Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "2"])
        guard case .failure(let error) = partial else {
            Issue.record("accepted: \(partial)")
            return
        }
        #expect(error.description.contains("SLURM_ARRAY_TASK_COUNT"))
        #expect(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "2"], count: 4).get() == Shard(index: 3, count: 4))
    }

    @Test func srunsLastLineTellsASignalFromAnExitAndACutStep() {
        let said = { (text: String) in Array(text.utf8) }
        #expect(SrunReport.signal(inTail: said("x\nsrun: error: vm: task 0: Terminated\n")) == SIGTERM)
        #expect(SrunReport.signal(inTail: said("srun: error: vm: task 0: Segmentation fault\n")) == SIGSEGV)
        #expect(SrunReport.signal(inTail: said("srun: error: vm: task 0: Exited with exit code 143\n")) == nil)
        #expect(SrunReport.signal(inTail: said("Terminated\n")) == nil, "the job's own words are not srun's")
        #expect(SrunReport.stepWasCut(inTail: said("srun: error: Node failure on vm\n")))
        #expect(
            SrunReport.stepWasCut(inTail: said("slurmstepd-vm: error: *** STEP 3.4 ON vm CANCELLED AT 2026-12-06T22:18:49 ***\n"))
        )
        #expect(!SrunReport.stepWasCut(inTail: said("all fine\n")))
        #expect(
            SrunReport.allocationRefusesSteps(
                inTail: said("srun: error: Unable to create step for job 23: Job/step already completing or completed\n")))
        #expect(!SrunReport.allocationRefusesSteps(inTail: said("Unable to create step for job 23: it is my own line\n")))
    }

    @Test func aSlotsJobTimedOutWhenTimeoutEndedItOrKilledItAfterItsLimit() {
        let start = ContinuousClock.now
        let limit = (started: start, limit: Duration.seconds(1))
        #expect(SlotWorker.timedOut(status: 124, limit, now: start + .milliseconds(1100)))
        #expect(SlotWorker.timedOut(status: 137, limit, now: start + .seconds(2)), "TERM ignored, KILL after the grace")
        #expect(!SlotWorker.timedOut(status: 137, limit, now: start + .milliseconds(500)), "killed before its limit")
        #expect(!SlotWorker.timedOut(status: 124, nil), "no --timeout: the job's own status")
        #expect(!SlotWorker.timedOut(status: 1, limit, now: start + .seconds(2)))
    }
}
