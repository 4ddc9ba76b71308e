import Dispatch
import FutureCore
import TestSupport
import Testing

@testable import FutureProcess
@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

/// A launcher without processes: it records each attempt as it starts and lets the test end the
/// attempts in any order, at any time. What the end-to-end suite shows with `sleep`, shown here by
/// the order of calls, deterministically.
private final class FakeLauncher: Launcher {
    private struct Attempt {
        let job: Int
        let slot: Int
        let result: Promise<CommandResult, Never>
    }

    /// Every attempt started, in order.
    private final class Log: Sendable {
        let attempts = Locked<[Attempt]>([])
        /// Called with the job's number as each attempt starts, on the thread that starts it.
        let onStart = Locked<(@Sendable (Int) -> Void)?>(nil)
    }

    let governor: WidthGovernor
    private let log: Log
    /// Verdicts to give, once each, instead of ``AttemptVerdict/stands``, by job number.
    let verdicts = Locked<[Int: AttemptVerdict]>([:])

    init(width: Int) {
        let log = Log()
        self.log = log
        let pool = CommandPool(width: width) { command, seat in
            let value = { (name: String) in Int(command.environment.first { $0.name == name }!.value)! }
            #expect(value("FUTURERUN_SLOT") == seat.slot)
            let result = Promise<CommandResult, Never>()
            // Stopped (`run.cancel()`): it ends as a process stopped by a signal ends.
            result.onCancel { _ = result.tryComplete(.success(FakeLauncher.result(.cancelled))) }
            log.attempts.withLock {
                $0.append(Attempt(job: value("FUTURERUN_JOB"), slot: value("FUTURERUN_SLOT"), result: result))
            }
            log.onStart.withLock { $0 }?(value("FUTURERUN_JOB"))
            return .standIn(result: result.future)
        }
        var limits = WidthLimits()
        limits.set(.jobs, width)
        governor = WidthGovernor(pool: pool, limits: limits)
    }

    var handsOverInline: Bool { true }
    func open() {}
    func close() {}
    func queued() {}
    var unavailable: String? { nil }

    func place(_ attempt: AttemptSpec, seat: CommandPool.Seat) -> (Command, Placement) {
        (attempt.localCommand, Placement(seat: seat))
    }

    func judge(
        _ result: CommandResult, at placement: Placement, refusals: Int, stopping: Bool,
        verdict: @escaping @Sendable (AttemptVerdict) -> Void
    ) {
        let job = log.attempts.withLock { attempts in attempts.last { $0.slot == placement.seat.slot }!.job }
        verdict(verdicts.withLock { $0.removeValue(forKey: job) } ?? .stands)
    }

    /// Calls `body` with the job's number as each attempt starts, on the thread that starts it.
    func whenStarting(_ body: @escaping @Sendable (Int) -> Void) { log.onStart.withLock { $0 = body } }

    /// The jobs started so far, in the order they started (a job again for each attempt).
    var started: [Int] { log.attempts.withLock { $0.map(\.job) } }
    /// The jobs running now.
    var running: [Int] { log.attempts.withLock { $0.filter { !$0.result.future.resolved }.map(\.job) } }
    /// The slot `job`'s last attempt ran in.
    func slot(of job: Int) -> Int? { log.attempts.withLock { $0.last { $0.job == job }?.slot } }

    /// Ends `job`'s running attempt with exit status `status`.
    func end(_ job: Int, exit status: Int32 = 0) {
        let attempt = log.attempts.withLock { $0.first { $0.job == job && !$0.result.future.resolved } }
        #expect(attempt != nil, "job \(job) is not running")
        attempt?.result.succeed(Self.result(.exited(status)))
    }

    static func result(_ status: TerminationStatus) -> CommandResult {
        let output = CommandRun.neverStarted().stdout
        return CommandResult(notSpawnedHere: status, startTime: 0, wallTime: .zero, stdout: output, stderr: output)
    }
}

/// The fake's engine: its turns end at once, and its processes are the fake's running attempts.
private struct FakeEngine: AttemptEngine {
    let launcher: FakeLauncher
    func afterThisTurn(_ body: @escaping @Sendable () -> Void) { body() }
    var runningCount: Int { launcher.running.count }
}

/// A run of `commands` against a ``FakeLauncher`` of `width` slots, started.
private struct Run {
    let scheduler: Scheduler
    let launcher: FakeLauncher
    /// The tickets the printer got, in the order it got them.
    var tickets: [JobTicket] = []

