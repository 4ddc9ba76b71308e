import FutureCore
import FutureProcess
import FutureRunModel

/// Jobs that wait for jobs (`@NAME after=A after-any=B`): each named job's ending as its dependants
/// see it, and each waiting job's future, composed from its prerequisites' futures with
/// ``FutureCore/Eventual/after(_:start:ifCancelled:)``. A waiting job holds no slot: it is handed
/// to the pool only once it is ready.
///
/// Any thread. A waiting job's start is decided on the thread that ends its last prerequisite (the
/// engine's).
package final class DependencyGraph: Sendable {
    /// What a dependant needs to know of a job it waits for.
    package struct Ending: Sendable, Equatable {
        package let name: String
        package let status: JobStatus
    }

    /// What becomes of a job once the jobs it waits for have ended.
    package enum Decision: Equatable {
        case run
        /// An `after=` job did not succeed: this one never runs, for this reason.
        case skip(SkipReason)
        /// A job it waits for was stopped or never started: the run is stopping.
        case notStarted
    }

    /// The ending of every named job read so far (small values, not outcomes with their output),
    /// resolved as the job concludes: before its slot goes to another job, so that a dependant
    /// made ready by it is queued, in its input position, before the slot is refilled.
    private let endings = Locked<[String: Promise<Ending, Never>]>([:])
    /// The composed futures of the jobs still waiting, by job number (to cancel them on a stop).
    private let waiting = Locked<[Int: Future<JobOutcome>]>([:])

    /// Notes `job` for the jobs that wait for it (only named jobs can be waited for).
    package func record(_ job: Job) {
        guard let name = job.header?.name else { return }
        endings.withLock { $0[name] = Promise() }
    }

    /// A named job this run does not run (`--resume` skipped it) ended so in an earlier run.
    package func settle(_ name: String, _ status: JobStatus) {
        let promise = Promise<Ending, Never>()
        promise.succeed(Ending(name: name, status: status))
        endings.withLock { $0[name] = promise }
    }

    /// `job` has concluded so: the jobs waiting for it decide now, on this thread.
    package func ended(_ job: Job, _ status: JobStatus) {
        guard let name = job.header?.name, let promise = endings.withLock({ $0[name] }) else { return }
        promise.tryComplete(.success(Ending(name: name, status: status)))
    }

    /// Waits for `header`'s prerequisites, then `begin`s the job with the decision. `neverStarted`
    /// gives the job's outcome if the wait is cancelled (``cancelWaiting()``) first.
    package func wait(
        _ number: Int, for header: JobHeader, begin: @escaping @Sendable (Decision) -> Future<JobOutcome>,
        ifCancelled neverStarted: @escaping @Sendable () -> JobOutcome
    ) {
        // The job source admitted only names read before this job: each has its ending recorded.
        let prerequisites = endings.withLock { endings in header.prerequisites.compactMap { endings[$0]?.future } }
        let composed = Future<JobOutcome>.after(prerequisites) { outcomes in
            begin(Self.decide(header, outcomes.map { $0.get() }))
        } ifCancelled: {
            .success(neverStarted())
        }
        waiting.withLock { $0[number] = composed }
        composed.onComplete(on: .inline) { [self] _ in waiting.withLock { _ = $0.removeValue(forKey: number) } }
    }

    /// Starts none of the jobs still waiting: each ends as not started, at once. The latest first:
    /// a job's dependants have then ended already, so no ending sets off another inside it.
    func cancelWaiting() {
        let futures = waiting.withLock { $0.sorted { $0.key > $1.key }.map(\.value) }
        for future in futures { future.cancel() }
    }

    /// The decision for a job with `header` whose prerequisites ended so (in the header's order).
    static func decide(_ header: JobHeader, _ endings: [Ending]) -> Decision {
        if endings.contains(where: { $0.status == .stopped || $0.status == .notStarted }) { return .notStarted }
        for ending in endings where header.after.contains(ending.name) {
            switch ending.status {
            case .succeeded: continue
            case .failed(.timedOut): return .skip(SkipReason(prerequisite: ending.name, ending: .timedOut))
            case .failed(let status): return .skip(SkipReason(prerequisite: ending.name, ending: .failed(status)))
            case .unrunnable: return .skip(SkipReason(prerequisite: ending.name, ending: .couldNotRun))
            case .skipped: return .skip(SkipReason(prerequisite: ending.name, ending: .skipped))
            case .stopped, .notStarted: return .notStarted
            }
        }
        return .run
    }
}
