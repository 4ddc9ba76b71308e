import FutureProcess

/// `--resume` and `--resume-failed` with `--joblog FILE`, as GNU parallel defines them: jobs are
/// known by their number (the joblog's Seq). `--resume` skips every job the joblog holds but one a
/// signal ended (killed under it, by a stop or by the end of a Slurm allocation: not done);
/// `--resume-failed` runs again those it records as failed (Exitval or Signal not 0) and skips the
/// rest it holds. Jobs it does not hold run: those that never started, and those a stop ended,
/// which the joblog leaves out (``JobLog``). A joblog written by GNU parallel works the same.
package struct ResumeLog: Sendable, Equatable {
    package enum Mode: Sendable, Equatable {
        /// `--resume`: skips every job the joblog holds, but those a signal ended.
        case done
        /// `--resume-failed`: runs again those it records as failed.
        case failed

        /// The option that asks for it.
        package var option: String {
            switch self {
            case .done: "--resume"
            case .failed: "--resume-failed"
            }
        }
    }

    package let mode: Mode
    /// Each logged job number, and how that run ended (the last line for a number wins).
    package private(set) var logged: [Int: TerminationStatus] = [:]
    /// Lines of the joblog that were not records (``JobLogFormat/decode(_:)``).
    package let skippedLines: Int

    package init(mode: Mode, joblog text: String) {
        self.mode = mode
        let (records, skipped) = JobLogFormat.decode(text)
        skippedLines = skipped
        for record in records {
            logged[record.number] =
                record.exit == -1
                ? .timedOut
                : record.signal != 0 ? .signaled(Int32(clamping: record.signal)) : .exited(Int32(clamping: record.exit))
        }
    }

    /// How the earlier run ended job `number`, when this run skips it (`nil`: it runs).
    package func skip(_ number: Int) -> JobStatus? {
        guard let status = logged[number] else { return nil }
        switch mode {
        case .done:
            if case .signaled = status { return nil }
            return status.succeeded ? .succeeded : .failed(status)
        case .failed: return status.succeeded ? .succeeded : nil
        }
    }
}