    /// - Parameter onStart: called as each attempt starts, with the job's number.
    init(
        _ commands: [String], width: Int, retries: Int = 0, halt: HaltPolicy = .never, window: Int = 64,
        onStart: (@Sendable (Scheduler, Int) -> Void)? = nil
    ) throws {
        var options = Options()
        options.source = .commands(commands.map { Array($0.utf8) })
        let source = JobPipeline(try JobSource(options: options, input: nil), selection: JobSelection())
        launcher = FakeLauncher(width: width)
        let settings = Scheduler.Settings(
            shell: "/bin/sh", timeout: nil, grace: .seconds(1), retries: retries, halt: halt, delay: nil,
            workingDirectory: nil, window: window)
        scheduler = Scheduler(
            settings: settings, source: source, launcher: launcher, engine: FakeEngine(launcher: launcher), notices: Notices())
        if let onStart { launcher.whenStarting { [scheduler] in onStart(scheduler, $0) } }
        scheduler.start()
    }

    /// Takes the tickets handed over so far.
    mutating func receive() {
        while let ticket = scheduler.tickets.tryReceive() { tickets.append(ticket) }
    }

    /// How `job` (from 1) ended, once it has.
    func status(_ job: Int) -> JobStatus? { tickets[job - 1].outcome.outcome.map { $0.get().status } }
    func outcome(_ job: Int) -> JobOutcome? { tickets[job - 1].outcome.outcome?.get() }
}

@Suite struct Scheduling {
    @Test func jobsStartInInputOrderAsSlotsFreeAndReachThePrinterInInputOrder() throws {
        var run = try Run(["a", "b", "c", "d", "e"], width: 2)
        run.receive()
        #expect(run.tickets.map(\.job.number) == [1, 2, 3, 4, 5], "every ticket, in input order, at once")
        #expect(run.launcher.started == [1, 2])
        run.launcher.end(2)
        #expect(run.launcher.started == [1, 2, 3], "the freed slot takes the next job")
        #expect(run.launcher.slot(of: 3) == run.launcher.slot(of: 2))
        run.launcher.end(3)
        run.launcher.end(4)
        #expect(run.launcher.running == [1, 5], "two at once, never more")
        #expect(run.status(2) == .succeeded && run.status(1) == nil, "a later job may end first")
        run.launcher.end(5)
        run.launcher.end(1)
        #expect((1...5).map(run.status) == Array(repeating: .succeeded, count: 5))
    }

    @Test func aFailedAttemptRunsAgainUntilItsRetriesAreSpent() throws {
        var run = try Run(["a", "b"], width: 1, retries: 3)
        run.receive()
        run.launcher.end(1, exit: 1)
        run.launcher.end(1, exit: 1)
        #expect(run.launcher.started == [1, 1, 1], "again at once, before the next job")
        run.launcher.end(1)
        #expect(run.outcome(1)?.attempts == 3 && run.outcome(1)?.earlierAttempts.count == 2)
        run.launcher.end(2, exit: 4)
        run.launcher.end(2, exit: 4)
        run.launcher.end(2, exit: 4)
        #expect(run.status(2) == .failed(.exited(4)) && run.outcome(2)?.attempts == 3, "3 attempts in all, as GNU's")
        #expect(run.launcher.started == [1, 1, 1, 2, 2, 2])
    }

    @Test func haltNowStopsTheRunningAndStartsNothingMore() throws {
        for policy in [HaltPolicy.failFast, HaltPolicy(urgency: .now, trigger: .failures(1))] {
            var run = try Run(["a", "b", "c", "d"], width: 2, halt: policy)
            run.receive()
            run.launcher.end(1, exit: 3)
            #expect(run.launcher.running == [] && run.launcher.started == [1, 2])
            #expect(run.status(1) == .failed(.exited(3)) && run.status(2) == .stopped)
            #expect(run.status(3) == .notStarted && run.status(4) == .notStarted)
            #expect(run.scheduler.halted.stopped && run.scheduler.halted.exitStatus == 3, "the failing job's status")
        }
    }

    @Test func haltSoonLetsTheRunningFinishAndDoesNotRefillTheSlot() throws {
        var run = try Run(["a", "b", "c", "d"], width: 2, halt: HaltPolicy(urgency: .soon, trigger: .failures(1)))
        run.receive()
        run.launcher.end(1, exit: 1)
        #expect(run.launcher.running == [2], "the running job goes on; the freed slot stays empty")
        run.launcher.end(2)
        #expect(run.status(2) == .succeeded && run.status(3) == .notStarted && run.status(4) == .notStarted)
    }

    @Test func haltAfterAPercentageCountsEveryJob() throws {
        var run = try Run(
            Array(repeating: "x", count: 10), width: 1, halt: HaltPolicy(urgency: .soon, trigger: .failurePercent(20)))
        run.receive()
        run.launcher.end(1, exit: 1)
        run.launcher.end(2)
        #expect(!run.scheduler.halted.stopped, "1 of 10 is not yet 20%")
        run.launcher.end(3, exit: 1)
        #expect(run.scheduler.halted.stopped && run.launcher.started == [1, 2, 3])
    }

