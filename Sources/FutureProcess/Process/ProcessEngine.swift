import FutureCore
import Glibc
import Synchronization
import _CFutureShims

/// Runs commands as futures: spawns with `vfork` and `exec`, watches every child's exit (pidfd) and
/// pipes from **one** event-loop thread, reaps with `wait4`, enforces timeouts, and resolves each
/// command's future. No thread is blocked per child and no Dispatch hop is taken per child.
///
/// ## Threading model
/// - ``start(_:)`` spawns on the calling thread (any thread) and never blocks longer than the
///   spawn (until the child has called `exec`).
/// - Output is read, children are reaped and futures resolved on the engine's own thread
///   ("futurecore-loop" in `ps -L`). Callbacks registered inline on a command's future run there:
///   keep them short and never block in them (start the next command: yes; write to a terminal: no).
/// - A child's process group is its own. When the child exits, the rest of its group (background
///   grandchildren) gets SIGTERM, and SIGKILL after the grace period; its pipes are drained for at
///   most ``drainPeriod`` more, so a grandchild that escaped the group and holds a pipe cannot keep the
///   command unfinished.
public final class ProcessEngine: Sendable {
    /// The engine of this process; its thread starts on first use.
    public static let shared = ProcessEngine(exitWatcher: nil)

    /// How long after a child's exit its pipes may stay open before the command is finished anyway.
    public static let drainPeriod: Duration = .milliseconds(250)

    private enum Message {
        case cancel(UInt64)
        /// Send a signal to one child's group, if it still runs.
        case signal(UInt64, Int32)
        case deadline
        /// Send a signal to every running child's group, then complete the promise.
        case signalAll(Int32, Promise<Void, Never>)
    }

    private let poller = EventPoller()
    private let exitWatcher: ExitWatcher
    let processes = Locked<[UInt64: ChildProcess]>([:])
    private let inbox = Locked<[Message]>([])
    let deadlines = Locked(DeadlineQueue())
    private let nextID = Atomic<UInt64>(1)
    private let environment = SpawnEnvironment()
    /// One child's pair of pipes, made ready at the end of each turn.
    private let pipes = PipeReserve(size: 2)
    private let programs = ProgramLocator()
    private let nullInput: Int32
    private let signalsToReset = Locked<[Int32]>([])
    private let guardian = Locked<ProcessGuardian?>(nil)
    /// Work left for the end of the loop's current turn (see ``afterThisTurn(_:)``).
    private let endOfTurn = Locked<[@Sendable () -> Void]>([])

    /// An engine of its own: its own loop thread, children, guardian and settings, for a program or
    /// a test that must not share ``shared``'s. It lives as long as the process (its thread waits
    /// for work), so make few. It learns of exits through pidfds where the kernel has them, else
    /// through SIGCHLD (`FUTURECORE_EXIT_WATCHER=childSignal` forces that).
    public convenience init() { self.init(exitWatcher: nil) }

    /// An engine whose exit watcher is `kind` (`nil`: as ``init()`` chooses).
    package init(exitWatcher kind: ExitWatcher.Kind?) {
        nullInput = open("/dev/null", O_RDONLY | O_CLOEXEC)
        exitWatcher = ExitWatcher(kind)
        if exitWatcher.kind == .childSignal { poller.watch(exitWatcher.readEnd, token: EventPoller.childSignalToken) }
        OSThread.detach(name: "futurecore-loop") { [self] in runLoop() }
    }

    /// How this engine learns that its children exit (``ExitWatcher``).
    package var exitWatcherKind: ExitWatcher.Kind { exitWatcher.kind }

    /// Signals to reset to their default disposition in every child: those this process changed
    /// from the default for itself (a program that ignores SIGPIPE lists SIGPIPE here), so that
    /// children see signals as they would under a shell. Set before starting commands.
    package func resetInChildren(_ signals: [Int32]) {
        signalsToReset.withLock { $0 = signals }
    }

