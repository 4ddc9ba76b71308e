import FutureCore
import Glibc

/// How a command ended. A non-zero exit is a normal outcome, not an error.
public enum TerminationStatus: Sendable, Equatable, Hashable {
    /// The process exited with this status.
    case exited(Int32)
    /// The process was killed by this signal (not sent by FutureCore).
    case signaled(Int32)
    /// FutureCore stopped it because it ran past its timeout.
    case timedOut
    /// FutureCore stopped it (or never started it) because its future was cancelled.
    case cancelled
    /// It never ran: the spawn failed with this errno (`ENOENT`: not found; `EACCES`: not
    /// executable).
    case failedToStart(errno: Int32)

    public var succeeded: Bool { self == .exited(0) }

    /// The status a shell would report: the exit code, 128 + signal, 127 for not found, 126 for not
    /// executable.
    public var shellStatus: Int32 {
        switch self {
        case .exited(let code): code
        case .signaled(let signal): 128 + signal
        case .timedOut, .cancelled: 128 + 15
        case .failedToStart(let error): error == 2 ? 127 : 126
        }
    }
}

/// Everything known about one finished command: outcome, timing, resources and output.
public struct CommandResult: Sendable {
    public var status: TerminationStatus
    /// The raw exit code from `wait4`, when the process exited (also when timed out or cancelled).
    public var exitCode: Int32?
    /// The signal that ended the process, from `wait4` (also when FutureCore sent it).
    public var signal: Int32?
    /// When it was spawned, as Unix time in seconds.
    public var startTime: Double
    /// From spawn to exit, on a monotonic clock.
    public var wallTime: Duration
    public var userTime: Duration
    public var systemTime: Duration
    /// Peak resident memory of the process (largest of it and its reaped children), in bytes.
    public var maxResidentBytes: Int
    public var stdout: CapturedOutput
    public var stderr: CapturedOutput
    /// The process's id; 0 if none was spawned; -1 for a job another process ran (a long-lived
    /// worker that relays its jobs' output and ends).
    public var processID: Int32

    public var succeeded: Bool { status.succeeded }

    /// The time now, as Unix time in seconds: what ``startTime`` holds.
    package static func unixTimeNow() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

extension CommandResult {
    /// The result of a job no process of this engine ran (another's, ``RelayedRun``; or one kept
    /// from an earlier run): its exit code or signal as `status` says, no resource figures,
    /// ``processID`` -1.
    package init(
        notSpawnedHere status: TerminationStatus, startTime: Double, wallTime: Duration, stdout: CapturedOutput,
        stderr: CapturedOutput
    ) {
        var exitCode: Int32?
        var signal: Int32?
        switch status {
        case .exited(let code): exitCode = code
        case .signaled(let number): signal = number
        default: break
        }
        self.init(
            status: status, exitCode: exitCode, signal: signal, startTime: startTime, wallTime: wallTime, userTime: .zero,
            systemTime: .zero, maxResidentBytes: 0, stdout: stdout, stderr: stderr, processID: -1)
    }
}
