import Dispatch
import FutureCore
import FutureProcess
import Glibc

/// Attempts as steps of the Slurm allocation futurerun runs in (`--slurm`): each slot belongs to a
/// node of the allocation, and an attempt runs as `srun` on its slot's node (``SlurmCluster/step``).
/// The pool's width is `-j` within what `--slurm-rate` allows now (``StepRate``), widened again on
/// a timer as the rate refills. With `--slurm-slots`, each slot's attempts run one after another
/// in one long-lived step of the slot's (``SlurmSlots``): at most `-j` steps, so no rate applies.
final class SlurmLauncher: Launcher {
    struct Settings: Sendable {
        var allocation: SlurmAllocation
        var width: Int
        var rate: Int
        /// `--slurm-slots`.
        var slots = false
    }

    /// `--slurm-rate`'s default: about what four `srun`s at once create on an idle controller, so
    /// that jobs of a tenth of a second keep four slots busy; far below the thousands of RPCs a
    /// second a `slurmctld` serves, so a run leaves it to the cluster's other users.
    static let defaultRate = 100

    let pool: CommandPool
    private let settings: Settings
    private let notices: Notices
    /// The steps' name: futurerun's and this run's, for finding what a stop left behind.
    private let stepName = "futurerun.\(getpid())"
    private let state: Locked<(rate: StepRate, ticking: Bool, stopped: Bool)>
    private let slots: SlurmSlots?

    init(_ settings: Settings, notices: Notices) {
        self.settings = settings
        self.notices = notices
        let slots = settings.slots ? SlurmSlots(allocation: settings.allocation, stepName: stepName) : nil
        pool =
            slots.map { slots in CommandPool(width: settings.width, start: slots.start(_:in:)) }
            ?? CommandPool(width: settings.width)
        self.slots = slots
        state = Locked((StepRate(perSecond: settings.rate, now: .now), false, false))
    }

    var handsOverInline: Bool { false }

    func open() { update() }

    /// A stop may leave a step whose `srun` was killed before it cancelled it: cancel those.
    func close() {
        slots?.close()
        if state.withLock({ $0.stopped }) { SlurmCluster.cancelSteps(jobID: settings.allocation.jobID, name: stepName) }
    }

    func queued() { update() }

    var unavailable: String? { nil }

    func place(_ local: Command, line: [UInt8], seat: CommandPool.Seat) -> (Command, Placement) {
        let node = settings.allocation.node(ofSlot: seat.slot)
        // The slot's worker runs it: the command stays the job's own (``SlurmSlots/start(_:in:)``).
        if slots != nil { return (local, Placement(seat: seat, machine: node)) }
        state.withLock { $0.rate.take(at: .now) }
        let step = SlurmCluster.step(local, node: node, cpus: settings.allocation.cpusPerStep, name: stepName)
        return (step, Placement(seat: seat, machine: node))
    }

    func judge(
        _ result: CommandResult, at placement: Placement, refusals: Int, stopping: Bool,
        verdict: @escaping @Sendable (AttemptVerdict) -> Void
    ) {
        if stopping || result.status == .timedOut || result.status == .cancelled {
            state.withLock { $0.stopped = true }
        }
        update()
        verdict(spawnRefusal(result, refusals: refusals, stopping: stopping, notices: notices) ?? .stands)
    }

    func afterThisTurn(_ body: @escaping @Sendable () -> Void) { ProcessEngine.shared.afterThisTurn(body) }

    var runningProcesses: Int { ProcessEngine.shared.runningCount }

    /// The pool's width: `-j`, within the steps the rate allows now; while jobs wait for the rate,
    /// looked at again when the next step may start. Any thread.
    private func update() {
        // With --slurm-slots there are at most -j steps, one a slot, all long-lived.
        guard slots == nil else { return }
        let now = ContinuousClock.now
        let (more, wait) = state.withLock { state in (state.rate.available(at: now), state.rate.wait(at: now)) }
        let running = pool.running
        pool.setWidth(min(settings.width, running + more), allowingNone: true)
        guard more == 0, pool.queued > 0 else { return }
        let schedule = state.withLock { state in
            defer { state.ticking = true }
            return !state.ticking
        }
        guard schedule else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0.001, wait.seconds)) { [self] in
            state.withLock { $0.ticking = false }
            update()
        }
    }
}
