import FutureCore
import FutureProcess
import Testing

@testable import FutureRunKit

/// The scheduler's decisions, as values: no process, no thread.
@Suite struct Policies {
    /// What `counter` decides for each status in turn.
    private func decisions(_ policy: HaltPolicy, _ statuses: [JobStatus]) -> (halts: [Bool], bySuccess: Bool) {
        var counter = HaltCounter(policy)
        var halts: [Bool] = []
        for status in statuses { halts.append(counter.record(status)) }
        return (halts, counter.haltedBySuccess)
    }

    @Test func haltAfterNFailuresOnce() {
        let run = decisions(
            HaltPolicy(urgency: .now, trigger: .failures(2)),
            [.succeeded, .failed(.exited(1)), .unrunnable("x"), .failed(.exited(1))])
        #expect(run.halts == [false, false, true, false])
        #expect(!run.bySuccess)
    }

    @Test func haltAtAShareOfFailures() {
        let run = decisions(
            HaltPolicy(urgency: .soon, trigger: .failurePercent(50)),
            [.succeeded, .succeeded, .failed(.timedOut), .failed(.exited(2))])
        #expect(run.halts == [false, false, false, true], "1 of 3 is under 50 %, 2 of 4 is 50 %")
    }

    @Test func haltOnSuccessRacesTheJobs() {
        let run = decisions(HaltPolicy(urgency: .now, trigger: .successes(1)), [.failed(.exited(1)), .succeeded])
        #expect(run.halts == [false, true])
        #expect(run.bySuccess)
    }

    @Test func neverHaltsWithoutAPolicyAndStoppedJobsAreNoFailures() {
        #expect(decisions(.never, Array(repeating: .failed(.exited(1)), count: 5)).halts == Array(repeating: false, count: 5))
        #expect(decisions(.failFast, [.stopped, .notStarted, .failed(.signaled(9))]).halts == [false, false, true])
    }

    @Test func retriesOnlyFailuresWhileAttemptsAreLeftAndNotWhenStopping() {
        let policy = RetryPolicy(retries: 2)
        #expect(policy.retries(after: false, attempt: 1, stopping: false))
        #expect(policy.retries(after: false, attempt: 2, stopping: false))
        #expect(!policy.retries(after: false, attempt: 3, stopping: false))
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
