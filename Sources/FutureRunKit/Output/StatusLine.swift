import FutureCore
import FutureProcess

/// The one line printed on stderr after each job's block:
///
///     ok   [2/5] make test  3.21s
///     FAIL [3/5] make docs  exit 2  0.53s
///     FAIL [4/5] sleep 60  timeout  5.00s
///     ok   [5/5] make check  on build2  1.02s
///     ok   [6/7] gzip a.log  cached
///     ok   [7/7] make flaky  1.10s  after 2 attempts, flaky
enum StatusLine {
    /// - Parameter width: the terminal's width, if on one: the label is cut so the line fits.
    static func format(_ outcome: JobOutcome, total: Int?, style: Style, width: Int? = nil) -> String {
        let full = Style.sanitize(outcome.job.label)
        guard let width else { return format(outcome, total: total, style: style, label: full) }
        let others = Style.visibleCount(format(outcome, total: total, style: style, label: ""))
        let label = Style.truncate(full, toVisible: max(4, width - 1 - others))
        return Style.truncate(format(outcome, total: total, style: style, label: label), toVisible: width - 1)
    }

    private static func format(_ outcome: JobOutcome, total: Int?, style: Style, label: String) -> String {
        let position = total.map { "[\(outcome.job.number)/\($0)]" } ?? "[\(outcome.job.number)]"
        // A job on another machine names it (`:`, this one, goes without saying).
        let label = outcome.host.map { $0 == ":" ? label : "\(label)  on \(Style.sanitize($0))" } ?? label
        // A job replayed from the cache (`--cache`) took no time of its own.
        let time = outcome.isCached ? "cached" : DurationFormat.format(outcome.result.wallTime)
        let admission = outcome.admission
        let attempts =
            (outcome.attempts > 1 ? "  after \(outcome.attempts) attempts" + (outcome.isFlaky ? ", flaky" : "") : "")
            + (outcome.requeued == 0 ? "" : "  requeued \(outcome.requeued == 1 ? "once" : "\(outcome.requeued) times")")
            + (admission.waited == .zero ? "" : "  waited \(DurationFormat.format(admission.waited)) for \(admission.waitedFor)")
            + (admission.suspended == .zero ? "" : "  suspended \(DurationFormat.format(admission.suspended))")
        switch outcome.status {
        case .succeeded:
            return "\(style.green("ok  ")) \(position) \(label)  \(time)\(attempts)"
        case .failed(let status):
            return "\(style.red("FAIL")) \(position) \(label)  \(describe(status))  \(time)\(attempts)"
        case .unrunnable(let reason):
            return "\(style.red("FAIL")) \(position) \(label)  \(Style.sanitize(reason))"
        case .stopped:
            return "\(style.yellow("STOP")) \(position) \(label)  stopped by futurerun  \(time)"
        case .notStarted:
            return "\(style.yellow("SKIP")) \(position) \(label)  not started"
        case .skipped(let reason):
            return "\(style.yellow("SKIP")) \(position) \(label)  \(Style.sanitize(describe(reason)))"
        }
    }

    /// `exit 2`, `signal 9 (KILL)`, `timeout`, `not found (127)`…
    /// `needs build, which failed (exit 2)`: why a job was skipped, as every output and report says it.
    static func describe(_ reason: SkipReason) -> String {
        let ending =
            switch reason.ending {
            case .failed(let status): "failed (\(describe(status)))"
            case .timedOut: "timed out"
            case .couldNotRun: "could not run"
            case .skipped: "was skipped"
            }
        return "needs \(reason.prerequisite), which \(ending)"
    }

    static func describe(_ status: TerminationStatus) -> String {
        switch status {
        case .exited(let code): "exit \(code)"
        case .signaled(let signal): "signal \(signal)" + (SignalName.of(signal).map { " (\($0))" } ?? "")
        case .timedOut: "timeout"
        case .cancelled: "stopped"
        case .failedToStart(let error) where error == 2: "shell not found (127)"
        case .failedToStart(let error) where error == 7: "command line too long for the system (E2BIG)"
        case .failedToStart: "cannot start (126)"
        }
    }
}

/// Short names of the common signals.
enum SignalName {
    static func of(_ signal: Int32) -> String? {
        let names: [Int32: String] = [
            1: "HUP", 2: "INT", 3: "QUIT", 4: "ILL", 6: "ABRT", 8: "FPE", 9: "KILL", 11: "SEGV", 13: "PIPE",
            14: "ALRM", 15: "TERM", 10: "USR1", 12: "USR2", 24: "XCPU", 25: "XFSZ",
        ]
        return names[signal]
    }
}
