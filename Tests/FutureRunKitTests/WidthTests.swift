import Dispatch
import FutureCore
import Glibc
import TestSupport
import Testing

@testable import FutureProcess
@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

/// How the width providers combine: the least limit wins, each provider changes only its own, and
/// the governor is the one writer of the pool's width.
@Suite struct WidthCombination {
    /// Limits set in order, as `(provider, width)`; `nil` lifts one.
    private static func limits(_ steps: [(WidthProvider, Int?)]) -> WidthLimits {
        var limits = WidthLimits()
        for (provider, width) in steps { limits.set(provider, width, reason: provider.name) }
        return limits
    }

    @Test(
        arguments: [
            // (steps, width, holder)
            ([], Int.max, nil),
            ([(.jobs, 4)], 4, nil),
            ([(.jobs, 4), (.memory, 2)], 2, .memory),
            ([(.jobs, 4), (.memory, 9)], 4, nil),
            // A refusal narrows; the memory's next reading (wider than before) does not undo it.
            ([(.jobs, 8), (.memory, 6), (.spawnRefusal, 3), (.memory, 7)], 3, .spawnRefusal),
            ([(.jobs, 8), (.memory, 6), (.spawnRefusal, 3), (.memory, nil)], 3, .spawnRefusal),
            // -j FILE widening the run does not lift a hold for memory.
            ([(.jobs, 2), (.memory, 0), (.jobs, 8)], 0, .memory),
            ([(.jobs, 2), (.memory, 1), (.jobs, 8), (.memory, nil)], 8, nil),
            // make's jobserver: 1 plus the tokens held, within -j.
            ([(.jobs, 4), (.jobserver, 1), (.jobserver, 3)], 3, .jobserver),
            ([(.jobs, 4), (.jobserver, 7)], 4, nil),
            // Memory and load both hold: the first of those tied names it.
            ([(.jobs, 8), (.load, 2), (.memory, 2)], 2, .memory),
            ([(.jobs, 8), (.load, 1), (.memory, 2)], 1, .load),
            ([(.jobs, 8), (.slurmRate, 5), (.slurmAllocation, 0)], 0, .slurmAllocation),
            ([(.jobs, 8), (.slurmRate, 5), (.slurmAllocation, 0), (.slurmAllocation, nil)], 5, .slurmRate),
            ([(.systemLimits, 100)], 100, .systemLimits),
        ] as [([(WidthProvider, Int?)], Int, WidthProvider?)])
    func theLeastLimitIsTheWidth(steps: [(WidthProvider, Int?)], width: Int, holder: WidthProvider?) {
        let limits = Self.limits(steps)
        #expect(limits.width == width)
        #expect(limits.holder?.provider == holder)
        #expect(limits.holder.map { $0.limit.reason } == holder?.name)
    }

    @Test func aLimitNeverGoesBelowNone() {
        #expect(Self.limits([(.memory, -1)]).width == 0)
    }

    @Test func theWidthOfTheOthersLeavesOutTheNamedProviders() {
        let limits = Self.limits([(.jobs, 6), (.jobserver, 4), (.memory, 1), (.load, 2)])
        #expect(limits.width(excluding: [.memory, .load]) == 4)
        #expect(limits.width(excluding: [.memory]) == 2)
    }
}

/// The governor over a pool, and the launchers' providers going through it.
@Suite struct WidthGoverning {
    /// How an attempt ended that ran no process.
    private static func ended(_ status: TerminationStatus) -> CommandResult {
        let output = CommandRun.neverStarted().stdout
        return CommandResult(notSpawnedHere: status, startTime: 0, wallTime: .zero, stdout: output, stderr: output)
    }

    /// Starts counted.
    private final class Starts: Sendable {
        private let count = Locked(0)
        func add() { count.withLock { $0 += 1 } }
        var total: Int { count.withLock { $0 } }
    }

    /// A pool whose commands never start a process: each start is counted, and never ends.
    private static func countingPool() -> (CommandPool, Starts) {
        let started = Starts()
        let pool = CommandPool(width: 1) { _, _ in
            started.add()
            return .standIn(result: Promise<CommandResult, Never>().future)
        }
        return (pool, started)
    }

