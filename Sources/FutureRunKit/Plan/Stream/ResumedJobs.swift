import FutureCore

/// `--resume` and `--resume-failed`: the jobs the joblog says need not run again are left out of
/// the stream; the named ones among them are kept, with how they ended before, for the jobs that
/// wait for them (``takeSettled()``).
final class ResumedJobs: JobStream {
    private let upstream: any JobStream
    private let log: ResumeLog
    private let settled = Locked<[(name: String, status: JobStatus)]>([])

    init(_ upstream: any JobStream, log: ResumeLog) {
        self.upstream = upstream
        self.log = log
    }

    func next() -> Job? {
        while let job = upstream.next() {
            guard let status = log.skip(job.number) else { return job }
            if let name = job.header?.name { settled.withLock { $0.append((name, status)) } }
        }
        return nil
    }

    /// The named jobs skipped since the last call, with how they ended before. Any thread.
    func takeSettled() -> [(name: String, status: JobStatus)] {
        settled.withLock { settled in
            defer { settled = [] }
            return settled
        }
    }
}
