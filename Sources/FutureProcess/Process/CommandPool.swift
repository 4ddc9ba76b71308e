import FutureCore

/// Runs commands with at most ``width`` at once: the first ones start at once, the others wait in
/// submission order (or in the order of their `order` keys) and start, on the engine's thread, as
/// running ones finish. No thread waits per queued or running command.
///
///     let pool = CommandPool(width: 2)
///     let results = lines.map { pool.run(.shell($0)) }   // [Future<CommandResult>]
///
/// A pool may also have several *lanes*, each with a width of its own (the machines a run spreads
/// over, say): a command waits for a free place in any lane, goes to the lane with the most free
/// places, and learns which one from its ``Seat``. A lane of width 0 takes nothing.
///
/// ``submit(_:)`` never blocks. Its future resolves with the ``CommandRun`` when the command starts
/// (on the submitting thread if a slot is free, else on the engine's thread).
public final class CommandPool: Sendable {
    /// Where a command runs: its lane, and its slot, the smallest number from 1 that no other
    /// running command of the pool holds (GNU parallel's `{%}`).
    public struct Seat: Sendable, Equatable {
        public let lane: Int
        public let slot: Int

        public init(lane: Int, slot: Int) {
            self.lane = lane
            self.slot = slot
        }
    }

    private struct Queued {
        let id: UInt64
        /// Queued commands start lowest first; by default this is the submission order.
        let order: Int
        let build: @Sendable (Seat) -> Command
        let promise: Promise<CommandRun, Never>
        let onFinish: (@Sendable (CommandResult) -> Void)?
    }

    /// A runner that takes commands *behind* the one running in a seat, each to start as the one
    /// before it ends, with no round trip between them: a warm shell reads its next jobs from its
    /// pipe (``RelayedRun``). They hold the seat in turn; the width counts the seat once. The
    /// places behind a seat are filled, from the queue's head, as a command starts or ends in it;
    /// a stopped pool fills none, nor one running more than its width (narrowed since).
    package struct Behind: Sendable {
        /// At most this many behind the one running in a seat.
        package let depth: Int
        /// Whether the seat's runner takes one more now. On the thread that finished or started a
        /// command in the seat.
        package let takes: @Sendable (Seat) -> Bool
        /// Starts `command` behind the seat's; `nil`: it cannot wait there, so it waits for the seat.
        package let start: @Sendable (Command, Seat) -> CommandRun?

        package init(
            depth: Int, takes: @escaping @Sendable (Seat) -> Bool, start: @escaping @Sendable (Command, Seat) -> CommandRun?
        ) {
            self.depth = depth
            self.takes = takes
            self.start = start
        }
    }

    private struct State {
        /// How many may run at once over all lanes.
        var width: Int
        var laneWidths: [Int]
        var laneRunning: [Int]
        var running = 0
        var queue = FIFO<Queued>()
        var nextID: UInt64 = 0
        var stopped = false
        /// Submissions still taken after ``stopStarting(admittingFreeSlots:)``.
        var admitting = 0
        /// Slots: the smallest free one goes to the next command.
        var slots = NumberPool()
        /// Commands started behind the running one, by slot (``Behind``).
        var behind: [Int: Int] = [:]

        /// The lane with the most free places, the first of equals; `nil` when all are full.
        func freeLane() -> Int? {
            if laneWidths.count == 1 { return laneRunning[0] < laneWidths[0] ? 0 : nil }
            var best: (lane: Int, free: Int)?
            for lane in laneWidths.indices where laneRunning[lane] < laneWidths[lane] {
                let free = laneWidths[lane] - laneRunning[lane]
                if free > best?.free ?? 0 { best = (lane, free) }
            }
            return best?.lane
        }

        /// Places free now, over all lanes and within the width.
        var freePlaces: Int {
            let total = max(0, width - running)
            var inLanes = 0
            for lane in laneWidths.indices where inLanes < total {
                // Added up to `total` at most: a lane of no limit is Int.max wide.
                inLanes += min(total - inLanes, max(0, laneWidths[lane] - laneRunning[lane]))
            }
            return inLanes
        }

        mutating func popStartable(evenIfStopped: Bool = false) -> [(Queued, Seat)] {
            var starts: [(Queued, Seat)] = []
            while !stopped || evenIfStopped, running < width, !queue.isEmpty, let lane = freeLane() {
                let next = queue.popFirst()!
                starts.append((next, Seat(lane: lane, slot: slots.take()!)))  // no limit: never nil
                running += 1
                laneRunning[lane] += 1
            }
            return starts
        }
    }