    @Test func aJobThatWaitsStartsWhenItsPrerequisiteEndsAndIsSkippedIfItFails() throws {
        var run = try Run(["@a true", "@b after=a true", "true", "@d after=b true"], width: 2)
        run.receive()
        #expect(run.launcher.started == [1, 3], "b and d wait; the next free job takes the slot")
        run.launcher.end(1)
        #expect(run.launcher.started == [1, 3, 2])
        run.launcher.end(2, exit: 1)
        guard case .skipped = run.status(4) else {
            Issue.record("d waits for a failed job: skipped, not \(String(describing: run.status(4)))")
            return
        }
        run.launcher.end(3)
        #expect(run.launcher.started == [1, 3, 2])
    }

    @Test func aWiderPoolStartsWaitingJobsAtOnce() throws {
        var run = try Run(["a", "b", "c", "d"], width: 1)
        run.receive()
        #expect(run.launcher.started == [1])
        run.launcher.governor.set(.jobs, 3)
        #expect(run.launcher.started == [1, 2, 3])
        run.launcher.governor.set(.jobs, 1)
        run.launcher.end(1)
        run.launcher.end(2)
        #expect(run.launcher.started == [1, 2, 3], "narrower: nothing starts until below the width")
        run.launcher.end(3)
        #expect(run.launcher.started == [1, 2, 3, 4])
    }

    @Test func anAttemptOnALostMachineRunsAgainAsTheSameAttempt() throws {
        var run = try Run(["a"], width: 1, retries: 1)
        run.receive()
        run.launcher.verdicts.withLock { $0[1] = .lost }
        run.launcher.end(1, exit: 255)
        #expect(run.launcher.started == [1, 1] && run.status(1) == nil)
        run.launcher.end(1)
        #expect(run.status(1) == .succeeded && run.outcome(1)?.attempts == 1, "not another attempt")
        #expect(run.outcome(1)?.requeued == 1)
    }

    @Test func theWindowBoundsHowFarTheSchedulerRunsAhead() throws {
        // 6 jobs, a window of 2: the scheduler's own thread hands two over, then waits for the
        // printer to release one.
        var run = try Run(Array(repeating: "x", count: 6), width: 6, window: 2)
        #expect(eventually { run.launcher.started == [1, 2] })
        run.receive()
        #expect(run.tickets.count == 2)
        run.scheduler.release()
        #expect(eventually { run.launcher.started == [1, 2, 3] }, "one released, one more in")
        for job in 1...3 { run.launcher.end(job) }
        for _ in 1...3 { run.scheduler.release() }
        #expect(eventually { run.launcher.started.count == 6 })
        for job in 4...6 { run.launcher.end(job) }
        for _ in 4...6 { run.scheduler.release() }
        #expect(eventually { run.scheduler.tickets.isClosed }, "the input is over once the window has room to see it")
    }

    @Test func inputAbandonedWhileAJobIsHandedOverStillHandsThatJobOver() throws {
        // A stop signal stops the run and abandons the input on the signal's thread, here while
        // job 1 starts, before its ticket is handed over. The job started: its ticket must reach
        // the printer, or it would go unreported, and be killed at futurerun's exit without its
        // grace period.
        let (stopped, abandoned) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        var run = try Run(["a", "b"], width: 2) { scheduler, job in
            guard job == 1 else { return }
            // A thread of its own, as the signal's: the shared queues may all be busy in a loaded
            // test run.
            OSThread.detach(name: "signal") {
                scheduler.stopAll()
                stopped.signal()
                scheduler.abandonInput(notice: "input cut")
                abandoned.signal()
            }
            // Stopping never waits for the hand-over; abandoning the input must.
            stopped.wait()
            if abandoned.wait(timeout: .now() + 0.5) == .success { abandoned.signal() }
        }
        abandoned.wait()
        run.receive()
        let first = try #require(run.tickets.first, "the job that started reaches the printer")
        #expect(first.job.number == 1 && first.outcome.outcome?.get().status == .stopped)
        #expect(run.launcher.started == [1], "no later job starts")
    }

    @Test func stopAllStopsTheRunningAndTheWaiting() throws {
        var run = try Run(["@a true", "b", "@c after=a true", "d"], width: 2)
        run.receive()
        run.scheduler.stopAll()
        #expect(run.launcher.running == [])
        #expect(run.status(1) == .stopped && run.status(2) == .stopped)
        #expect(run.status(3) == .notStarted && run.status(4) == .notStarted)
    }
}
