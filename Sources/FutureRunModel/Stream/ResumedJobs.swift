import FutureCore

/// `--resume`, `--resume-failed` and `--rerun-failed`: the jobs an earlier run's report says need
/// not run again are left out of the stream; the named ones among them are kept, with how they
/// ended before, for the jobs that wait for them (``takeSettled()``).
package final class ResumedJobs: JobStream {
    private let upstream: any JobStream
    /// How the earlier run ended a job this run skips (`nil`: it runs).
    private let skip: @Sendable (Job) -> JobStatus?
    private let settled = Locked<[(name: String, status: JobStatus)]>([])

    package init(_ upstream: any JobStream, skip: @escaping @Sendable (Job) -> JobStatus?) {
        self.upstream = upstream
        self.skip = skip
    }

    package func next() -> Job? {
        while let job = upstream.next() {
            guard let status = skip(job) else { return job }
            if let name = job.header?.name { settled.withLock { $0.append((name, status)) } }
        }
        return nil
    }

    /// The named jobs skipped since the last call, with how they ended before. Any thread.
    package func takeSettled() -> [(name: String, status: JobStatus)] {
        settled.withLock { settled in
            defer { settled = [] }
            return settled
        }
    }
}