    private let state: Locked<State>
    /// Starts a command whose turn has come in its seat: the engine's spawn, or another runner's.
    private let startCommand: @Sendable (Command, Seat) -> CommandRun
    private let behind: Behind?

    /// - Parameters:
    ///   - width: how many commands run at once; `Int.max` for no limit.
    ///   - engine: the engine its commands run on.
    public convenience init(width: Int, engine: ProcessEngine = .shared) {
        self.init(width: width, start: { command, _ in engine.start(command) })
    }

    /// A pool whose commands `start` starts in their seats, on the thread that starts them: a
    /// test's stand-in for processes (a run whose result the test resolves), or a runner of its
    /// own (a long-lived worker per slot that runs the slot's commands, ``RelayedRun``).
    /// With `behind`, the runner may also take queued commands behind a running one (``Behind``).
    package init(width: Int, start: @escaping @Sendable (Command, Seat) -> CommandRun, behind: Behind? = nil) {
        self.state = Locked(State(width: max(1, width), laneWidths: [Int.max], laneRunning: [0]))
        startCommand = start
        self.behind = behind
    }

    /// A pool of several lanes, `laneWidths[i]` commands at once in lane `i` (0: none for now), on
    /// `engine`.
    public init(laneWidths: [Int], engine: ProcessEngine = .shared) {
        precondition(!laneWidths.isEmpty, "a CommandPool needs at least one lane")
        self.state = Locked(
            State(width: Int.max, laneWidths: laneWidths.map { max(0, $0) }, laneRunning: laneWidths.map { _ in 0 }))
        startCommand = { command, _ in engine.start(command) }
        behind = nil
    }

    /// Sets how many commands may run at once in `lane`; raising it starts queued commands now, on
    /// this thread. Lowering it stops nothing: the lane takes no more until it is below the width.
    public func setWidth(_ width: Int, ofLane lane: Int) {
        let starts = state.withLock { state in
            state.laneWidths[lane] = max(0, width)
            return state.popStartable()
        }
        for (queued, seat) in starts { start(queued, seat: seat) }
    }

    /// Commands running now in `lane`.
    public func running(inLane lane: Int) -> Int { state.withLock { $0.laneRunning[lane] } }

    /// How many commands may run at once over all lanes. Raising it starts queued commands now, on
    /// this thread.
    public var width: Int {
        get { state.withLock { $0.width } }
        set { setWidth(newValue, allowingNone: false) }
    }

