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

    enum Message {
        case cancel(UInt64)
        /// Send a signal to one child's group, if it still runs.
        case signal(UInt64, Int32)
        case deadline
        /// Send a signal to every running child's group, then complete the promise.
        case signalAll(Int32, Promise<Void, Never>)
        /// Read what one child's stderr pipe holds, then wake its reader.
        case readStderr(UInt64)
    }

    let poller = EventPoller()
    let exitWatcher: ExitWatcher
    let processes = Locked<[UInt64: ChildProcess]>([:])
    let inbox = Locked<[Message]>([])
    let deadlines = Locked(DeadlineQueue())
    let nextID = Atomic<UInt64>(1)
    let environment = SpawnEnvironment()
    /// One child's pair of pipes, made ready at the end of each turn.
    let pipes = PipeReserve(size: 2)
    let programs = ProgramLocator()
    let nullInput: Int32
    /// What ``resetInChildren(_:)`` said: a fact of the process, so every engine's children.
    private static let signalsToReset = Locked<[Int32]>([])
    let guardian = Locked<ProcessGuardian?>(nil)
    /// Work left for the end of the loop's current turn (see ``afterThisTurn(_:)``).
    let endOfTurn = Locked<[@Sendable () -> Void]>([])

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

    /// Signals to reset to their default disposition in the children of every engine: those this
    /// process changed from the default for itself (a program that ignores SIGPIPE lists SIGPIPE
    /// here), so that children see signals as they would under a shell. Set before starting
    /// commands; it creates no engine.
    package static func resetInChildren(_ signals: [Int32]) {
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
                    resetSignals: Self.signalsToReset.withLock { $0 })
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
            signaller: { [self] signal in post(.signal(id, signal)) },
            stderrReader: { [self] in readPendingStderr(of: id) })
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

    func post(_ message: Message) {
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
    let loopThread = Atomic<UInt>(0)

    package var isLoopThread: Bool { loopThread.load(ordering: .acquiring) == UInt(pthread_self()) }
}