    @Test func thePoolRunsAtTheLeastLimitAndStartsWhatAWiderOneAllows() {
        let (pool, started) = Self.countingPool()
        var limits = WidthLimits()
        limits.set(.jobs, 4)
        limits.set(.memory, 0, reason: "memory")
        let governor = WidthGovernor(pool: pool, limits: limits)
        let runs = (0..<6).map { _ in pool.submit(.shell("true")) }
        #expect(pool.width == 0)
        #expect(started.total == 0, "memory holds every start")
        #expect(governor.holdingBack?.provider == .memory)
        governor.set(.memory, 2, reason: "memory")
        #expect(started.total == 2)
        #expect(governor.holdingBack?.limit.reason == "memory", "2 run, 4 wait for memory")
        governor.set(.jobs, 8)
        #expect(started.total == 2, "a wider -j does not lift the memory's hold")
        governor.set(.memory, nil)
        #expect(started.total == 6)
        #expect(pool.width == 8)
        #expect(governor.holdingBack == nil, "nothing waits")
        _ = runs
    }

    @Test func aNarrowingOnlyLowers() {
        let (pool, _) = Self.countingPool()
        var limits = WidthLimits()
        limits.set(.jobs, 4)
        let governor = WidthGovernor(pool: pool, limits: limits)
        #expect(!governor.narrow(.spawnRefusal, to: 6))
        #expect(governor.narrow(.spawnRefusal, to: 2))
        #expect(!governor.narrow(.spawnRefusal, to: 3), "never raised again")
        #expect(pool.width == 2)
    }

    /// Threads that set limits at once: the pool ends at the least of the last ones, whatever
    /// order their widths reached it in.
    @Test func theLastLimitsWinAcrossThreads() {
        let (pool, _) = Self.countingPool()
        let governor = WidthGovernor(pool: pool)
        for round in 0..<200 {
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                let provider = [WidthProvider.jobs, .memory, .load, .jobserver][thread]
                for step in 0..<50 { governor.set(provider, (step * 7 + thread + round) % 13 + 1) }
                governor.set(provider, 20 + thread)
            }
            #expect(pool.width == 20, "round \(round)")
        }
    }

    /// A refused spawn narrows a run under `--memfree`, and the memory's next readings (here,
    /// with room for many) do not widen it again.
    @Test func aNarrowingAfterARefusalSurvivesTheNextAdmissionTick() throws {
        let launcher = LocalLauncher(
            width: 8, jobserver: nil, admission: .init(memoryFree: MemoryAdmission(reserve: 1)), notices: Notices())
        defer { launcher.close() }
        launcher.open()
        #expect(launcher.pool.width == 8, "the memory admits -j")
        let refused = Self.ended(.failedToStart(errno: EAGAIN))
        let verdict = Locked<AttemptVerdict?>(nil)
        launcher.judge(refused, at: .unplaced, refusals: 0, stopping: false) { given in verdict.withLock { $0 = given } }
        #expect(verdict.withLock { $0 } == .refused(retryAfter: .milliseconds(50)))
        #expect(launcher.pool.width == 1)
        launcher.queued()
        launcher.judge(Self.ended(.exited(0)), at: .unplaced, refusals: 0, stopping: false) { _ in }
        #expect(launcher.pool.width == 1, "still narrowed after two readings of the memory")
        #expect(launcher.governor.limits.holder?.provider == .spawnRefusal)
    }

    /// `-j FILE` read again as a job ends: widened, the width stays within what memory allows.
    @Test func widerJobsFileDoesNotLiftAMemoryHold() throws {
        let scratch = Scratch()
        scratch.write("jobs", "2\n")
        let available = try #require(MemoryReadings.Source.current().read()).available
        let file = JobsFile(path: scratch.file("jobs"), cpus: 4) { $0 }
        let launcher = LocalLauncher(
            width: 2, jobserver: nil, admission: .init(memoryFree: MemoryAdmission(reserve: available * 4)),
            jobsFile: file, notices: Notices())
        defer { launcher.close() }
        launcher.open()
        #expect(launcher.pool.width == 0, "no memory: nothing starts")
        scratch.write("jobs", "8\n")
        launcher.judge(Self.ended(.exited(0)), at: .unplaced, refusals: 0, stopping: false) { _ in }
        #expect(launcher.governor.limits[.jobs]?.width == 8, "the file was read again")
        #expect(launcher.pool.width == 0, "and memory still holds")
    }
}
