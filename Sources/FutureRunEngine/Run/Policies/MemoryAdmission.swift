import FutureRunModel

/// `--memfree SIZE`, as GNU parallel has it: a job starts only while SIZE is available; when less
/// than half of SIZE is, the youngest running job is stopped and queued again (neither a failure
/// nor a retry). A job just started has not taken its memory yet, so for its first
/// ``claimTime`` it counts as holding SIZE: a burst of starts cannot overshoot.
///
/// A job stopped so shows that the jobs need more than half of SIZE beside them (GNU parallel
/// would stop and start it again and again): after the first stop, a job starts only while SIZE
/// and half of SIZE more are available, so that what it takes leaves the half that keeps it.
package struct MemoryAdmission: Equatable {
    /// SIZE, in bytes.
    package let reserve: Int
    static let claimTime: Duration = .seconds(1)

    package enum Decision: Equatable {
        /// This many more may start now (at least one).
        case start(Int)
        case wait
        /// Too little is left: stop the youngest running job and queue it again.
        case evictYoungest
    }

    /// - Parameters:
    ///   - available: the memory a job may still take (``MemoryReadings/available``).
    ///   - running: jobs running now; `claiming`: those of them started less than ``claimTime`` ago.
    ///   - stoppedBefore: a job was stopped for memory before, in this run.
    func decide(available: Int, running: Int, claiming: Int, stoppedBefore: Bool = false) -> Decision {
        // One job alone is never stopped: it would only start again into the same memory.
        if available < reserve / 2, running > 1 { return .evictYoungest }
        let free = available - claiming * reserve - (stoppedBefore ? reserve / 2 : 0)
        return free >= reserve ? .start(free / reserve) : .wait
    }

    package init(reserve: Int) {
        self.reserve = reserve
    }
}
