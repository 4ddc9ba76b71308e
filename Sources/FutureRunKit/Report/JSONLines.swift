import FutureCore
import FutureProcess

/// `--json FILE`: JSON Lines, one object per finished job, fields per the contract: number, name,
/// command, status, exit, signal, timed_out, attempts, start (Unix time), wall, user, sys (seconds),
/// max_rss, stdout_bytes, stderr_bytes (bytes); in a run over hosts (`-S`), host.
final class JSONLines: Report {
    private let file: ReportFile

    init(path: String) throws(UsageError) {
        file = try ReportFile(path: path, append: false)
    }

    var error: String? { file.error }

    func finished(_ outcome: JobOutcome) {
        file.write(Self.object(outcome) + "\n")
    }

    static func object(_ outcome: JobOutcome) -> String {
        let result = outcome.result
        let status: String =
            switch outcome.status {
            case .succeeded: "ok"
            case .failed(.timedOut): "timeout"
            case .failed, .unrunnable: "failed"
            case .stopped: "stopped"
            case .notStarted: "not_started"
            case .skipped: "skipped"
            }
        let fields: [(String, String)] =
            [
                ("number", "\(outcome.job.number)"),
                ("name", JSONText.string(outcome.job.label)),
                ("command", JSONText.string(String(decoding: outcome.commandLine, as: UTF8.self))),
                ("status", JSONText.string(status)),
                ("exit", result.exitCode.map { "\($0)" } ?? "null"),
                ("signal", result.signal.map { "\($0)" } ?? "null"),
                ("timed_out", result.status == .timedOut ? "true" : "false"),
                ("attempts", "\(outcome.attempts)"),
                ("start", String(format3: result.startTime)),
                ("wall", String(format3: result.wallTime.seconds)),
                ("user", String(format3: result.userTime.seconds)),
                ("sys", String(format3: result.systemTime.seconds)),
                ("max_rss", "\(result.maxResidentBytes)"),
                ("stdout_bytes", "\(result.stdout.count)"),
                ("stderr_bytes", "\(result.stderr.count)"),
            ] + (outcome.host.map { [("host", JSONText.string($0))] } ?? []) + skipReason(outcome.status)
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// `"skipped": "why"` for a job skipped because a job it waits for did not succeed.
    private static func skipReason(_ status: JobStatus) -> [(String, String)] {
        guard case .skipped(let reason) = status else { return [] }
        return [("skipped", JSONText.string(reason))]
    }
}
