import FutureCore
import FutureProcess
import FutureRunEngine
import FutureRunModel

/// `--joblog FILE`: GNU parallel's joblog, byte-compatible: a tab-separated header, then one line
/// per job as it finishes (`Seq Host Starttime JobRuntime Send Receive Exitval Signal Command`).
/// `+FILE` appends (no second header). A job that timed out has Exitval -1 and the signal sent, as
/// in GNU parallel; jobs that never started, and jobs a stop (INT, TERM, `--halt`) ended, are not
/// logged, so that `--resume` (futurerun's or GNU parallel's) runs them again. The format is
/// ``JobLogFormat``'s.
package final class JobLog: Report {
    private let file: ReportFile

    package init(_ target: Options.JobLogTarget) throws(UsageError) {
        file = try ReportFile(path: target.path, append: target.appends)
        if !target.appends || file.isEmpty {
            file.write(JobLogFormat.header)
        } else if !file.endsAtLineStart {
            file.write("\n")
        }
    }

    package var error: String? { file.error }

    package func finished(_ outcome: JobOutcome) {
        guard let line = Self.line(outcome) else { return }
        file.write(line)
    }

    package static func line(_ outcome: JobOutcome) -> String? {
        let result = outcome.result
        var exit: Int32
        var signal: Int32 = result.signal ?? 0
        switch outcome.status {
        case .notStarted, .skipped, .stopped: return nil
        case .succeeded: exit = 0
        case .unrunnable: exit = 255
        case .failed(let status):
            switch status {
            case .exited(let code): exit = code
            case .signaled(let number):
                exit = 0
                signal = number
            case .timedOut, .cancelled: exit = -1
            case .failedToStart: exit = status.shellStatus
            }
        }
        return JobLogFormat.line(
            JobLogFormat.Record(
                number: outcome.job.number, host: outcome.isCached ? "cached" : outcome.host ?? ":", start: result.startTime,
                runtime: result.wallTime.seconds,
                received: result.stdout.count, exit: Int(exit), signal: Int(signal),
                command: String(decoding: outcome.commandLine, as: UTF8.self)))
    }
}
