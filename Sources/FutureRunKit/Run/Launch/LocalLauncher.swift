import FutureCore
import FutureProcess

/// Attempts as processes on this machine. How many at once is the least its width providers
/// allow: `-j`, make's jobserver (1 plus the tokens held, never more than `-j`), and with
/// `--memfree` the memory (``MemoryGuard``); the system's refusals to spawn lower it too.
final class LocalLauncher: Launcher {
    let pool: CommandPool
    private let width: Int
    private let jobserver: Jobserver?
    private let notices: Notices
    private let memory: MemoryGuard?

    /// - Parameter memoryFree: `--memfree`'s SIZE, in bytes.
    init(width: Int, jobserver: Jobserver?, memoryFree: Int? = nil, notices: Notices) {
        self.width = width
        self.jobserver = jobserver
        self.notices = notices
        let allowed = jobserver == nil ? width : 1
        pool = CommandPool(width: allowed)
        memory = memoryFree.map { [pool] reserve in
            MemoryGuard(MemoryAdmission(reserve: reserve), source: .current(), pool: pool, notices: notices, width: allowed)
        }
    }

    var handsOverInline: Bool { jobserver == nil && memory == nil }

    func open() {
        memory?.update()
        guard let jobserver else { return }
        jobserver.start(
            wanted: { [pool, width] in pool.queued > 0 && pool.width < width },
            gained: { [self] tokens in setAllowed(min(width, 1 + tokens)) })
    }

    func close() {
        memory?.close()
        jobserver?.finish()
    }

    func queued() {
        jobserver?.nudge()
        memory?.update()
    }

    var unavailable: String? { nil }

    func place(_ local: Command, line: [UInt8], seat: CommandPool.Seat) -> (Command, Placement) {
        memory?.starting(slot: seat.slot)
        return (local, Placement(seat: seat))
    }

    func started(_ run: CommandRun, at placement: Placement) { memory?.started(run, slot: placement.seat.slot) }

    func judge(
        _ result: CommandResult, at placement: Placement, refusals: Int, stopping: Bool,
        verdict: @escaping @Sendable (AttemptVerdict) -> Void
    ) {
        if let jobserver, pool.queued == 0, jobserver.giveBack() { setAllowed(max(1, 1 + jobserver.tokens)) }
        let evicted = memory?.ended(slot: placement.seat.slot) ?? false
        memory?.update(ending: true)
        if evicted, !stopping { return verdict(.lost) }
        verdict(spawnRefusal(result, refusals: refusals, stopping: stopping, notices: notices) ?? .stands)
    }

    func afterThisTurn(_ body: @escaping @Sendable () -> Void) { ProcessEngine.shared.afterThisTurn(body) }

    var runningProcesses: Int { ProcessEngine.shared.runningCount }

    /// `-j` and the jobserver allow `width` now: the pool's width, within what the memory allows.
    private func setAllowed(_ width: Int) {
        if let memory { memory.allow(width) } else { pool.width = width }
    }
}
