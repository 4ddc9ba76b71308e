import Dispatch

/// A bounded executor: runs at most ``width`` work items at once, in submission order, each on a
/// thread of the pool's own (threads are started on demand and exit after 2 s idle).
///
/// A work item that blocks on a future (`value`, ``Eventual/wait(timeout:)``) lends its
/// slot while it is parked, so the pool starts the next item instead: futures on the pool can wait for
/// each other, however deep the chain, without deadlock. While parked items exist, more than
/// ``width`` threads may exist, but at most ``width`` run unparked.
///
/// `execute` never blocks. Work is never run on the caller's thread.
public final class JobPool: Executor {
    /// Threads for blocking work, with no bound on how many run at once.
    public static let blocking = JobPool(width: .max)

    /// As many threads as processors run items at once, and one more for each of them parked on a
    /// future's `value` or `wait` (the slot is lent while it waits): 1,000 futures take a few
    /// threads, and futures waiting for futures never deadlock it. The default executor of futures
    /// and of their callbacks. Work that blocks on anything else (a sleep, a pipe, a lock) holds
    /// its slot: work of that kind that must overlap asks for ``blocking``.
    public static let shared = JobPool(width: Platform.processorCount, threadName: "futurecore-jobs")

    private struct State {
        var width: Int
        var running = 0
        var queue = FIFO<@Sendable () -> Void>()
        /// Parked idle workers, each waiting on its own semaphore for a hand-off.
        var idle: [Worker] = []
    }

    /// An idle thread waiting for work.
    private final class Worker: Sendable {
        let wakeUp = DispatchSemaphore(value: 0)
        let handOff = Locked<(@Sendable () -> Void)?>(nil)
    }

    private let state: Locked<State>

    private enum Current {
        @TaskLocal static var pool: JobPool?
    }

    /// What its threads are called (at most 15 bytes show).
    private let threadName: String

    /// - Parameter width: how many items run at once, at least 1.
    public convenience init(width: Int) {
        self.init(width: width, threadName: "futurecore-pool")
    }

    init(width: Int, threadName: String) {
        state = Locked(State(width: max(1, width)))
        self.threadName = threadName
    }

    /// How many items run at once. Raising it starts queued items at once; lowering it lets running
    /// items finish. Never blocks for long.
    public var width: Int {
        get { state.withLock { $0.width } }
        set {
            let starts = state.withLock { state in
                state.width = max(1, newValue)
                return takeStartable(&state)
            }
            start(starts)
        }
    }

    /// How many items are running (not parked) now.
    public var running: Int { state.withLock { $0.running } }

    public func execute(_ work: @escaping @Sendable () -> Void) {
        let starts = state.withLock { state in
            state.queue.append(work)
            return takeStartable(&state)
        }
        start(starts)
    }

    /// Pops as many queued items as free slots allow, pairing each with an idle worker if any.
    private func takeStartable(_ state: inout State) -> [(work: @Sendable () -> Void, worker: Worker?)] {
        var starts: [(work: @Sendable () -> Void, worker: Worker?)] = []
        while state.running < state.width, let work = state.queue.popFirst() {
            state.running += 1
            starts.append((work, state.idle.popLast()))
        }
        return starts
    }

    private func start(_ starts: [(work: @Sendable () -> Void, worker: Worker?)]) {
        for (work, worker) in starts {
            if let worker {
                worker.handOff.withLock { $0 = work }
                worker.wakeUp.signal()
            } else {
                OSThread.detach(name: threadName) { [self] in workerLoop(first: work) }
            }
        }
    }

    /// A worker thread: runs `first`, then whatever it can take, then parks idle until handed work.
    private func workerLoop(first: @escaping @Sendable () -> Void) {
        var next: (@Sendable () -> Void)? = first
        let me = Worker()
        while let work = next {
            Current.$pool.withValue(self) { work() }
            next = state.withLock { state in
                state.running -= 1
                guard state.running < state.width, let work = state.queue.popFirst() else {
                    state.idle.append(me)
                    return nil
                }
                state.running += 1
                return work
            }
            if next == nil { next = parkIdle(me) }
        }
    }

    /// Waits up to 2 s for a hand-off; `nil` means the worker retired.
    private func parkIdle(_ me: Worker) -> (@Sendable () -> Void)? {
        while true {
            if me.wakeUp.wait(timeout: .now() + 2) == .success {
                return me.handOff.withLock { work in
                    defer { work = nil }
                    return work
                }
            }
            let retired = state.withLock { state in
                guard let index = state.idle.firstIndex(where: { $0 === me }) else { return false }
                state.idle.remove(at: index)
                return true
            }
            if retired { return nil }
            // Someone took this worker just as the wait timed out: its hand-off is on the way.
        }
    }

    /// Runs `park` (which blocks) with the current pool thread's slot lent to the pool, so that the
    /// pool may start another item meanwhile. Outside a pool thread, just runs `park`.
    static func lendingSlot(_ park: () -> Void) {
        guard let pool = Current.pool else { return park() }
        let starts = pool.state.withLock { state in
            state.running -= 1
            return pool.takeStartable(&state)
        }
        pool.start(starts)
        park()
        pool.state.withLock { $0.running += 1 }
    }
}
