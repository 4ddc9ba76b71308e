import Dispatch
import FutureCore
import FutureProcess

/// `--memfree` and `--load` at work, a width provider of the ``LocalLauncher``: it reads the
/// memory and the load at each start and end (and four times a second while jobs run or wait, for
/// what others take or give back), lets the pool start as many jobs as ``MemoryAdmission`` and
/// ``LoadAdmission`` allow, and stops the youngest job when memory runs out; the launcher then runs
/// that one again, as the same attempt.
final class AdmissionGuard: Sendable {
    private struct Started {
        let slot: Int
        /// Known once the process is spawned, for stopping it.
        var run: CommandRun?
        let since: ContinuousClock.Instant
    }

    private struct State {
        var running: [Started] = []
        /// Slots whose job the guard stopped.
        var evicted: Set<Int> = []
        var stoppedAny = false
        /// The last memory reading: a start is counted against it (its claim) without reading again.
        var lastReadings: MemoryReadings?
        var ticking = false
        var closed = false
    }

    /// `--memfree`'s rule and where memory is read.
    private let memory: (admission: MemoryAdmission, source: MemoryReadings.Source)?
    private let load: (admission: LoadAdmission, stat: ProcFile)?
    private let pool: CommandPool
    private let notices: Notices
    /// The width the other providers allow (`-j`, make's jobserver).
    private let allowed: Locked<Int>
    private let state = Locked(State())

    init(
        memory: (admission: MemoryAdmission, source: MemoryReadings.Source)?, load: LoadAdmission?, pool: CommandPool,
        notices: Notices, width: Int
    ) {
        self.memory = memory
        self.load = load.flatMap { admission in ProcFile("/proc/stat").map { (admission, $0) } }
        self.pool = pool
        self.notices = notices
        allowed = Locked(width)
    }

    /// The other providers now allow `width`.
    func allow(_ width: Int) {
        allowed.withLock { $0 = width }
        update()
    }

    /// Sets the pool's width to what memory and load allow within the other providers' width.
    /// `ending`: called as a job ends, before its slot is free. `fresh`: reads the memory again
    /// (else a start is counted against the last reading). Any thread.
    func update(ending: Bool = false, fresh: Bool = true) {
        let width = allowed.withLock { $0 }
        let now = ContinuousClock.now
        let (claiming, youngest, stoppedBefore, evicted) = state.withLock { state in
            let live = state.running.filter { !state.evicted.contains($0.slot) }
            return (
                live.filter { now - $0.since < MemoryAdmission.claimTime }.count, live.max { $0.since < $1.since },
                state.stoppedAny, state.evicted.count
            )
        }
        let running = max(0, pool.running - (ending ? 1 : 0) - evicted)
        var more = Int.max
        if let load, let busy = load.stat.read().flatMap(LoadAdmission.busy(stat:)) { more = load.admission.more(busy: busy) }
        let last = state.withLock { $0.lastReadings }
        if let (admission, source) = memory, let readings = fresh || last == nil ? source.read() : last {
            state.withLock { $0.lastReadings = readings }
            switch admission.decide(
                available: readings.available, running: running, claiming: claiming, stoppedBefore: stoppedBefore)
            {
            case .start(let fit): more = min(more, fit)
            case .wait: more = 0
            case .evictYoungest:
                more = -1
                if let youngest, let run = youngest.run {
                    state.withLock { state in
                        state.evicted.insert(youngest.slot)
                        state.stoppedAny = true
                    }
                    notices.post(
                        "memory is low (\(ByteCountFormat.format(readings.available)) available, --memfree "
                            + "\(ByteCountFormat.format(admission.reserve))): stopping the youngest job, which runs again later")
                    run.cancel()
                }
            }
        }
        pool.setWidth(min(width, running + more), allowingNone: true)
        scheduleTick()
    }

    /// A job is starting in `slot`: from now on it claims its memory (on the thread that starts it,
    /// before the next ``update(ending:)`` can count it).
    func starting(slot: Int) {
        state.withLock { $0.running.append(Started(slot: slot, since: .now)) }
    }

    /// The job starting in `slot` has been spawned.
    func started(_ run: CommandRun, slot: Int) {
        state.withLock { state in
            if let index = state.running.lastIndex(where: { $0.slot == slot }) { state.running[index].run = run }
        }
    }

    /// The job in `slot` ended: whether the guard had stopped it (then it runs again).
    func ended(slot: Int) -> Bool {
        state.withLock { state in
            state.running.removeAll { $0.slot == slot }
            return state.evicted.remove(slot) != nil
        }
    }

    /// No more checks.
    func close() { state.withLock { $0.closed = true } }

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
