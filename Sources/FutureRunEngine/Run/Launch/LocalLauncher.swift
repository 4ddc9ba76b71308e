import FutureCore
import FutureProcess
import FutureRunModel

/// Attempts as processes on this machine. How many at once is the least its width providers
/// allow (``WidthGovernor``): `-j` (or what `-j FILE` says now), make's jobserver (1 plus the
/// tokens held), and with `--memfree`, `--memsuspend` and `--load` the memory and the load
/// (``AdmissionGuard``); the system's refusals to spawn lower it too.
package final class LocalLauncher: Launcher {
    package let governor: WidthGovernor
    private let width: Int
    private let jobserver: Jobserver?
    private let notices: Notices
    private let admission: AdmissionGuard?
    /// `-j FILE`, read again as each job ends (not under make's jobserver, which decides then).
    private let jobsFile: JobsFile?
    private let jobsFileProblem = Locked<JobsFile.Problem?>(nil)
    private let warmShells: WarmShells?

    /// - Parameters:
    ///   - admission: `--memfree`'s, `--memsuspend`'s and `--load`'s rules, if any is given.
    ///   - warmShells: the slots' warm shells, for the jobs that fit one.
    ///   - engine: the engine the attempts run on.
    package init(
        width: Int, jobserver: Jobserver?, admission rules: AdmissionGuard.Rules? = nil, jobsFile: JobsFile? = nil,
        warmShells: WarmShells? = nil, engine: ProcessEngine = .shared, notices: Notices
    ) {
        self.width = width
        self.jobserver = jobserver
        self.jobsFile = jobserver == nil ? jobsFile : nil
        self.notices = notices
        var limits = WidthLimits()
        limits.set(.jobs, width, reason: "-j \(width)")
        if jobserver != nil { limits.set(.jobserver, 1, reason: Self.jobserverReason(tokens: 0)) }
        let pool =
            warmShells.map { CommandPool(width: limits.width, start: $0.start(_:in:), behind: $0.behind) }
            ?? CommandPool(width: limits.width, engine: engine)
        let governor = WidthGovernor(pool: pool, limits: limits)
        self.governor = governor
        self.warmShells = warmShells
        admission = rules.map { rules in AdmissionGuard(rules, governor: governor, notices: notices) }
    }

    package var handsOverInline: Bool { jobserver == nil && admission == nil }

    package func open() {
        admission?.update()
        guard let jobserver else { return }
        jobserver.start(
            wanted: { [governor, width] in governor.pool.queued > 0 && governor.width < width },
            gained: { [governor] tokens in governor.set(.jobserver, 1 + tokens, reason: Self.jobserverReason(tokens: tokens)) })
    }

    package func close() {
        admission?.close()
        jobserver?.finish()
        warmShells?.close()
    }

    package func queued() {
        jobserver?.nudge()
        // A start is counted against the last reading: one reading a job, at its end.
        admission?.update(fresh: false)
    }

    package var unavailable: String? { nil }

    package func place(_ attempt: AttemptSpec, seat: CommandPool.Seat) -> (Command, Placement) {
        admission?.starting(slot: seat.slot)
        var placement = Placement(seat: seat)
        if warmShells?.place(attempt, slot: seat.slot) == true { placement.path = .warm }
        return (attempt.localCommand, placement)
    }

    package func started(_ run: CommandRun, at placement: Placement) { admission?.started(run, slot: placement.seat.slot) }

    package func judge(
        _ result: CommandResult, at placement: Placement, refusals: Int, stopping: Bool,
        verdict: @escaping @Sendable (AttemptVerdict) -> Void
    ) {
        if let jobserver, pool.queued == 0, jobserver.giveBack() {
            let tokens = max(0, jobserver.tokens)
            governor.set(.jobserver, 1 + tokens, reason: Self.jobserverReason(tokens: tokens))
        }
        switch jobsFile?.width() {
        case .success(let width)?:
            governor.set(.jobs, width, reason: "-j \(jobsFile?.path ?? "")")
            jobsFileProblem.withLock { $0 = nil }
        case .failure(let problem)?:
            // Said once per new problem, not at every job's end.
            let new = jobsFileProblem.withLock { last in
                defer { last = problem }
                return last != problem
            }
            if new, let path = jobsFile?.path {
                notices.post("-j \(path): \(problem.reason); the width stays \(governor.limits[.jobs]?.width ?? width)")
            }
        case nil: break
        }
        let evicted = admission?.ended(slot: placement.seat.slot) ?? false
        admission?.update()
        if evicted, !stopping { return verdict(.lost) }
        verdict(spawnRefusal(result, refusals: refusals, stopping: stopping, notices: notices) ?? .stands)
    }

    package func admissionTimes(at placement: Placement) -> AdmissionTimes {
        admission?.takeTimes(slot: placement.seat.slot) ?? .none
    }

    /// Why the jobserver limits the width: `make's jobserver (1 + 2 tokens)`.
    private static func jobserverReason(tokens: Int) -> String {
        "make's jobserver (1 + \(tokens) token\(tokens == 1 ? "" : "s"))"
    }

}
