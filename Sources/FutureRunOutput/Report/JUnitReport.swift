import FutureCore
import FutureProcess
import FutureRunEngine
import FutureRunModel
import Glibc

/// `--junit FILE`: JUnit XML for CI dashboards, one testcase per job with its time; a failed job
/// gets a `<failure>` with its exit status or signal and the tail of its stderr; the last 200 lines
/// of stdout and stderr go to `system-out`/`system-err`, after a line saying how many came before. The file is valid XML after every job (the
/// closing tags are rewritten behind each new testcase, and a failed write is cut back), so an
/// interrupted run keeps what completed; the counts are added to `<testsuite>` at the end.
package final class JUnitReport: Report {
    private let file: ReportFile
    private var written = 0
    private var tails: [Int: (out: TailKeeper, err: TailKeeper)] = [:]
    private var counts = JUnitFormat.Counts()
    private let suite: String

    /// - Parameter suite: the `<testsuite>`'s name (the shard's, under `--shard`).
    package init(path: String, suite: String) throws(UsageError) {
        file = try ReportFile(path: path, append: false)
        self.suite = suite
        append(JUnitFormat.header(nil, suite: suite))
    }

    package var error: String? { file.error }

    package func output(_ job: Job, _ bytes: [UInt8], isError: Bool) {
        var tail = tails[job.number] ?? (TailKeeper(limit: 200), TailKeeper(limit: 200))
        if isError { tail.err.feed(bytes) } else { tail.out.feed(bytes) }
        tails[job.number] = tail
    }

    package func finished(_ outcome: JobOutcome) {
        let tail = tails.removeValue(forKey: outcome.job.number) ?? (TailKeeper(limit: 0), TailKeeper(limit: 0))
        counts.add(outcome)
        append(JUnitFormat.testcase(outcome, stdout: tail.out.markedText, stderr: tail.err.markedText))
    }

    /// Writes `text` in place of the footer, then the footer again.
    private func append(_ text: String) {
        let bytes = Array(text.utf8)
        // On a failed write (a full disk) the file is cut back to the last testcase and its closing
        // tags: it stays valid XML, and the failure is reported at the end.
        file.overwrite(bytes + JUnitFormat.footer, at: written, restoring: JUnitFormat.footer)
        if file.error == nil { written += bytes.count }
    }

    package func close() {
        // Put the counts on <testsuite>: read back what was written, rewrite it with them.
        let descriptor = file.stream.descriptor
        var body = [UInt8](repeating: 0, count: written)
        guard file.error == nil, pread(descriptor, &body, written, 0) == written else { return }
        let old = Array(JUnitFormat.header(nil, suite: suite).utf8)
        file.overwrite(
            Array(JUnitFormat.header(counts, suite: suite).utf8) + body[old.count...] + JUnitFormat.footer, at: 0,
            restoring: body + JUnitFormat.footer)
    }
}
