import FutureCore
import FutureProcess
import FutureRunEngine
import FutureRunModel

/// The one line printed on stderr after each job's block:
///
///     ok   [2/5] make test  3.21s
///     FAIL [3/5] make docs  exit 2  0.53s
///     FAIL [4/5] sleep 60  timeout  5.00s
///     ok   [5/5] make check  on build2  1.02s
///     ok   [6/7] gzip a.log  cached
///     ok   [7/7] make flaky  1.10s  after 2 attempts, flaky
package enum StatusLine {
    /// - Parameter width: the terminal's width, if on one: the label is cut so the line fits.
    package static func format(_ outcome: JobOutcome, total: Int?, style: Style, width: Int? = nil) -> String {
        let full = SafeText.sanitize(outcome.job.label)
        guard let width else { return format(outcome, total: total, style: style, label: full) }
        let others = Style.visibleCount(format(outcome, total: total, style: style, label: ""))
        let label = Style.truncate(full, toVisible: max(4, width - 1 - others))
        return Style.truncate(format(outcome, total: total, style: style, label: label), toVisible: width - 1)
    }

    private static func format(_ outcome: JobOutcome, total: Int?, style: Style, label: String) -> String {
        let position = total.map { "[\(outcome.job.number)/\($0)]" } ?? "[\(outcome.job.number)]"
        // A job on another machine names it (`:`, this one, goes without saying).
        let label = outcome.host.map { $0 == ":" ? label : "\(label)  on \(SafeText.sanitize($0))" } ?? label
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
            return "\(style.red("FAIL")) \(position) \(label)  \(StatusText.describe(status))  \(time)\(attempts)"
        case .unrunnable(let reason):
            return "\(style.red("FAIL")) \(position) \(label)  \(SafeText.sanitize(reason))"
        case .stopped:
            return "\(style.yellow("STOP")) \(position) \(label)  stopped by futurerun  \(time)"
        case .notStarted:
            return "\(style.yellow("SKIP")) \(position) \(label)  not started"
        case .skipped(let reason):
            return "\(style.yellow("SKIP")) \(position) \(label)  \(SafeText.sanitize(StatusText.describe(reason)))"
        }
    }
}
