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

    /// Stops the command: TERM to its process group, KILL after its grace period. Never blocks.
    public func cancel() { result.cancel() }
}
