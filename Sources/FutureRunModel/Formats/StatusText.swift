import FutureProcess

/// How a job's end is said in every output and report: `exit 2`, `signal 9 (KILL)`, `timeout`.
package enum StatusText {
    /// `needs build, which failed (exit 2)`: why a job was skipped, as every output and report says it.
    package static func describe(_ reason: SkipReason) -> String {
        let ending =
            switch reason.ending {
            case .failed(let status): "failed (\(describe(status)))"
            case .timedOut: "timed out"
            case .couldNotRun: "could not run"
            case .skipped: "was skipped"
            }
        return "needs \(reason.prerequisite), which \(ending)"
    }

    /// `exit 2`, `signal 9 (KILL)`, `timeout`, `not found (127)`…
    package static func describe(_ status: TerminationStatus) -> String {
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
package enum SignalName {
    package static func of(_ signal: Int32) -> String? {
        let names: [Int32: String] = [
            1: "HUP", 2: "INT", 3: "QUIT", 4: "ILL", 6: "ABRT", 8: "FPE", 9: "KILL", 11: "SEGV", 13: "PIPE",
            14: "ALRM", 15: "TERM", 10: "USR1", 12: "USR2", 24: "XCPU", 25: "XFSZ",
        ]
        return names[signal]
    }
}