    /// Starts a guardian process (`ProcessGuardian`) that stops every child's process group if
    /// this process dies without doing so itself, SIGKILL included. Call once, before starting
    /// commands. Returns whether the guardian runs.
    @discardableResult
    public func startGuardian() -> Bool {
        guard let started = ProcessGuardian() else { return false }
        guardian.withLock { $0 = started }
        return true
    }

    /// Has the guardian (``startGuardian()``) also stop process group `group` if this process dies
    /// without stopping it: for a daemon a command left behind on purpose (a connection kept open
    /// for later commands, say), which the engine does not watch. Returns the entry for
    /// ``stopGuarding(_:)``; `nil` without a guardian or when its table is full. Any thread.
    package func guardGroup(_ group: Int32) -> Int32? {
        guardian.withLock { $0 }?.watch(group)
    }

    /// The guardian forgets an entry of ``guardGroup(_:)`` (the group has ended). Any thread.
    package func stopGuarding(_ entry: Int32) {
        guardian.withLock { $0 }?.forget(entry)
    }

    /// Has the guardian (``startGuardian()``) empty and remove the directory `path` should this
    /// process die without doing so itself (SIGKILL included): for a private directory of sockets
    /// the children use. `nil` forgets it (removed already). Any thread.
    package func removeWhenThisProcessDies(directory path: String?) {
        guardian.withLock { $0 }?.removeAtExit(path)
    }

    /// How many children are running (spawned and not yet finished).
    public var runningCount: Int { processes.withLock { $0.count } }

    /// Spawns `command` now, on this thread, and returns its live output and result future.
    /// A command that cannot be spawned resolves at once with ``TerminationStatus/failedToStart(errno:)``.
    public func start(_ command: Command) -> CommandRun {
        let child = ChildProcess(id: nextID.wrappingAdd(1, ordering: .relaxed).oldValue, command: command)
        let spawnError: Int32? =
            switch programs.locate(String(decoding: command.argumentBytes[0], as: UTF8.self)) {
            case .failure(let error): error.errno
            case .success(let program):
                child.spawn(
                    program: program, stdin: nullInput, environment: environment, pipes: pipes,
                    resetSignals: signalsToReset.withLock { $0 })
            }
        if let spawnError {
            child.stdout.finish()
            child.stderr.finish()
            child.promise.succeed(child.result(failedToStart: spawnError))
            return CommandRun(stdout: child.stdout, stderr: child.stderr, result: child.promise.future, spawned: false)
        }
        let id = child.id
        let run = CommandRun(
            stdout: child.stdout, stderr: child.stderr, result: child.promise.future, spawned: true,
            signaller: { [self] signal in post(.signal(id, signal)) })
        child.exitDescriptor = exitWatcher.exitDescriptor(for: child.pid) ?? -1
        // Published and watched under one lock: a one-shot event of a child the loop cannot find
        // yet would be lost, and the loop finds it only once all of its descriptors are watched
        // (an event of one, handled before the next is watched, could end the child and free that
        // descriptor's number for another pipe). After publishing only the loop touches the child.
        let (exit, stdout, stderr) = (child.exitDescriptor, child.stdoutDescriptor, child.stderrDescriptor)
        let hasExitDescriptor = exit >= 0
        let feeds = child.feed != nil
        if hasExitDescriptor { child.setArmed(.exit, true) }
        child.setArmed(.stdout, true)
        child.setArmed(.stderr, true)
        if feeds { child.setArmed(.input, true) }
        child.guardianEntry = guardian.withLock { $0 }?.watch(child.pid)
        processes.withLock { table in
            table[id] = child
            if hasExitDescriptor { poller.watchOnce(exit, token: child.token(.exit)) }
            poller.watchOnce(stdout, token: child.token(.stdout))
            poller.watchOnce(stderr, token: child.token(.stderr))
            if feeds { poller.watchOnce(child.inputDescriptor, token: child.token(.input), forWriting: true) }
        }
        if exitWatcher.kind == .childSignal {
            exitWatcher.childPublished()
        } else if !hasExitDescriptor {
            schedule(.poll(id), at: .now + .milliseconds(10))
        }
        if let timeout = command.timeout { schedule(.timeout(id), at: child.startInstant + timeout) }
        child.promise.onCancel { [self] in post(.cancel(id)) }
        return run
    }

