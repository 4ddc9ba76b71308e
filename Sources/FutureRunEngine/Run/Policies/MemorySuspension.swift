import FutureRunModel

/// `--memsuspend SIZE`, as GNU parallel has it: below 2 × SIZE available, running jobs are suspended
/// (SIGSTOP to their groups), the youngest first, one a reading; below SIZE, all but the oldest at
/// once. They resume, the oldest first, one a reading, once 2 × SIZE is available again (or when
/// none runs: one always does, or no memory would ever come back); while any
/// is suspended, or less than 2 × SIZE is free beside the jobs still claiming theirs, nothing new
/// starts. A suspended job keeps its memory: it does not grow while the others finish.
package struct MemorySuspension: Equatable {
    /// SIZE, in bytes.
    package let reserve: Int

    package enum Decision: Equatable {
        /// Suspend this many of the youngest running jobs.
        case suspend(Int)
        /// Resume the oldest suspended job.
        case resumeOldest
        case hold
    }

    /// - Parameters:
    ///   - active: jobs running and not suspended; `suspended`: those suspended.
    func decide(available: Int, active: Int, suspended: Int) -> Decision {
        if available < reserve, active > 1 { return .suspend(active - 1) }
        if available < 2 * reserve, active > 1 { return .suspend(1) }
        // One job always runs: with all suspended, none would ever give memory back.
        if suspended > 0, available >= 2 * reserve || active == 0 { return .resumeOldest }
        return .hold
    }

    /// How many more may start: none while any is suspended; else as many as leave 2 × SIZE.
    package func more(available: Int, claiming: Int, suspended: Int) -> Int {
        guard suspended == 0 else { return 0 }
        let free = available - claiming * reserve
        return free >= 2 * reserve ? (free - reserve) / reserve : 0
    }

    package init(reserve: Int) {
        self.reserve = reserve
    }
}
