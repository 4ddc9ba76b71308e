import FutureCore
import FutureProcess

/// How one job ended, as futurerun reports it.
package enum JobStatus: Sendable, Equatable {
    case succeeded
    /// Ran and failed: non-zero exit, signal, timeout, or could not start.
    case failed(TerminationStatus)
    /// It could not run at all, for this reason: its input could not be a job (line too long, NUL
    /// byte), or no host was left to run it.
    case unrunnable(String)
    /// futurerun stopped it (halt policy or a signal to futurerun) before it finished.
    case stopped
    /// Never started (halt policy or a signal came first).
    case notStarted
    /// Never started: a job it waits for (`after=`) failed, timed out, could not run or was skipped.
    case skipped(SkipReason)

    package var isFailure: Bool {
        switch self {
        case .failed, .unrunnable: true
        case .succeeded, .stopped, .notStarted, .skipped: false
        }
    }

    /// Whether the job never ran at all (no process, no output).
    package var neverRan: Bool {
        switch self {
        case .notStarted, .skipped: true
        case .succeeded, .failed, .unrunnable, .stopped: false
        }
    }
}

/// Why a job never ran: how the job it waits for (`after=`) ended instead of succeeding.
package struct SkipReason: Sendable, Equatable {
    package enum Ending: Sendable, Equatable {
        case failed(TerminationStatus)
        case timedOut
        case couldNotRun
        case skipped
    }

    /// The name of the job it waits for.
    package let prerequisite: String
    package let ending: Ending

    package init(prerequisite: String, ending: Ending) {
        self.prerequisite = prerequisite
        self.ending = ending
    }
}

/// One finished job: status, the final attempt's result, and how many attempts it took.
package struct JobOutcome: Sendable {
    package let job: Job
    package let status: JobStatus
    /// The last attempt's result (empty output and zero times if it never ran).
    package let result: CommandResult
    package let attempts: Int
    /// The shell command line actually run.
    package let commandLine: [UInt8]
    /// The slot the last attempt ran in (0 if it never ran).
    package var slot = 0
    /// The host the last attempt ran on, in a run over hosts (`-S`; `:` is this machine).
    package var host: String?
    /// The attempts before the last, oldest first: those retried (`--retries`) and those stopped and
    /// queued again (``AttemptRecord/requeued``).
    package var earlierAttempts: [AttemptRecord] = []
    /// How often an attempt was stopped and queued again, not counted as an attempt: by
    /// `--memfree`, or because its host was lost.
    package var requeued = 0
    /// What admission cost the last attempt: its wait to start, its time suspended.
    package var admission: AdmissionTimes = .none
    /// How the last attempt's command ran (``nil``: it never ran).
    package var path: JobPath?
    /// With `--cache`, the manifest a job that ran (no hit) is stored under.
    package var cacheMiss: CacheManifest?
}

extension JobOutcome {
    /// Its end was replayed from the cache: no process ran.
    package var isCached: Bool { path == .cached }

    /// It succeeded after attempts that failed (`--retries`): flaky, not failed.
    package var isFlaky: Bool { status == .succeeded && failedAttempts > 0 }

    /// Attempts that ended and were tried again (``AttemptRecord/requeued`` ones are not tries).
    package var failedAttempts: Int { earlierAttempts.count { !$0.requeued } }

    /// The outcome of a job whose last attempt ran at `placement` (`nil`: it never ran).
    package init(
        job: Job, status: JobStatus, result: CommandResult, attempts: Int, commandLine: [UInt8], placement: Placement?,
        earlierAttempts: [AttemptRecord], requeued: Int, admission: AdmissionTimes, cacheMiss: CacheManifest? = nil
    ) {
        self.init(
            job: job, status: status, result: result, attempts: attempts, commandLine: commandLine,
            slot: placement?.seat.slot ?? 0, host: placement?.machine, earlierAttempts: earlierAttempts, requeued: requeued,
            admission: admission, path: placement?.path, cacheMiss: cacheMiss)
    }
}

/// One attempt of a job, as the timeline draws it: where and when it ran, how it ended, what it used.
package struct AttemptRecord: Sendable, Equatable {
    package var slot: Int
    /// In a run over hosts (`-S`), the host it ran on.
    package var host: String?
    package var status: TerminationStatus
    /// Unix time in seconds.
    package var start: Double
    package var wall: Duration
    package var cpu: Duration
    package var maxResidentBytes: Int
    /// It was stopped and queued again, not counted as an attempt (``JobOutcome/requeued``).
    package var requeued = false

    package init(_ placement: Placement, _ result: CommandResult, requeued: Bool = false) {
        self.init(slot: placement.seat.slot, host: placement.machine, result)
        self.requeued = requeued
    }

    package init(slot: Int, host: String?, _ result: CommandResult) {
        self.slot = slot
        self.host = host
        status = result.status
        start = result.startTime
        wall = result.wallTime
        cpu = result.userTime + result.systemTime
        maxResidentBytes = result.maxResidentBytes
    }
}

/// A job travelling from the scheduler to the printer: resolves first when its first attempt
/// starts, then when its final attempt ends.
package final class JobTicket: Sendable {
    package let job: Job
    package let startPromise = Promise<CommandRun, Never>()
    package let outcomePromise = Promise<JobOutcome, Never>()
    /// Attempts that ended and were retried, or stopped and queued again.
    package let earlierAttempts = Locked<[AttemptRecord]>([])
    /// Attempts stopped and queued again as the same attempt (``AttemptVerdict/lost``).
    package let requeued = Locked(0)
    /// With `--cache`, the manifest its end is stored under, once the store said it has none.
    package let cacheMiss = Locked<CacheManifest?>(nil)

    package init(job: Job) { self.job = job }

    /// The first attempt's run, for streaming its output live.
    package var started: Future<CommandRun> { startPromise.future }
    package var outcome: Future<JobOutcome> { outcomePromise.future }
}
