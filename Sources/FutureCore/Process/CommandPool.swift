import Synchronization

/// Runs commands with at most ``width`` at once: the first ones start at once, the others wait in
/// submission order and start, on the engine's thread, as running ones finish. No thread waits per
/// queued or running command.
///
///     let pool = CommandPool(width: 2)
///     let results = lines.map { pool.submit(.shell($0)).flatMap { $0.result } }
///
/// ``submit(_:)`` never blocks. Its future resolves with the ``CommandRun`` when the command starts
/// (on the submitting thread if a slot is free, else on the engine's thread).
public final class CommandPool: Sendable {
    private struct Queued {
        let id: UInt64
        let command: Command
        let promise: Promise<CommandRun, Never>
    }

    private struct State {
        var width: Int
        var running = 0
        var queue: [Queued] = []
        var queueHead = 0
        var nextID: UInt64 = 0
        var stopped = false

        mutating func popStartable() -> [Queued] {
            var starts: [Queued] = []
            while !stopped, running < width, queueHead < queue.count {
                starts.append(queue[queueHead])
                queueHead += 1
                running += 1
            }
            if queueHead > 64, queueHead * 2 > queue.count {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
            return starts
        }
    }

    private let state: Mutex<State>
    private let engine: ProcessEngine

    /// - Parameter width: how many commands run at once; `Int.max` for no limit.
    public init(width: Int, engine: ProcessEngine = .shared) {
        self.state = Mutex(State(width: max(1, width)))
        self.engine = engine
    }

    /// How many commands may run at once. Raising it starts queued commands now, on this thread.
    public var width: Int {
        get { state.withLock { $0.width } }
        set {
            let starts = state.withLock { state in
                state.width = max(1, newValue)
                return state.popStartable()
            }
            starts.forEach(start)
        }
    }

    /// Commands running now.
    public var running: Int { state.withLock { $0.running } }

    /// Commands submitted and not yet started.
    public var queued: Int { state.withLock { $0.queue.count - $0.queueHead } }

    /// Queues `command`; starts it now if a slot is free. Never blocks. Cancelling the returned
    /// future before the start withdraws the command; after it, stops the process.
    public func submit(_ command: Command) -> Future<CommandRun> {
        let promise = Promise<CommandRun, Never>()
        let (id, starts) = state.withLock { state in
            state.nextID += 1
            state.queue.append(Queued(id: state.nextID, command: command, promise: promise))
            return (state.nextID, state.popStartable())
        }
        promise.onCancel { [self] in withdraw(id) }
        starts.forEach(start)
        return promise.future
    }

    /// Starts nothing more: commands still queued resolve at once as cancelled, never run. Running
    /// ones go on (cancel their futures to stop them).
    public func stopStarting() {
        let withdrawn = state.withLock { state in
            state.stopped = true
            defer { state.queue = []; state.queueHead = 0 }
            return Array(state.queue[state.queueHead...])
        }
        for queued in withdrawn { queued.promise.tryComplete(.success(engine.neverStarted(queued.command))) }
    }

    private func withdraw(_ id: UInt64) {
        let withdrawn: Queued? = state.withLock { state in
            guard let index = state.queue[state.queueHead...].firstIndex(where: { $0.id == id }) else { return nil }
            return state.queue.remove(at: index)
        }
        if let withdrawn { withdrawn.promise.tryComplete(.success(engine.neverStarted(withdrawn.command))) }
    }

    private func start(_ queued: Queued) {
        let run = engine.start(queued.command)
        run.result.onComplete { [self] _ in
            let starts = state.withLock { state in
                state.running -= 1
                return state.popStartable()
            }
            starts.forEach(start)
        }
        if !queued.promise.tryComplete(.success(run)) { run.cancel() }
        if queued.promise.isCancelled { run.cancel() }
    }
}
