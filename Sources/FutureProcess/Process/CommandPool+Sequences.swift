import FutureCore

/// A pool's commands as an `AsyncSequence`, for `for await` loops.
extension CommandPool {
    /// Runs each of `commands` in the pool (in their order, as slots free up) and gives their
    /// results as they end, in completion order; the sequence ends after the last. Never blocks a
    /// thread. Ending the loop early does not stop the commands: cancel the pool's futures for that.
    ///
    ///     for await result in pool.completions(of: tests) { print(result.status) }
    public func completions(of commands: [Command]) -> AsyncMapSequence<AsyncStream<Result<CommandResult, Never>>, CommandResult>
    {
        Future.completions(of: commands.map(run)).map { $0.get() }
    }

    /// Runs each of `commands` in the pool and gives their results in the order of `commands`,
    /// each once it and every one before it have ended. Never blocks a thread.
    ///
    ///     for await result in pool.results(of: pages) { print(result.stdout.lines) }   // page 1, 2, 3…
    public func results(of commands: [Command]) -> AsyncMapSequence<AsyncStream<Result<CommandResult, Never>>, CommandResult> {
        Future.results(of: commands.map(run)).map { $0.get() }
    }
}
