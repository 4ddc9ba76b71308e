import FutureRunModel

/// `--retries N`: whether a finished attempt is run again. As in GNU parallel, N is the number of
/// attempts a job gets in all (0 and 1: one). A value, tested without processes.
package struct RetryPolicy: Sendable, Equatable {
    /// How many attempts a failed job gets in all.
    package let retries: Int

    /// Whether to run the job again after attempt number `attempt` (1-based) ended so: only a
    /// failure, only while attempts are left, never once the run is stopping.
    package func retries(after succeeded: Bool, attempt: Int, stopping: Bool) -> Bool {
        !succeeded && attempt < retries && !stopping
    }
}