    /// Sends `signal` to the process group of every running child, on the engine's thread (which
    /// alone touches a child once it runs). The future resolves once all are sent. Job control
    /// uses it: SIGSTOP when the caller is stopped (Ctrl-Z), SIGCONT when it goes on, SIGKILL to end
    /// a grace period at once. Never blocks.
    @discardableResult
    public func signalRunningGroups(_ signal: Int32) -> Future<Void> {
        let promise = Promise<Void, Never>()
        post(.signalAll(signal, promise))
        return promise.future
    }

    /// Runs `body` once the loop's current turn is over: after every event of the turn has been
    /// handled and the commands those events started (from callbacks on finished commands) have
    /// been spawned. Called on the engine's thread, it defers `body` to then; on any other thread it
    /// runs `body` at once.
    ///
    /// Wake-ups of other threads belong here: a woken thread then cannot take the CPU from the
    /// engine's thread before the next child is spawned, and children that end together cost one
    /// wake-up.
    package func afterThisTurn(_ body: @escaping @Sendable () -> Void) {
        guard isLoopThread else { return body() }
        endOfTurn.withLock { $0.append(body) }
    }

    private func post(_ message: Message) {
        inbox.withLock { $0.append(message) }
        poller.wake()
    }

    /// Adds a deadline; wakes the loop if it is now the earliest, so the loop's wait shortens.
    func schedule(_ action: DeadlineQueue.Action, at instant: ContinuousClock.Instant) {
        let isEarliest = deadlines.withLock { queue in
            let earliest = queue.earliest
            queue.insert(action, at: instant)
            return earliest.map { instant < $0 } ?? true
        }
        if isEarliest, !isLoopThread { post(.deadline) }
    }

    /// The loop's thread, once it runs (a `pthread_t`; a task-local would cost more at start-up
    /// than the whole check, for its type's metadata).
    private let loopThread = Atomic<UInt>(0)

    private var isLoopThread: Bool { loopThread.load(ordering: .acquiring) == UInt(pthread_self()) }

    // MARK: The loop (engine thread only)

    private func runLoop() {
        // While the program is still parsing its arguments, not on the way to the first spawn.
        fc_spawn_prepare()
        // A short time slice lets this thread, woken by a child's end, take the CPU from a running
        // child at once instead of waiting out the child's slice (docs/PERFORMANCE.md has the
        // figures). Its children get the default slice back.
        _ = fc_request_short_slice(100_000)
        loopThread.store(UInt(pthread_self()), ordering: .releasing)
        OSThread.markNonBlocking()
        // A child's input pipe whose reader is gone then fails a write with EPIPE, which
        // ``feedInput(_:)`` handles, instead of signalling this process.
        var brokenPipe = SIGPIPE
        _ = fc_block_signals(&brokenPipe, 1)
        let capacity = 256
        let tokens = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        let events = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        var batch: [ChildProcess?] = []
        while true {
            let timeout = deadlines.withLock { $0.earliest }.map { max(.zero, $0 - .now) }
            let count = poller.wait(timeout: timeout, tokens: tokens, events: events, capacity: capacity)
            // Every reported descriptor is disarmed now (one-shot): mark them all before
            // handling any, so that a handler closing one reported later skips its unwatch.
            processes.withLock { table in
                batch.removeAll(keepingCapacity: true)
                for index in 0..<count {
                    let token = tokens[index]
                    let child = token <= EventPoller.childSignalToken ? nil : table[token >> 2]
                    if let child, let stream = ChildProcess.Stream(rawValue: token & 3) { child.setArmed(stream, false) }
                    batch.append(child)
                }
            }
            for index in 0..<count {
                if tokens[index] == EventPoller.wakeToken {
                    poller.drainWakeUps()
                    handleInbox()
                    continue
                }
                if tokens[index] == EventPoller.childSignalToken {
                    exitWatcher.drain()
                    handleExitsOfSomeChildren(buffer)
                    continue
                }
                // A child finished earlier in this batch is still handled safely: its
                // descriptors are closed and it has exited, so nothing more happens.
                guard let child = batch[index] else { continue }
                switch ChildProcess.Stream(rawValue: tokens[index] & 3) {
                case .exit: handleExit(child, buffer)
                case .stdout: readStream(child, .stdout, buffer, events: events[index])
                case .stderr: readStream(child, .stderr, buffer, events: events[index])
                case .input: feedInput(child)
                case nil: break
                }
            }
            fireDueDeadlines(buffer)
            finishTurn()
        }
    }

