import FutureRunEngine
import FutureRunModel

/// Log markup for CI systems: collapsible groups around each job's block, on GitHub an `::error`
/// annotation for a failed job and `::stop-commands::` around job output, so a job's own bytes
/// cannot issue workflow commands. Written to stderr, so stdout keeps only the jobs' bytes; the
/// caller keeps groups paired (``JobReporter``).
package enum CIFormat: Sendable, Equatable {
    case none
    case github
    case gitlab

    /// `--ci auto` picks by the environment: `GITHUB_ACTIONS=true` or `GITLAB_CI=true`.
    package static func detect(_ choice: Options.CIKind, environment: [String: String]) -> CIFormat {
        switch choice {
        case .none: .none
        case .github: .github
        case .gitlab: .gitlab
        case .auto:
            if environment["GITHUB_ACTIONS"] == "true" {
                .github
            } else if environment["GITLAB_CI"] == "true" {
                .gitlab
            } else {
                .none
            }
        }
    }

    /// Groups need the job's status in their title, so a job is printed once it has finished.
    package var holdsOutputUntilDone: Bool { self != .none }

    /// The line opening a finished job's group: its title says how it ended. A GitLab section
    /// starts at the job's own start time and a failed one is expanded.
    func groupStart(_ outcome: JobOutcome) -> String? {
        let label = SafeText.sanitize(outcome.job.label)
        let mark: String =
            switch outcome.status {
            case .succeeded: "ok"
            case .stopped: "stopped"
            case .notStarted, .skipped: "skipped"
            case .failed, .unrunnable: "FAIL"
            }
        let title = "\(label) \(mark) \(DurationFormat.format(outcome.result.wallTime))"
        switch self {
        case .none: return nil
        case .github: return "::group::" + title.replacingPercentEncoding()
        case .gitlab:
            let start = Int(outcome.result.startTime)
            let options = outcome.status == .succeeded ? "[collapsed=true]" : ""
            return "\u{1B}[0Ksection_start:\(start):futurerun_job_\(outcome.job.number)\(options)\r\u{1B}[0K" + title
        }
    }

    /// The line closing the group ``groupStart(_:)`` opened; a GitLab section ends at the job's end.
    func groupEnd(_ outcome: JobOutcome) -> String? {
        switch self {
        case .none: return nil
        case .github: return "::endgroup::"
        case .gitlab:
            let end = Int((outcome.result.startTime + outcome.result.wallTime.seconds).rounded(.up))
            return "\u{1B}[0Ksection_end:\(end):futurerun_job_\(outcome.job.number)\r\u{1B}[0K"
        }
    }

    /// GitHub's `::stop-commands::` pair around job output: no workflow command in between is
    /// obeyed until the token is written back. `nil` elsewhere.
    func stopCommands(token: String) -> (stop: String, resume: String)? {
        self == .github ? ("::stop-commands::" + token, "::" + token + "::") : nil
    }

    func failureAnnotation(_ outcome: JobOutcome) -> String? {
        guard self == .github else { return nil }
        let detail: String =
            switch outcome.status {
            case .failed(let status): StatusText.describe(status)
            case .unrunnable(let reason): reason
            default: "failed"
            }
        // Both come from input: one line, with GitHub's own escapes, can issue no command of its own.
        let message = SafeText.sanitize("\(outcome.job.label): \(detail)").replacingPercentEncoding()
        return "::error title=futurerun job \(outcome.job.number) failed::" + message
    }

    /// A token no job can guess, for ``stopCommands(token:)``.
    static func randomToken() -> String {
        // Concatenated, not `joined()`: that generic's first use looks its types up by name, a scan
        // of every conformance in the binary (~2 % of a one-job run).
        String(UInt64.random(in: .min ... .max), radix: 16) + String(UInt64.random(in: .min ... .max), radix: 16)
    }
}

extension String {
    /// GitHub workflow-command escaping of `%`, CR and LF.
    func replacingPercentEncoding() -> String {
        var out = ""
        for character in self {
            switch character {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            default: out.append(character)
            }
        }
        return out
    }
}
