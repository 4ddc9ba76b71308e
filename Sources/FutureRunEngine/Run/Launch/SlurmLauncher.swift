import Dispatch
import FutureCore
import FutureProcess
import FutureRunModel
import Glibc

/// Attempts as steps of the Slurm allocation futurerun runs in (`--slurm`): each slot belongs to a
/// node of the allocation, and an attempt runs as `srun` on its slot's node (``SlurmCluster/step``).
/// The pool's width is `-j` within what `--slurm-rate` allows now (``StepRate``), widened again on
/// a timer as the rate refills. With `--slurm-slots`, each slot's attempts run one after another
/// in one long-lived step of the slot's (``SlurmSlots``): at most `-j` steps, so no rate applies.
package final class SlurmLauncher: Launcher {
    package struct Settings: Sendable {
        package var allocation: SlurmAllocation
        package var width: Int
        package var rate: Int
        /// `--slurm-slots`.
        package var slots = false

        package init(allocation: SlurmAllocation, width: Int, rate: Int, slots: Bool = false) {
            self.allocation = allocation
            self.width = width
            self.rate = rate
            self.slots = slots
        }
    }

    package let governor: WidthGovernor
    private let settings: Settings
    private let notices: Notices
    /// The steps' name: futurerun's and this run's, for finding what a stop left behind.
    private let stepName = "futurerun.\(getpid())"
    /// `checking`: failed attempts whose allocation `squeue` is being asked about.
    private let state: Locked<(rate: StepRate, ticking: Bool, ended: String?, checking: Int)>
    private let slots: SlurmSlots?

    /// - Parameter engine: the engine the steps (or the slots' workers) run on.
    package init(_ settings: Settings, engine: ProcessEngine = .shared, notices: Notices) {
        self.settings = settings
        self.notices = notices
        let slots = settings.slots ? SlurmSlots(allocation: settings.allocation, stepName: stepName, engine: engine) : nil
        var limits = WidthLimits()
        limits.set(.jobs, settings.width, reason: "-j \(settings.width)")
        let pool =
            slots.map { slots in CommandPool(width: settings.width, start: slots.start(_:in:)) }
            ?? CommandPool(width: settings.width, engine: engine)
        governor = WidthGovernor(pool: pool, limits: limits)
        self.slots = slots
        state = Locked((StepRate(perSecond: settings.rate, now: .now), false, nil, 0))
    }

    package var handsOverInline: Bool { false }

    package func open() { update() }

    /// A step whose `srun` was killed before it cancelled it (by a stop, or by the job itself) may
    /// still run: cancel those, at the cost of one `squeue` at the end of the run.
    package func close() {
        slots?.close()
        SlurmCluster.cancelSteps(jobID: settings.allocation.jobID, name: stepName)
    }

    package func queued() { update() }

    package var unavailable: String? { nil }

    package func place(_ attempt: AttemptSpec, seat: CommandPool.Seat) -> (Command, Placement) {
        let node = settings.allocation.node(ofSlot: seat.slot)
        // The slot's worker runs it: the command stays the job's own (``SlurmSlots/start(_:in:)``).
        if slots != nil { return (attempt.localCommand, Placement(seat: seat, machine: node)) }
        state.withLock { $0.rate.take(at: .now) }
        let step = SlurmCluster.step(attempt.localCommand, node: node, cpus: settings.allocation.cpusPerStep, name: stepName)
        return (step, Placement(seat: seat, machine: node))
    }

    /// A failed attempt (or one `srun` says Slurm cut short, which may exit 0 on a node failure):
    /// if the allocation has ended (cancelled, out of time, its node down), the
    /// attempt did not finish and nothing new starts (asked of `squeue` on a thread of its own);
    /// else, a signal `srun` reports is the attempt's end.
    package func judge(
        _ result: CommandResult, at placement: Placement, refusals: Int, stopping: Bool,
        verdict: @escaping @Sendable (AttemptVerdict) -> Void
    ) {
        update()
        if let refusal = spawnRefusal(result, refusals: refusals, stopping: stopping, notices: notices) {
            return verdict(refusal)
        }
        let tail = result.stderr.read(from: max(0, result.stderr.count - SrunReport.tailLength))
        let cut = SrunReport.stepWasCut(inTail: tail)
        switch result.status {
        case .exited(0) where !cut, .timedOut, .cancelled, .failedToStart: return verdict(.stands)
        default: break
        }
        // Nothing new starts until squeue has said whether the allocation still runs.
        state.withLock { $0.checking += 1 }
        update()
        DispatchQueue.global().async { [self] in
            defer {
                state.withLock { $0.checking -= 1 }
                update()
            }
            if let ending = allocationEnding(refused: SrunReport.allocationRefusesSteps(inTail: tail)) {
                notices.postOnce(
                    "the Slurm allocation \(settings.allocation.jobID) has ended (\(ending)): nothing new starts, and "
                        + "the jobs it cut are not logged as finished; --resume in a new allocation runs them")
                return verdict(.placeEnded)
            }
            if !stopping, slots == nil, let signal = SrunReport.signal(inTail: tail) { return verdict(.signaled(signal)) }
            // Cut short by Slurm while the allocation goes on: not finished, as if killed.
            verdict(cut ? .signaled(SIGKILL) : .stands)
        }
    }

    /// Why the allocation is over, once it is (remembered: it does not come back); `nil` while
    /// it runs, or while `squeue` cannot say. `refused`: `srun` was refused a step because the
    /// allocation is ending, which `squeue` may not show yet (a job at its time limit is listed
    /// as running while its steps are being killed).
    private func allocationEnding(refused: Bool) -> String? {
        if let known = state.withLock({ $0.ended }) { return known }
        let listed = SlurmCluster.ending(ofJob: settings.allocation.jobID)
        guard let ending = listed ?? (refused ? "it refuses new steps" : nil) else { return nil }
        state.withLock { $0.ended = ending }
        return ending
    }

    /// The allocation's and the rate's limits: none while the allocation is checked or has ended
    /// (running jobs go on), else the steps running plus those the rate allows now; while jobs
    /// wait for the rate, looked at again when the next step may start. Any thread.
    private func update() {
        let (checking, ended) = state.withLock { ($0.checking > 0, $0.ended) }
        let held = ended.map { "the allocation has ended (\($0))" } ?? (checking ? "checking the allocation" : nil)
        // With --slurm-slots there are at most -j steps, one a slot, all long-lived: no rate.
        let now = ContinuousClock.now
        let (more, wait) =
            slots == nil
            ? state.withLock { state in (state.rate.available(at: now), state.rate.wait(at: now)) } : (Int.max, .zero)
        let running = pool.running
        governor.update { limits in
            limits.set(.slurmAllocation, held == nil ? nil : 0, reason: held ?? "")
            limits.set(.slurmRate, more == .max ? nil : running + more, reason: "--slurm-rate \(settings.rate)")
        }
        guard held == nil, more == 0, pool.queued > 0 else { return }
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
