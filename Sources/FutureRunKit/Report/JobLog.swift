import FutureCore
import FutureProcess

/// `--joblog FILE`: GNU parallel's joblog, byte-compatible: a tab-separated header, then one line
/// per job as it finishes (`Seq Host Starttime JobRuntime Send Receive Exitval Signal Command`).
/// `+FILE` appends (no second header). Jobs futurerun stopped have Exitval -1 and the signal sent;
/// jobs that never started are not logged, as in GNU parallel.
final class JobLog: Report {
    private let file: ReportFile

    init(_ spec: String) throws(UsageError) {
        let append = spec.hasPrefix("+")
        file = try ReportFile(path: append ? String(spec.dropFirst()) : spec, append: append)
        if !append || file.isEmpty {
            file.write("Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n")
        }
    }

    var error: String? { file.error }

    func finished(_ outcome: JobOutcome) {
        guard let line = Self.line(outcome) else { return }
        file.write(line)
    }

    static func line(_ outcome: JobOutcome) -> String? {
        let result = outcome.result
        var exit: Int32
        var signal: Int32 = result.signal ?? 0
        switch outcome.status {
        case .notStarted, .skipped: return nil
        case .succeeded: exit = 0
        case .unrunnable: exit = 255
        case .stopped: exit = -1
        case .failed(let status):
            switch status {
            case .exited(let code): exit = code
            case .signaled: exit = 0
            case .timedOut, .cancelled: exit = -1
            case .failedToStart: exit = status.shellStatus
            }
        }
        if case .failed(.signaled(let number)) = outcome.status { signal = number }
        let runtime = String(format3: result.wallTime.seconds)
        let paddedRuntime = String(repeating: " ", count: max(0, 10 - runtime.count)) + runtime
        let command = String(decoding: outcome.commandLine, as: UTF8.self).replacingAll("\n", with: " ")
        return
            "\(outcome.job.number)\t\(outcome.host ?? ":")\t\(String(format3: result.startTime))\t\(paddedRuntime)\t0\t\(result.stdout.count)"
            + "\t\(exit)\t\(signal)\t\(command)\n"
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
