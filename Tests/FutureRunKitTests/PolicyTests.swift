import FutureCore
import FutureProcess
import Testing

@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

/// The scheduler's decisions, as values: no process, no thread.
@Suite struct Policies {
    /// What `counter` decides for each status in turn.
    private func decisions(_ policy: HaltPolicy, _ statuses: [JobStatus], total: Int? = nil) -> (halts: [Bool], exit: Int32?) {
        var counter = HaltCounter(policy)
        var halts: [Bool] = []
        for status in statuses { halts.append(counter.record(status, total: total)) }
        return (halts, counter.exitStatus)
    }

    @Test func haltAfterNFailuresOnce() {
        let run = decisions(
            HaltPolicy(urgency: .now, trigger: .failures(2)),
            [.succeeded, .failed(.exited(1)), .unrunnable("x"), .failed(.exited(1))])
        #expect(run.halts == [false, false, true, false])
        #expect(run.exit == 2, "GNU parallel's: the failures counted when the halt triggered")
    }

    @Test func haltAtAShareOfFailures() {
        let run = decisions(
            HaltPolicy(urgency: .soon, trigger: .failurePercent(50)),
            [.succeeded, .succeeded, .failed(.timedOut), .failed(.exited(2))])
        #expect(run.halts == [false, false, false, true], "1 of 3 is under 50 %, 2 of 4 is 50 %")
        #expect(run.exit == 50, "GNU parallel's exit status: the percentage that failed")
        let known = decisions(
            HaltPolicy(urgency: .soon, trigger: .failurePercent(20)),
            [.succeeded, .failed(.exited(1)), .succeeded, .failed(.exited(1))], total: 10)
        #expect(known.halts == [false, false, false, true], "a percentage of all 10 jobs: 2 failures")
        #expect(known.exit == 20)
    }

    @Test func haltOnSuccessRacesTheJobs() {
        let run = decisions(HaltPolicy(urgency: .now, trigger: .successes(1)), [.failed(.exited(1)), .succeeded])
        #expect(run.halts == [false, true])
        #expect(run.exit == 0)
        let share = decisions(HaltPolicy(urgency: .soon, trigger: .successPercent(50)), [.succeeded, .succeeded], total: 4)
        #expect(share.halts == [false, true] && share.exit == 0)
    }

    @Test func theFirstFailureHaltsWithThatJobsOwnStatus() {
        #expect(decisions(.failFast, [.succeeded, .failed(.exited(3))]).exit == 3)
        #expect(decisions(HaltPolicy(urgency: .soon, trigger: .failures(1)), [.failed(.signaled(9))]).exit == 137)
        let done = decisions(HaltPolicy(urgency: .now, trigger: .done(2)), [.failed(.exited(3)), .succeeded])
        #expect(done.halts == [false, true] && done.exit == 1)
        // A job failing while a `soon` halt waits does not change the status (as in GNU parallel).
        let waited = decisions(
            HaltPolicy(urgency: .soon, trigger: .failurePercent(20)),
            [.failed(.exited(1)), .failed(.exited(1)), .failed(.exited(1))], total: 10)
        #expect(waited.halts == [false, true, false] && waited.exit == 20)
    }

    @Test func neverHaltsWithoutAPolicyAndStoppedJobsAreNoFailures() {
        #expect(decisions(.never, Array(repeating: .failed(.exited(1)), count: 5)).halts == Array(repeating: false, count: 5))
        #expect(decisions(.failFast, [.stopped, .notStarted, .failed(.signaled(9))]).halts == [false, false, true])
    }

    @Test func retriesOnlyFailuresWhileAttemptsAreLeftAndNotWhenStopping() {
        // GNU parallel's --retries 3: three attempts in all.
        let policy = RetryPolicy(retries: 3)
        #expect(policy.retries(after: false, attempt: 1, stopping: false))
        #expect(policy.retries(after: false, attempt: 2, stopping: false))
        #expect(!policy.retries(after: false, attempt: 3, stopping: false))
        #expect(!RetryPolicy(retries: 1).retries(after: false, attempt: 1, stopping: false))
        #expect(!policy.retries(after: true, attempt: 1, stopping: false))
        #expect(!policy.retries(after: false, attempt: 1, stopping: true))
        #expect(!RetryPolicy(retries: 0).retries(after: false, attempt: 1, stopping: false))
    }

    @Test func aRefusedSpawnHalvesTheWidthAndWaitsWhenNothingElseRuns() {
        #expect(SpawnRefusal.decide(refusals: 0, running: 9, width: 16) == .retry(width: 4, delay: nil))
        #expect(SpawnRefusal.decide(refusals: 3, running: 2, width: 4) == .retry(width: 1, delay: nil))
        #expect(SpawnRefusal.decide(refusals: 0, running: 1, width: 8) == .retry(width: 1, delay: .milliseconds(50)))
        #expect(SpawnRefusal.decide(refusals: 0, running: 9, width: 2) == .retry(width: 2, delay: nil), "never raised")
        #expect(SpawnRefusal.decide(refusals: SpawnRefusal.limit, running: 3, width: 4) == .giveUp)
    }

    @Test func theWindowWakesTheSchedulerOnlyOnceHalfIsFree() {
        var window = WindowCount(size: 4)
        var steps: [Bool] = []
        for _ in 0..<5 { steps.append(window.take()) }
        #expect(steps == [true, true, true, true, false], "full after four: the scheduler waits")
        steps = []
        for _ in 0..<3 { steps.append(window.giveBack()) }
        #expect(steps == [false, true, false], "woken once two of four are free, and only once")
        var one = WindowCount(size: 1)
        steps = [one.take(), one.take(), one.giveBack()]
        #expect(steps == [true, false, true])
    }
}

@Suite struct StopPressTests {
    @Test func aSecondStopSignalWithinAnEchoIsTheSamePress() {
        var presses = StopPresses()
        let start = ContinuousClock.now
        #expect(presses.action(first: true, at: start) == .stop)
        #expect(presses.action(first: false, at: start + .milliseconds(20)) == .sameAsBefore)
        #expect(presses.action(first: false, at: start + .milliseconds(150)) == .kill)
    }
}
