import FutureRunEngine
import FutureRunModel

/// Wherever `GITHUB_STEP_SUMMARY` names a file (GitHub Actions sets it), a Markdown table of the
/// jobs appended to that file at the end of the run: each job's status and time, then each failed
/// job's last lines.
package final class StepSummary: Report {
    private let file: ReportFile
    private var rows: [(number: Int, label: String, status: String, time: String)] = []
    private var tails: [Int: TailKeeper] = [:]
    private var failed: [(label: String, lines: [String])] = []
    private var tally = Tally()

    package init(path: String) throws(UsageError) {
        file = try ReportFile(path: path, append: true)
    }

    package var error: String? { file.error }

    package func output(_ job: Job, _ bytes: [UInt8], isError: Bool) {
        var tail = tails[job.number] ?? TailKeeper(limit: 20)
        tail.feed(bytes)
        tails[job.number] = tail
    }

    package func finished(_ outcome: JobOutcome) {
        let tail = tails.removeValue(forKey: outcome.job.number)
        tally.add(outcome)
        rows.append(
            (
                outcome.job.number, outcome.job.label, Self.status(outcome),
                outcome.isCached ? "cached" : DurationFormat.format(outcome.result.wallTime)
            ))
        if outcome.status.isFailure { failed.append((outcome.job.label, tail?.text ?? [])) }
    }

    package func close() { file.write(Self.markdown(rows: rows, failed: failed, tally: tally)) }

    /// GitHub takes at most 1 MiB of a step's summary: the Markdown stays below this, whatever the
    /// run, dropping table rows and then failed jobs' tails (each said) once it would pass it.
    static let budget = 1_000_000

    /// The table and the failed jobs' last lines, as Markdown, within ``budget`` bytes.
    static func markdown(
        rows: [(number: Int, label: String, status: String, time: String)], failed: [(label: String, lines: [String])],
        tally: Tally
    )
        -> String
    {
        var text = "### futurerun: \(tally.total) jobs, \(tally.succeeded) ok, \(tally.failed) failed"
        if tally.skipped > 0 { text += ", \(tally.skipped) skipped" }
        if tally.flaky > 0 { text += ", \(tally.flaky) flaky" }
        if tally.cached > 0 { text += ", \(tally.cached) cached" }
        text += "\n\n| # | job | status | time |\n|---:|---|---|---:|\n"
        // Half the budget for the table, the rest for the failed jobs' tails.
        var shown = 0
        for row in rows {
            let line = "| \(row.number) | \(plainText(row.label)) | \(row.status) | \(row.time) |\n"
            if text.utf8.count + line.utf8.count > budget / 2 { break }
            text += line
            shown += 1
        }
        if shown < rows.count {
            text += "\n… and \(rows.count - shown) more jobs (the summary's size is limited; see the job log)\n"
        }
        for (index, job) in failed.enumerated() {
            var block = "\n<details><summary>\(plainText(job.label)) failed: its last lines</summary>\n\n```\n"
            block +=
                job.lines.map { SafeText.sanitize($0).replacing("```", with: "`\u{200B}``") }.joined(separator: "\n")
                + "\n```\n</details>\n"
            if text.utf8.count + block.utf8.count > budget - 200 {
                text +=
                    "\n… the last lines of \(failed.count - index) more failed jobs are left out (the summary's size is limited)\n"
                break
            }
            text += block
        }
        return text + "\n"
    }

    private static func status(_ outcome: JobOutcome) -> String {
        switch outcome.status {
        case .succeeded where outcome.isFlaky: "⚠️ flaky: ok after \(outcome.attempts) attempts"
        case .succeeded: "✅ ok"
        case .failed(.timedOut): "❌ timeout"
        case .failed(let termination): "❌ \(StatusText.describe(termination))"
        case .unrunnable: "❌ could not run"
        case .stopped: "⏹ stopped"
        case .notStarted: "⏭ not started"
        case .skipped(let reason): "⏭ skipped: \(plainText(StatusText.describe(reason)))"
        }
    }

    /// Text that GitHub shows as it is, in a table cell or in HTML: control characters made
    /// visible, and every ASCII punctuation mark a numeric character reference, so that no
    /// Markdown, HTML, link, image, mention or table syntax can form from it.
    static func plainText(_ text: String) -> String {
        var plain = ""
        for scalar in SafeText.sanitize(text).unicodeScalars {
            let isPlain = scalar == " " || scalar.properties.isAlphabetic || scalar.properties.numericType != nil
            if scalar.isASCII, !isPlain {
                plain += "&#\(scalar.value);"
            } else {
                plain.unicodeScalars.append(scalar)
            }
        }
        return plain
    }
}
