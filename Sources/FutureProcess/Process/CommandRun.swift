import FutureCore

/// A command that has been started: its live output and the future of its result.
public struct CommandRun: Sendable {
    /// The child's stdout and stderr, readable while it runs (see ``CapturedOutput``).
    public let stdout: CapturedOutput
    public let stderr: CapturedOutput
    /// Resolves when the process has exited and its pipes are drained, on the engine's thread.
    public let result: Future<CommandResult>
    /// Whether a process was spawned (false: withdrawn or stopped before its turn, or it failed to
    /// start).
    public let spawned: Bool
    /// Sends a signal to the command's process group, on the engine's thread, if it still runs.
    private let signaller: (@Sendable (Int32) -> Void)?
    /// Reads what the process's stderr pipe holds now (``readPendingStderr()``).
    private let stderrReader: (@Sendable () -> Bool)?
    /// Whether it still waits behind another command (``isWaiting``).
    private let waiting: (@Sendable () -> Bool)?

    init(
        stdout: CapturedOutput, stderr: CapturedOutput, result: Future<CommandResult>, spawned: Bool,
        signaller: (@Sendable (Int32) -> Void)? = nil, stderrReader: (@Sendable () -> Bool)? = nil,
        waiting: (@Sendable () -> Bool)? = nil
    ) {
        self.stdout = stdout
        self.stderr = stderr
        self.result = result
        self.spawned = spawned
        self.signaller = signaller
        self.stderrReader = stderrReader
        self.waiting = waiting
    }

    /// Whether the command, started behind another in its seat (``CommandPool/Behind``), still
    /// waits for that one to end: it is not running yet. Any thread.
    package var isWaiting: Bool { waiting?() ?? false }

    /// Stops the command: TERM to its process group, KILL after its grace period. Never blocks.
    public func cancel() { result.cancel() }

    /// Sends `signal` to the command's whole process group (`SIGSTOP` and `SIGCONT` to suspend and
    /// resume it), on the engine's thread and only while it runs: never to a group whose id was
    /// reused. Never blocks.
    public func signal(_ signal: Int32) { signaller?(signal) }

    /// Appends to ``stderr`` what the process's stderr pipe holds now, without waiting for the
    /// engine's loop to see it: for a runner that learns from a frame on stdout that a job of its
    /// process has ended, and so that all the job wrote to stderr is in the pipe already. On the
    /// engine's thread (a callback of the run's streams or result) it reads at once and returns
    /// true. Elsewhere it returns false and has the engine read soon, then wake the stderr's
    /// reader. Never blocks.
    package func readPendingStderr() -> Bool { stderrReader?() ?? true }

    /// A run whose result is `result`, with no output: a test's stand-in for a process.
    package static func standIn(result: Future<CommandResult>) -> CommandRun {
        let finished = neverStarted()
        return CommandRun(stdout: finished.stdout, stderr: finished.stderr, result: result, spawned: true)
    }

    /// Whether this is a ``replayed(stdout:stderr:status:)`` run: a job's output shown
    /// as if it had run.
    package var isReplay: Bool { !spawned && result.outcome?.get().processID == -1 }

    /// The run of a command whose end is already known (kept by a cache from an earlier run): this
    /// output, this status, no process (``CommandResult/processID`` -1, as another's run), zero times.
    package static func replayed(
        stdout stdoutBytes: [UInt8], stderr stderrBytes: [UInt8], status: TerminationStatus
    ) -> CommandRun {
        let stdout = CapturedOutput(memoryLimit: stdoutBytes.count, spillDirectory: "/")
        let stderr = CapturedOutput(memoryLimit: stderrBytes.count, spillDirectory: "/")
        if !stdoutBytes.isEmpty { stdout.append(stdoutBytes) }
        if !stderrBytes.isEmpty { stderr.append(stderrBytes) }
        stdout.finish()
        stderr.finish()
        let result = CommandResult(
            notSpawnedHere: status, startTime: CommandResult.unixTimeNow(), wallTime: .zero, stdout: stdout, stderr: stderr)
        return CommandRun(stdout: stdout, stderr: stderr, result: Future(resolved: .success(result)), spawned: false)
    }

    /// The run of a command that never started (withdrawn, or refused by a stopped pool): empty
    /// output, and a result already resolved as ``TerminationStatus/cancelled``, `spawned` false.
    public static func neverStarted() -> CommandRun {
        let stdout = CapturedOutput(memoryLimit: 0, spillDirectory: "/")
        let stderr = CapturedOutput(memoryLimit: 0, spillDirectory: "/")
        stdout.finish()
        stderr.finish()
        let result = CommandResult(
            status: .cancelled, exitCode: nil, signal: nil, startTime: 0, wallTime: .zero, userTime: .zero, systemTime: .zero,
            maxResidentBytes: 0, stdout: stdout, stderr: stderr, processID: 0)
        return CommandRun(stdout: stdout, stderr: stderr, result: Future(resolved: .success(result)), spawned: false)
    }
}