    /// Sets ``width``, 0 included when `allowingNone` (then nothing starts until it is raised: an
    /// admission that waits for memory, say).
    package func setWidth(_ width: Int, allowingNone: Bool) {
        let starts = state.withLock { state in
            state.width = max(allowingNone ? 0 : 1, width)
            return state.popStartable()
        }
        for (queued, seat) in starts { start(queued, seat: seat) }
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

    /// Runs `command` when a slot is free: the future of its result, for the common case that
    /// needs neither its live output nor its start. Never blocks. A command that never starts
    /// resolves as ``TerminationStatus/cancelled``; cancelling the future withdraws or stops it.
    public func run(_ command: Command) -> Future<CommandResult> {
        let start = submit(command)
        let result = start.flatMap(on: .inline) { $0.result }
        result.cancellation.onCancel { start.cancel() }
        return result
    }

    /// Queues a command that is made when it starts, from its ``Seat``: its lane and its slot.
    /// `build` runs on the thread that starts the command. Never blocks.
    ///
    /// - Parameters:
    ///   - build: makes the command for its seat, on the thread that starts it.
    ///   - order: where the command waits among the queued ones: before every one with a higher
    ///     key (ties in submission order). `nil`: after all of them. A dependency graph submits each
    ///     job with its input position, so a job that became ready late still starts before later
    ///     jobs.
    ///   - onFinish: runs on the engine's thread when the command has finished, *before* its slot
    ///     goes to the next command: the place to decide that nothing more should start. Not called
    ///     for a command that never started.
    public func submit(
        _ build: @escaping @Sendable (Seat) -> Command,
        order: Int? = nil,
        onFinish: (@Sendable (CommandResult) -> Void)? = nil
    ) -> Future<CommandRun> {
        let promise = Promise<CommandRun, Never>()
        let queued: (id: UInt64, starts: [(Queued, Seat)])? = state.withLock { state in
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
            promise.succeed(.neverStarted())
            return promise.future
        }
        promise.onCancel { [self] in withdraw(id) }
        for (queued, seat) in starts { start(queued, seat: seat) }
        return promise.future
    }

    /// Whether ``submit(_:order:onFinish:)`` still takes commands.
    package var admitsMore: Bool { state.withLock { !$0.stopped || $0.admitting > 0 } }

    /// Starts nothing more: commands still queued resolve at once as cancelled, never run. Running
    /// ones go on (cancel their futures to stop them).
    public func stopStarting() { stopStarting(admittingFreeSlots: false) }

    /// ``stopStarting()``, and whether as many more submissions as there are free slots now still
    /// start, each in one of them (GNU parallel's `--halt soon`: the jobs that would already be
    /// running had they been submitted sooner still run). A command that is ending, called from
    /// its `onFinish`, still holds its slot: that one is not refilled.
    package func stopStarting(admittingFreeSlots: Bool) {
        let withdrawn = state.withLock { state in
            state.stopped = true
            state.admitting = admittingFreeSlots ? state.freePlaces : 0
            return state.queue.removeAll()
        }
        for queued in withdrawn { queued.promise.tryComplete(.success(.neverStarted())) }
    }

    /// Withdraws every queued command (they resolve at once as cancelled, never run) and goes on
    /// taking new ones: for when no lane can run them any more.
    public func withdrawQueued() {
        let withdrawn = state.withLock { $0.queue.removeAll() }
        for queued in withdrawn { queued.promise.tryComplete(.success(.neverStarted())) }
    }

    private func withdraw(_ id: UInt64) {
        let withdrawn = state.withLock { $0.queue.remove { $0.id == id } }
        if let withdrawn { withdrawn.promise.tryComplete(.success(.neverStarted())) }
    }

    /// Starts one command. Its start future resolves first, so that callbacks its consumer
    /// registers on the run then (a halt policy, say) run before the freed slot starts the next.
    private func start(_ queued: Queued, seat: Seat) {
        started(queued, seat: seat, run: startCommand(queued.build(seat), seat))
        fillBehind(seat)
    }

    /// `run` started for `queued` in `seat`; as it ends, the seat goes to the one behind it, if
    /// any, else to the next queued command.
    private func started(_ queued: Queued, seat: Seat, run: CommandRun) {
        if !queued.promise.tryComplete(.success(run)) || queued.promise.isCancelled { run.cancel() }
        run.result.onComplete(on: .inline) { [self] outcome in
            queued.onFinish?(outcome.get())
            let (starts, held) = state.withLock { state in
                if let waiting = state.behind[seat.slot], waiting > 0 {
                    state.behind[seat.slot] = waiting - 1
                    return ([(Queued, Seat)](), true)
                }
                state.running -= 1
                state.laneRunning[seat.lane] -= 1
                state.slots.giveBack(seat.slot)
                return (state.popStartable(), false)
            }
            if held { fillBehind(seat) }
            for (queued, seat) in starts { start(queued, seat: seat) }
        }
    }

    /// Starts queued commands behind the one in `seat` while its runner takes them (``Behind``).
    private func fillBehind(_ seat: Seat) {
        guard let behind else { return }
        while behind.takes(seat) {
            let next = state.withLock { state -> Queued? in
                // Not while the pool runs wider than its width now (it was narrowed): the seat
                // must come free.
                guard !state.stopped, state.running <= state.width,
                    state.laneRunning[seat.lane] <= state.laneWidths[seat.lane],
                    state.behind[seat.slot, default: 0] < behind.depth, let next = state.queue.popFirst()
                else { return nil }
                state.behind[seat.slot, default: 0] += 1
                return next
            }
            guard let next else { return }
            guard let run = behind.start(next.build(seat), seat) else {
                // It cannot wait there: it waits for a seat, first in line again, unless the pool
                // stopped meanwhile (which withdrew the queue without it).
                let withdrawn = state.withLock { state in
                    state.behind[seat.slot]! -= 1
                    if !state.stopped { state.queue.prepend(next) }
                    return state.stopped
                }
                if withdrawn { next.promise.tryComplete(.success(.neverStarted())) }
                return
            }
            started(next, seat: seat, run: run)
        }
    }
}
