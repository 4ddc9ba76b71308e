import FutureCore
import FutureProcess

/// How one job ended, as futurerun reports it.
public enum JobStatus: Sendable, Equatable {
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

    public var isFailure: Bool {
        switch self {
        case .failed, .unrunnable: true
        case .succeeded, .stopped, .notStarted, .skipped: false
        }
    }

    /// Whether the job never ran at all (no process, no output).
    public var neverRan: Bool {
        switch self {
        case .notStarted, .skipped: true
        case .succeeded, .failed, .unrunnable, .stopped: false
        }
    }
}

/// Why a job never ran: how the job it waits for (`after=`) ended instead of succeeding.
public struct SkipReason: Sendable, Equatable {
    public enum Ending: Sendable, Equatable {
        case failed(TerminationStatus)
        case timedOut
        case couldNotRun
        case skipped
    }

    /// The name of the job it waits for.
    public let prerequisite: String
    public let ending: Ending
}

/// One finished job: status, the final attempt's result, and how many attempts it took.
public struct JobOutcome: Sendable {
    public let job: Job
    public let status: JobStatus
    /// The last attempt's result (empty output and zero times if it never ran).
    public let result: CommandResult
    public let attempts: Int
    /// The shell command line actually run.
    public let commandLine: [UInt8]
    /// The slot the last attempt ran in (0 if it never ran).
    public var slot = 0
    /// The host the last attempt ran on, in a run over hosts (`-S`; `:` is this machine).
    public var host: String?
    /// The attempts before the last (with `--retries`), oldest first.
    public var earlierAttempts: [AttemptRecord] = []
}

extension JobOutcome {
    /// The outcome of a job whose last attempt ran at `placement` (`nil`: it never ran).
    init(
        job: Job, status: JobStatus, result: CommandResult, attempts: Int, commandLine: [UInt8], placement: Placement?,
        earlierAttempts: [AttemptRecord]
    ) {
        self.init(
            job: job, status: status, result: result, attempts: attempts, commandLine: commandLine,
            slot: placement?.seat.slot ?? 0, host: placement?.machine, earlierAttempts: earlierAttempts)
    }
}

/// One attempt of a job, as the timeline draws it: where and when it ran, how it ended, what it used.
public struct AttemptRecord: Sendable, Equatable {
    public var slot: Int
    /// In a run over hosts (`-S`), the host it ran on.
    public var host: String?
    public var status: TerminationStatus
    /// Unix time in seconds.
    public var start: Double
    public var wall: Duration
    public var cpu: Duration
    public var maxResidentBytes: Int

    init(_ placement: Placement, _ result: CommandResult) {
        self.init(slot: placement.seat.slot, host: placement.machine, result)
    }

    init(slot: Int, host: String?, _ result: CommandResult) {
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
public final class JobTicket: Sendable {
    public let job: Job
    let startPromise = Promise<CommandRun, Never>()
    let outcomePromise = Promise<JobOutcome, Never>()
    /// Attempts that ended and were retried.
    let earlierAttempts = Locked<[AttemptRecord]>([])

    init(job: Job) { self.job = job }

    /// The first attempt's run, for streaming its output live.
    public var started: Future<CommandRun> { startPromise.future }
    public var outcome: Future<JobOutcome> { outcomePromise.future }
}
