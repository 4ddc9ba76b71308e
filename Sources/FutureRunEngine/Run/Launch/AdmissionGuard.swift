import Dispatch
import FutureCore
import FutureProcess
import FutureRunModel
import Glibc

/// `--memfree`, `--memsuspend` and `--load` at work, a width provider of the ``LocalLauncher``:
/// it reads the memory and the load at each start and end (and four times a second while jobs run
/// or wait, for what others take or give back) and lets the pool start as many jobs as
/// ``MemoryAdmission``, ``MemorySuspension`` and ``LoadAdmission`` allow. It stops the youngest job
/// when memory runs out under `--memfree` (the launcher runs it again, as the same attempt), and
/// suspends and resumes jobs under `--memsuspend`.
package final class AdmissionGuard: Sendable {
    /// The rules given.
    package struct Rules: Sendable {
        package var memoryFree: MemoryAdmission?
        var suspension: MemorySuspension?
        package var load: LoadAdmission?

        package init(memoryFree: MemoryAdmission? = nil, suspension: MemorySuspension? = nil, load: LoadAdmission? = nil) {
            self.memoryFree = memoryFree
            self.suspension = suspension
            self.load = load
        }
    }

    private struct Started {
        let slot: Int
        /// Known once the process is spawned, for stopping, suspending or resuming it.
        var run: CommandRun?
        let since: ContinuousClock.Instant
    }

    private struct State {
        var running: [Started] = []
        /// Slots whose job the guard stopped.
        var evicted: Set<Int> = []
        var stoppedAny = false
        /// Slots whose job is suspended, and since when.
        var suspended: [Int: ContinuousClock.Instant] = [:]
        /// Each running job's admission times so far, by slot; an ended job's until asked for.
        var times: [Int: AdmissionTimes] = [:]
        /// Since when admission holds back a job that `-j` would start, and for what.
        var heldSince: ContinuousClock.Instant?
        var heldFor = ""
        /// Time held since the last start, before `heldSince`: the next job to start waited it.
        var heldBefore: Duration = .zero
        /// The run has been told once that admission holds jobs back.
        var saidWaiting = false
        /// The last memory reading: a start is counted against it (its claim) without reading again.
        var lastReadings: MemoryReadings?
        var ticking = false
        var closed = false
    }

    private let rules: Rules
    private let memory: MemoryReadings.Source?
    /// How long admission may hold jobs back before the run says so, once.
    package static let patience: Duration = .seconds(5)
    private let governor: WidthGovernor
    private var pool: CommandPool { governor.pool }
    private let notices: Notices
    private let state = Locked(State())

    /// Sets `governor`'s memory and load limits.
    package init(_ rules: Rules, governor: WidthGovernor, notices: Notices) {
        self.rules = rules
        memory = rules.memoryFree != nil || rules.suspension != nil ? .current() : nil
        self.governor = governor
        self.notices = notices
    }

    /// Sets the memory's and the load's limits (the running jobs, plus as many as each admits
    /// now), and stops, suspends or resumes jobs as the memory says. `fresh`: reads the memory
    /// again (else a start is counted against the last reading). Any thread.
    ///
    /// The jobs counted as running are the guard's own: started, not yet ended, not stopped by it.
    /// The pool's count would still hold a job that is ending (its slot is freed after this) and
    /// let one more start in it than the memory allows.
    package func update(fresh: Bool = true) {
        let width = governor.limits.width(excluding: [.memory, .load])
        let now = ContinuousClock.now
        let (active, suspended, stoppedBefore, last) = state.withLock { state in
            (
                state.running.filter { !state.evicted.contains($0.slot) && state.suspended[$0.slot] == nil },
                state.running.filter { state.suspended[$0.slot] != nil }, state.stoppedAny, state.lastReadings
            )
        }
        let claiming = active.filter { now - $0.since < MemoryAdmission.claimTime }.count
        let running = active.count + suspended.count
        var loadLimit: WidthLimits.Limit?
        var memoryLimit: WidthLimits.Limit?
        if let load = rules.load, let busy = RunnableThreads.count() {
            loadLimit = .init(width: load.more(busy: busy), reason: "load \(busy) ≥ \(load.limit) (--load)")
        }
        if let memory, let readings = fresh || last == nil ? memory.read() : last {
            state.withLock { $0.lastReadings = readings }
            var memory = Int.max
            var reserve = ""
            if let admission = rules.memoryFree {
                memory = admit(admission, readings, running: running, claiming: claiming, active: active, stoppedBefore)
                reserve = "--memfree \(ByteCountFormat.format(admission.reserve))"
            }
            if let suspension = rules.suspension {
                suspend(suspension, readings, active: active, suspended: suspended, now: now)
                let allowed = suspension.more(available: readings.available, claiming: claiming, suspended: suspended.count)
                if allowed < memory { reserve = "--memsuspend \(ByteCountFormat.format(suspension.reserve))" }
                memory = min(memory, allowed)
            }
            if memory != .max {
                memoryLimit = .init(width: memory, reason: "\(ByteCountFormat.format(readings.available)) available, \(reserve)")
            }
        }
        let more = min(memoryLimit?.width ?? .max, loadLimit?.width ?? .max)
        // The memory names the hold when both allow as few.
        let (limit, detail) =
            if let memoryLimit, memoryLimit.width == more { (WidthProvider.memory.name, memoryLimit.reason) } else {
                (WidthProvider.load.name, loadLimit?.reason ?? "")
            }
        let held = more != .max && running + more < min(width, running + pool.queued)
        let waitedLong = state.withLock { state in
            if held, state.heldSince == nil { (state.heldSince, state.heldFor) = (now, limit) }
            if !held, let since = state.heldSince {
                state.heldBefore += now - since
                state.heldSince = nil
            }
            guard held, !state.saidWaiting, let since = state.heldSince, now - since + state.heldBefore > Self.patience else {
                return false
            }
            state.saidWaiting = true
            return true
        }
        if waitedLong { notices.post("waiting: \(detail): no new job starts until that changes") }
        // As limits of the width: the jobs running, plus as many more.
        governor.update { limits in
            for (provider, limit) in [(WidthProvider.memory, memoryLimit), (.load, loadLimit)] {
                limits.set(provider, limit.map { running + min($0.width, Int.max - running) }, reason: limit?.reason ?? "")
            }
        }
        scheduleTick()
    }

    /// `--memfree`: how many more may start; stops the youngest job when memory runs out.
    private func admit(
        _ admission: MemoryAdmission, _ readings: MemoryReadings, running: Int, claiming: Int, active: [Started],
        _ stoppedBefore: Bool
    ) -> Int {
        switch admission.decide(
            available: readings.available, running: running, claiming: claiming, stoppedBefore: stoppedBefore)
        {
        case .start(let fit): return fit
        case .wait: return 0
        case .evictYoungest:
            if let youngest = active.max(by: { $0.since < $1.since }), let run = youngest.run {
                state.withLock { state in
                    state.evicted.insert(youngest.slot)
                    state.stoppedAny = true
                }
                notices.post(
                    "memory is low (\(ByteCountFormat.format(readings.available)) available, --memfree "
                        + "\(ByteCountFormat.format(admission.reserve))): stopping the youngest job, which runs again later")
                run.cancel()
            }
            return -1
        }
    }

    /// `--memsuspend`: suspends the youngest jobs, or resumes the oldest suspended one.
    private func suspend(
        _ suspension: MemorySuspension, _ readings: MemoryReadings, active: [Started], suspended: [Started],
        now: ContinuousClock.Instant
    ) {
        let said =
            "(\(ByteCountFormat.format(readings.available)) available, --memsuspend \(ByteCountFormat.format(suspension.reserve)))"
        switch suspension.decide(available: readings.available, active: active.count, suspended: suspended.count) {
        case .hold: break
        case .suspend(let count):
            let youngest = active.filter { $0.run != nil }.sorted { $0.since > $1.since }.prefix(count)
            guard !youngest.isEmpty else { return }
            state.withLock { state in
                for job in youngest { state.suspended[job.slot] = now }
            }
            for job in youngest { job.run?.signal(SIGSTOP) }
            notices.post("memory is low \(said): suspending \(youngest.count == 1 ? "a job" : "\(youngest.count) jobs")")
        case .resumeOldest:
            guard let oldest = suspended.min(by: { $0.since < $1.since }) else { return }
            state.withLock { state in
                if let since = state.suspended.removeValue(forKey: oldest.slot) {
                    state.times[oldest.slot, default: .none].suspended += now - since
                }
            }
            oldest.run?.signal(SIGCONT)
            notices.post("memory is back \(said): resuming a job")
        }
    }

    /// A job is starting in `slot`: from now on it claims its memory (on the thread that starts it,
    /// before the next ``update(fresh:)`` can count it). It waited what admission held starts back
    /// since the last start.
    package func starting(slot: Int) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.running.append(Started(slot: slot, since: now))
            let waited = state.heldBefore + (state.heldSince.map { now - $0 } ?? .zero)
            state.times[slot] = AdmissionTimes(waited: waited, waitedFor: waited > .zero ? state.heldFor : "")
            state.heldBefore = .zero
            if state.heldSince != nil { state.heldSince = now }
        }
    }

    /// The job starting in `slot` has been spawned.
    package func started(_ run: CommandRun, slot: Int) {
        state.withLock { state in
            if let index = state.running.lastIndex(where: { $0.slot == slot }) { state.running[index].run = run }
        }
    }

    /// The job in `slot` ended: whether the guard had stopped it (then it runs again).
    package func ended(slot: Int) -> Bool {
        state.withLock { state in
            state.running.removeAll { $0.slot == slot }
            if let since = state.suspended.removeValue(forKey: slot) {
                state.times[slot, default: .none].suspended += .now - since
            }
            return state.evicted.remove(slot) != nil
        }
    }

    /// What admission cost the job that ended in `slot`; asked once, before the slot is given again.
    func takeTimes(slot: Int) -> AdmissionTimes {
        state.withLock { $0.times.removeValue(forKey: slot) } ?? .none
    }

    /// No more checks.
    package func close() { state.withLock { $0.closed = true } }

    /// While jobs run or wait, the next check in a quarter second.
    private func scheduleTick() {
        let schedule = state.withLock { state in
            guard !state.ticking, !state.closed, pool.running > 0 || pool.queued > 0 else { return false }
            state.ticking = true
            return true
        }
        guard schedule else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.25) { [self] in
            state.withLock { $0.ticking = false }
            update()
        }
    }
}
