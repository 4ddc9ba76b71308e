import FutureProcess

/// Attempts as processes on this machine, `width` at once; under `make -jN` with a jobserver, 1
/// plus the tokens held, never more than `width`.
final class LocalLauncher: Launcher {
    let pool: CommandPool
    private let width: Int
    private let jobserver: Jobserver?
    private let notices: Notices

    init(width: Int, jobserver: Jobserver?, notices: Notices) {
        self.width = width
        self.jobserver = jobserver
        self.notices = notices
        pool = CommandPool(width: jobserver == nil ? width : 1)
    }

    var handsOverInline: Bool { jobserver == nil }

    func open() {
        guard let jobserver else { return }
        jobserver.start(
            wanted: { [pool, width] in pool.queued > 0 && pool.width < width },
            gained: { [pool, width] tokens in pool.width = min(width, 1 + tokens) })
    }

    func close() { jobserver?.finish() }

    func queued() { jobserver?.nudge() }

    var unavailable: String? { nil }

    func place(_ local: Command, line: [UInt8], seat: CommandPool.Seat) -> (Command, Placement) {
        (local, Placement(seat: seat))
    }

    func judge(
        _ result: CommandResult, at placement: Placement, refusals: Int, stopping: Bool,
        verdict: @escaping @Sendable (AttemptVerdict) -> Void
    ) {
        if let jobserver, pool.queued == 0, jobserver.giveBack() { pool.width = max(1, 1 + jobserver.tokens) }
        verdict(spawnRefusal(result, refusals: refusals, stopping: stopping, notices: notices) ?? .stands)
    }

    func afterThisTurn(_ body: @escaping @Sendable () -> Void) { ProcessEngine.shared.afterThisTurn(body) }

    var runningProcesses: Int { ProcessEngine.shared.runningCount }
}
