import FutureRunModel

/// What to do when the system refuses a spawn for lack of processes or descriptors (EAGAIN,
/// EMFILE, ENFILE): run fewer at once and try the job again, or give up after too many refusals.
/// A value, tested without processes.
package enum SpawnRefusal: Equatable {
    /// Try again, at this width; after `delay` when nothing else runs (no job's end will make room).
    case retry(width: Int, delay: Duration?)
    case giveUp

    /// Refusals of one job after which it fails with the system's error.
    package static let limit = 200

    /// The decision for the `refusals`-th refusal (0-based) while `running` jobs run (this one
    /// included) at `width`.
    static func decide(refusals: Int, running: Int, width: Int) -> SpawnRefusal {
        guard refusals < limit else { return .giveUp }
        let others = max(0, running - 1)
        return .retry(width: min(width, max(1, others / 2)), delay: others == 0 ? .milliseconds(50) : nil)
    }
}