    /// The turn's deferred work, then the pipes for the next child: none of it delays a spawn.
    private func finishTurn() {
        while true {
            let work = endOfTurn.withLock { work in
                defer { work = [] }
                return work
            }
            if work.isEmpty { break }
            for body in work { body() }
        }
        pipes.refill()
    }

    private func handleInbox() {
        let messages = inbox.withLock { messages in
            defer { messages = [] }
            return messages
        }
        for message in messages {
            switch message {
            case .deadline: break
            case .cancel(let id):
                guard let child = processes.withLock({ $0[id] }), !child.hasExited, !child.cancelled else { continue }
                child.cancelled = true
                stop(child)
            case .signal(let id, let signal):
                guard let child = processes.withLock({ $0[id] }), !child.hasExited else { continue }
                child.signalGroup(signal)
            case .signalAll(let signal, let promise):
                for child in processes.withLock({ Array($0.values) }) where !child.hasExited { child.signalGroup(signal) }
                promise.succeed(())
            }
        }
    }

    /// TERM to the group now, KILL after the grace period.
    func stop(_ child: ChildProcess) {
        child.signalGroup(SIGTERM)
        // A group stopped by job control (Ctrl-Z) acts on TERM only once it runs again.
        child.signalGroup(SIGCONT)
        schedule(.kill(child.id), at: .now + child.command.gracePeriod)
    }

    /// SIGCHLD came (portable watcher): each running child that has exited is handled. Other code's
    /// children are never touched: each is asked by its pid.
    private func handleExitsOfSomeChildren(_ buffer: UnsafeMutableRawBufferPointer) {
        for child in processes.withLock({ Array($0.values) }) where !child.hasExited && child.isZombie {
            handleExit(child, buffer)
        }
    }

    private func handleExit(_ child: ChildProcess, _ buffer: UnsafeMutableRawBufferPointer) {
        guard !child.hasExited else { return }
        // The group leader is a zombie until reaped, so the group id is still ours: stop leftovers.
        child.signalGroup(SIGTERM)
        guard child.reap() else {
            // Reported but not reapable (never expected): watch for the exit again.
            if child.exitDescriptor >= 0, !child.isArmed(.exit) {
                child.setArmed(.exit, true)
                poller.rearm(child.exitDescriptor, token: child.token(.exit))
            }
            return
        }
        release(child, .exit)
        afterExit(child, buffer)
    }

    /// The child has been reaped. Its pipes are usually at their end already: read them now rather
    /// than in later turns of the loop, and wait (at most the drain period) only if they are not.
    func afterExit(_ child: ChildProcess, _ buffer: UnsafeMutableRawBufferPointer) {
        readStream(child, .stdout, buffer)
        readStream(child, .stderr, buffer)
        if child.streamsOpen {
            schedule(.drain(child.id), at: .now + Self.drainPeriod)
        } else {
            finish(child)
        }
    }

