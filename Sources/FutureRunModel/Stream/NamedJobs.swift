import FutureCore

/// The bookkeeping of jobs that wait for jobs: each header is admitted against the names before it
/// (``JobNames``). A job whose name is taken runs unnamed as one that cannot run; one that waits
/// for a job not seen yet cannot run, and its name is known from then on, so that the jobs that
/// wait for it learn that it could not run.
package final class NamedJobs: JobStream {
    private let upstream: any JobStream
    private let names = Locked(JobNames())

    package init(_ upstream: any JobStream) { self.upstream = upstream }

    package func next() -> Job? {
        guard let job = upstream.next() else { return nil }
        guard let header = job.header, let refusal = names.withLock({ $0.admit(header) }) else { return job }
        switch refusal {
        case .nameTaken: return Job(number: job.number, name: job.name, header: nil, body: .invalid(refusal.message))
        case .unknownPrerequisite:
            return Job(number: job.number, name: job.name, header: JobHeader(name: header.name), body: .invalid(refusal.message))
        }
    }
}
