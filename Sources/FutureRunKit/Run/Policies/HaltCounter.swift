/// The halt policy's count of finished jobs, as a value: ``record(_:)`` each job's end, and it says
/// when the run must halt. Used under the scheduler's lock; tested without processes.
struct HaltCounter: Sendable, Equatable {
    let policy: HaltPolicy
    private(set) var finished = 0
    private(set) var failed = 0
    private(set) var succeeded = 0
    /// The policy has triggered (it triggers once).
    private(set) var triggered = false

    init(_ policy: HaltPolicy) { self.policy = policy }

    /// Counts a finished job; returns true when this job triggers the halt.
    mutating func record(_ status: JobStatus) -> Bool {
        finished += 1
        if status.isFailure { failed += 1 }
        if status == .succeeded { succeeded += 1 }
        guard policy.urgency != .never, !triggered else { return false }
        switch policy.trigger {
        case .failures(let count): triggered = failed >= count
        case .failurePercent(let percent): triggered = failed > 0 && failed * 100 >= percent * finished
        case .successes(let count): triggered = succeeded >= count
        }
        return triggered
    }

    /// Whether the halt came from successes (`--halt now,success=N`): the run then exits 0.
    var haltedBySuccess: Bool {
        guard triggered, case .successes = policy.trigger else { return false }
        return true
    }
}