    /// Reads what `stream` has, then watches it again; at its end, closes it. At most 16 buffers a
    /// turn, so that one talkative child cannot hold up the others. `events` are those the poller
    /// reported, `nil` when called without an event.
    func readStream(
        _ child: ChildProcess, _ stream: ChildProcess.Stream, _ buffer: UnsafeMutableRawBufferPointer,
        events: UInt32? = nil
    ) {
        let fd = child.descriptor(stream)
        let output = stream == .stdout ? child.stdout : child.stderr
        guard fd >= 0 else { return }
        var appended = false
        defer { if appended { afterThisTurn { output.wakeReader() } } }
        // Most jobs end with nothing (more) to say: then their hang-up alone tells, without a read.
        var ended = events.map(EventPoller.isEndOfPipe) ?? false
        var reads = 0
        while !ended {
            if reads == 16 { return watchAgain(child, stream) }
            reads += 1
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count > 0 {
                output.append(Array(UnsafeRawBufferPointer(rebasing: buffer[0..<count])))
                appended = true
                // No room to hold more: leave the rest in the pipe (the child waits on it) and try
                // again shortly, without watching the pipe meanwhile.
                if output.isWaitingForSpace {
                    schedule(.spaceRetry(child.id, stdout: stream == .stdout), at: .now + Self.spaceRetryPeriod)
                    return
                }
            } else if count < 0, errno == EINTR {
                continue
            } else if count < 0, errno == EAGAIN {
                return watchAgain(child, stream)
            } else {
                ended = true  // end of stream, or a read error, which ends it too
            }
        }
        release(child, stream)
        output.markFinished()
        guard !child.streamsOpen else { return }
        if child.hasExited {
            finish(child)
        } else if child.isZombie {
            // A child's pipes close as it exits, just before its exit is reported: it is usually a
            // zombie by now. Handling its exit here saves a second wake-up.
            handleExit(child, buffer)
        }
    }

    /// Writes what the child's input pipe takes of what is left to feed it; closes the pipe once all
    /// is written (the child reads its end) or its reader is gone. A child that stops reading keeps
    /// only its pipe's worth in flight: the rest waits here until the pipe drains.
    private func feedInput(_ child: ChildProcess) {
        let fd = child.inputDescriptor
        guard fd >= 0, child.feed != nil else { return }
        switch child.feed!.write(to: fd) {
        case .wouldBlock: watchAgain(child, .input)
        case .done, .stopped:
            release(child, .input)
            child.endFeed()
        }
    }

    /// Arms the descriptor for `stream` again if its event has been reported.
    private func watchAgain(_ child: ChildProcess, _ stream: ChildProcess.Stream) {
        guard !child.isArmed(stream) else { return }
        child.setArmed(stream, true)
        poller.rearm(child.descriptor(stream), token: child.token(stream), forWriting: stream == .input)
    }

    /// Closes the child's descriptor for `stream`, taking it out of the epoll set first if it is
    /// still armed. Closing alone is not enough then: epoll keeps reporting a closed descriptor
    /// whose file is still open elsewhere (a child being spawned holds copies of our descriptors
    /// until its `exec`), which spun this loop for that long. A disarmed one reports nothing, and
    /// skipping its `epoll_ctl` saves up to three calls for each job.
    private func release(_ child: ChildProcess, _ stream: ChildProcess.Stream) {
        let fd = child.takeDescriptor(stream)
        guard fd >= 0 else { return }
        if child.isArmed(stream) {
            child.setArmed(stream, false)
            poller.unwatch(fd)
        }
        // At once, not at the end of the turn: jobs that end together would otherwise hold their
        // descriptors while as many new ones are spawned, past what the width was fitted to
        // (`ulimit -n`), and a spawn would fail with EMFILE.
        close(fd)
    }

    /// Resolves the child's future (on this thread) once it has exited and its pipes are done.
    /// The streams' readers are woken for the end after the result has resolved and at the end of
    /// the turn, so a reader waiting for the end of the output and then the result is woken once,
    /// and only after the commands this one's end starts have been spawned.
    func finish(_ child: ChildProcess) {
        guard processes.withLock({ $0.removeValue(forKey: child.id) }) != nil else { return }
        child.stdout.markFinished()
        child.stderr.markFinished()
        release(child, .exit)
        release(child, .stdout)
        release(child, .stderr)
        release(child, .input)
        child.endFeed()
        if let entry = child.guardianEntry { guardian.withLock { $0 }?.forget(entry) }
        child.promise.succeed(child.result())
        afterThisTurn {
            child.stdout.wakeReaderAtEnd()
            child.stderr.wakeReaderAtEnd()
        }
    }
}
