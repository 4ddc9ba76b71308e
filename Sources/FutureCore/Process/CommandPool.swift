/// Runs commands with at most ``width`` at once: the first ones start at once, the others wait in
/// submission order (or in the order of their `order` keys) and start, on the engine's thread, as
/// running ones finish. No thread waits per queued or running command.
///
///     let pool = CommandPool(width: 2)
///     let results = lines.map { pool.submit(.shell($0)).flatMap { $0.result } }
///
/// ``submit(_:)`` never blocks. Its future resolves with the ``CommandRun`` when the command starts
/// (on the submitting thread if a slot is free, else on the engine's thread).
public final class CommandPool: Sendable {
    private struct Queued {
        let id: UInt64
        /// Queued commands start lowest first; by default this is the submission order.
        let order: Int
        let build: @Sendable (_ slot: Int) -> Command
        let promise: Promise<CommandRun, Never>
        let onFinish: (@Sendable (CommandResult) -> Void)?
    }

    private struct State {
        var width: Int
        var running = 0
        var queue = FIFO<Queued>()
        var nextID: UInt64 = 0
        var stopped = false
        /// Submissions still taken after ``stopStarting(admittingFreeSlots:)``.
        var admitting = 0
        /// Slots: the smallest free one goes to the next command.
        var slots = NumberPool()

        mutating func popStartable(evenIfStopped: Bool = false) -> [(Queued, slot: Int)] {
            var starts: [(Queued, slot: Int)] = []
            while !stopped || evenIfStopped, running < width, let next = queue.popFirst() {
                starts.append((next, slots.take()!))  // no limit: never nil
                running += 1
            }
            return starts
        }
    }

    private let state: Locked<State>

    /// - Parameter width: how many commands run at once; `Int.max` for no limit.
    public init(width: Int) {
        self.state = Locked(State(width: max(1, width)))
    }

    /// How many commands may run at once. Raising it starts queued commands now, on this thread.
    public var width: Int {
        get { state.withLock { $0.width } }
        set {
            let starts = state.withLock { state in
                state.width = max(1, newValue)
                return state.popStartable()
            }
            for (queued, slot) in starts { start(queued, slot: slot) }
        }
    }

    /// Commands running now.
    public var running: Int { state.withLock { $0.running } }

    /// Commands submitted and not yet started.
    public var queued: Int { state.withLock { $0.queue.count } }

    /// Queues `command`; starts it now if a slot is free. Never blocks. Cancelling the returned
    /// future before the start withdraws the command; after it, stops the process.
    public func submit(_ command: Command) -> Future<CommandRun> {
        submit({ _ in command })
    }

    /// Queues a command that is made when it starts, from its *slot*: the smallest number from 1
    /// that no running command of this pool holds (GNU parallel's `{%}`). `build` runs on the
    /// thread that starts the command. Never blocks.
    ///
    /// - Parameters:
    ///   - build: makes the command for its slot, on the thread that starts it.
    ///   - order: where the command waits among the queued ones: before every one with a higher
    ///     key (ties in submission order). `nil`: after all of them. A dependency graph submits each
    ///     job with its input position, so a job that became ready late still starts before later
    ///     jobs.
    ///   - onFinish: runs on the engine's thread when the command has finished, *before* its slot
    ///     goes to the next command: the place to decide that nothing more should start. Not called
    ///     for a command that never started.
    public func submit(
        _ build: @escaping @Sendable (_ slot: Int) -> Command,
        order: Int? = nil,
        onFinish: (@Sendable (CommandResult) -> Void)? = nil
    ) -> Future<CommandRun> {
        let promise = Promise<CommandRun, Never>()
        let queued: (id: UInt64, starts: [(Queued, slot: Int)])? = state.withLock { state in
            let admitted = state.stopped && state.admitting > 0
            guard !state.stopped || admitted else { return nil }
            if admitted { state.admitting -= 1 }
            state.nextID += 1
            let queued = Queued(id: state.nextID, order: order ?? Int.max, build: build, promise: promise, onFinish: onFinish)
            if order == nil {
                state.queue.append(queued)
            } else {
                state.queue.insert(queued) { $0.order > queued.order }
            }
            return (state.nextID, state.popStartable(evenIfStopped: admitted))
        }
        guard let (id, starts) = queued else {
            promise.succeed(ProcessEngine.shared.neverStarted(build(0)))
            return promise.future
        }
        promise.onCancel { [self] in withdraw(id) }
        for (queued, slot) in starts { start(queued, slot: slot) }
        return promise.future
    }

    /// Whether ``submit(_:onFinish:)`` still takes commands.
    public var admitsMore: Bool { state.withLock { !$0.stopped || $0.admitting > 0 } }

    /// Starts nothing more: commands still queued resolve at once as cancelled, never run. Running
    /// ones go on (cancel their futures to stop them).
    ///
    /// - Parameter admittingFreeSlots: whether as many more submissions as there are free slots
    ///   now still start, each in one of them (GNU parallel's `--halt soon`: the jobs that would
    ///   already be running had they been submitted sooner still run). A command that is ending,
    ///   called from its `onFinish`, still holds its slot: that one is not refilled.
    public func stopStarting(admittingFreeSlots: Bool = false) {
        let withdrawn = state.withLock { state in
            state.stopped = true
            state.admitting = admittingFreeSlots ? max(0, state.width - state.running) : 0
            return state.queue.removeAll()
        }
        for queued in withdrawn { queued.promise.tryComplete(.success(ProcessEngine.shared.neverStarted(queued.build(0)))) }
    }

    private func withdraw(_ id: UInt64) {
        let withdrawn = state.withLock { $0.queue.remove { $0.id == id } }
        if let withdrawn { withdrawn.promise.tryComplete(.success(ProcessEngine.shared.neverStarted(withdrawn.build(0)))) }
    }

    /// Starts one command. Its start future resolves first, so that callbacks its consumer
    /// registers on the run then (a halt policy, say) run before the freed slot starts the next.
    private func start(_ queued: Queued, slot: Int) {
        let run = ProcessEngine.shared.start(queued.build(slot))
        if !queued.promise.tryComplete(.success(run)) || queued.promise.isCancelled { run.cancel() }
        run.result.onComplete { [self] outcome in
            queued.onFinish?(outcome.get())
            let starts = state.withLock { state in
                state.running -= 1
                state.slots.giveBack(slot)
                return state.popStartable()
            }
            for (queued, slot) in starts { start(queued, slot: slot) }
        }
    }
}
