/// `--retries N`: whether a finished attempt is run again. A value, tested without processes.
struct RetryPolicy: Sendable, Equatable {
    /// How many more attempts a failed job gets.
    let retries: Int

    /// Whether to run the job again after attempt number `attempt` (1-based) ended so: only a
    /// failure, only while attempts are left, never once the run is stopping.
    func retries(after succeeded: Bool, attempt: Int, stopping: Bool) -> Bool {
        !succeeded && attempt <= retries && !stopping
    }
}
