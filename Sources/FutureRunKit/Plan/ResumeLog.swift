/// `--resume` and `--resume-failed` with `--joblog FILE`, as GNU parallel defines them: jobs are
/// known by their number (the joblog's Seq). `--resume` skips every job the joblog holds;
/// `--resume-failed` runs again those it records as failed (Exitval or Signal not 0) and skips the
/// rest it holds. Jobs it does not hold run. A joblog written by GNU parallel works the same.
struct ResumeLog: Sendable, Equatable {
    enum Mode: String, Sendable, Equatable {
        case done = "--resume"
        case failed = "--resume-failed"
    }

    let mode: Mode
    /// Each logged job number, and whether that run succeeded (the last line for a number wins).
    private(set) var logged: [Int: Bool] = [:]

    init(mode: Mode, joblog text: String) {
        self.mode = mode
        for line in text.split(separator: "\n") where !line.hasPrefix("Seq\t") {
            let fields = line.split(separator: "\t", maxSplits: 8, omittingEmptySubsequences: false)
            guard fields.count == 9, let number = Int(fields[0]), let exit = Int(fields[6]), let signal = Int(fields[7]) else {
                continue
            }
            logged[number] = exit == 0 && signal == 0
        }
    }

    /// How the earlier run ended job `number`, when this run skips it (`nil`: it runs).
    func skip(_ number: Int) -> JobStatus? {
        guard let succeeded = logged[number] else { return nil }
        switch mode {
        case .done: return succeeded ? .succeeded : .failed(.exited(1))
        case .failed: return succeeded ? .succeeded : nil
        }
    }
}
