import Glibc

/// Log markup for CI systems: collapsible groups around each job's block and, on GitHub, an
/// `::error` annotation for a failed job. Written to stderr, so stdout keeps only the jobs' bytes.
public enum CIFormat: Sendable, Equatable {
    case none
    case github
    case gitlab

    /// `--ci auto` picks by the environment: `GITHUB_ACTIONS=true` or `GITLAB_CI=true`.
    public static func detect(_ choice: Options.CIKind, environment: [String: String]) -> CIFormat {
        switch choice {
        case .none: .none
        case .github: .github
        case .gitlab: .gitlab
        case .auto:
            if environment["GITHUB_ACTIONS"] == "true" { .github }
            else if environment["GITLAB_CI"] == "true" { .gitlab }
            else { .none }
        }
    }

    /// Groups need the job's status in their title, so a job is printed once it has finished.
    var holdsOutputUntilDone: Bool { self != .none }

    func groupStart(job: Job, status: JobStatus?, wall: Duration?, total: Int?) -> String? {
        guard self != .none else { return nil }
        let label = Style.sanitize(job.label)
        let mark: String =
            switch status {
            case .succeeded?: "ok"
            case nil: ""
            case .stopped?: "stopped"
            case .notStarted?: "skipped"
            default: "FAIL"
            }
        let time = wall.map { " " + DurationFormat.format($0) } ?? ""
        switch self {
        case .none: return nil
        case .github: return "::group::\(label) \(mark)\(time)"
        case .gitlab:
            return "\u{1B}[0Ksection_start:\(Self.now()):futurerun_job_\(job.number)[collapsed=true]\r\u{1B}[0K\(label) \(mark)\(time)"
        }
    }

    func groupEnd(job: Job) -> String? {
        switch self {
        case .none: nil
        case .github: "::endgroup::"
        case .gitlab: "\u{1B}[0Ksection_end:\(Self.now()):futurerun_job_\(job.number)\r\u{1B}[0K"
        }
    }

    func failureAnnotation(_ outcome: JobOutcome) -> String? {
        guard self == .github else { return nil }
        let detail: String =
            switch outcome.status {
            case .failed(let status): StatusLine.describe(status)
            case .invalid(let reason): reason
            default: "failed"
            }
        let label = Style.sanitize(outcome.job.label).replacingPercentEncoding()
        return "::error title=futurerun job \(outcome.job.number) failed::\(label): \(detail)"
    }

    private static func now() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return time.tv_sec
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
