import FutureProcess
import FutureRunModel

/// The halt policy's count of finished jobs, as a value: ``record(_:total:)`` each job's end, and it
/// says when the run must halt and with which exit status (GNU parallel's). Used under the
/// scheduler's lock; tested without processes.
package struct HaltCounter: Sendable, Equatable {
    let policy: HaltPolicy
    package private(set) var finished = 0
    package private(set) var failed = 0
    package private(set) var succeeded = 0
    /// The policy has triggered (it triggers once).
    private(set) var triggered = false
    /// The exit status of the job that triggered a `fail=1` halt.
    private var triggeringStatus: Int32?
    /// The jobs of the run, and those failed, when the halt triggered (GNU's exit status is
    /// fixed then: jobs that fail while a `soon` halt waits do not change it).
    private var totalAtHalt = 0
    private var failedAtHalt = 0

    package init(_ policy: HaltPolicy) { self.policy = policy }

    /// Counts a finished job; returns true when this job triggers the halt. `total`: the run's job
    /// count when known (percentages are of all the jobs, as in GNU parallel), else the jobs
    /// finished so far stand for it.
    package mutating func record(_ status: JobStatus, total: Int? = nil) -> Bool {
        finished += 1
        if status.isFailure { failed += 1 }
        if status == .succeeded { succeeded += 1 }
        guard policy.urgency != .never, !triggered else { return false }
        let all = max(total ?? finished, finished)
        func reached(_ count: Int, _ percent: Int) -> Bool { count > 0 && count * 100 >= percent * all }
        switch policy.trigger {
        case .failures(let count): triggered = failed >= count
        case .failurePercent(let percent): triggered = reached(failed, percent)
        case .successes(let count): triggered = succeeded >= count
        case .successPercent(let percent): triggered = reached(succeeded, percent)
        case .done(let count): triggered = finished >= count
        case .donePercent(let percent): triggered = reached(finished, percent)
        }
        if triggered {
            totalAtHalt = all
            failedAtHalt = failed
            if case .failed(let termination) = status { triggeringStatus = termination.shellStatus }
            if case .unrunnable = status { triggeringStatus = 255 }
        }
        return triggered
    }

    /// The exit status a halt sets, GNU parallel's, as it stood when the halt triggered: 0 for a
    /// success rule; the failing job's own for `fail=1`; the percentage of jobs that had failed
    /// (rounded up) for a percentage; else the number that had failed (at most 101).
    package var exitStatus: Int32? {
        guard triggered else { return nil }
        switch policy.trigger {
        case .successes, .successPercent: return 0
        case .failures(1): return triggeringStatus
        case .failurePercent, .donePercent:
            return Int32(min(100, (failedAtHalt * 100 + max(1, totalAtHalt) - 1) / max(1, totalAtHalt)))
        case .failures, .done: return Int32(min(failedAtHalt, 101))
        }
    }
}
