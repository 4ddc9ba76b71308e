import FoundationEssentials
import FutureCore
import FutureProcess

/// futurerun's JSON Lines, written by `--json` (and each `--results` job's `meta.json`) and read back
/// by `--shard-timings`: one object per finished job, fields per the contract: number, name (the
/// job's whole name), command, status, exit, signal, timed_out, attempts, start (Unix time), wall,
/// user, sys (seconds), max_rss, stdout_bytes, stderr_bytes (bytes); path (how it ran: `direct`,
/// `warm`, `shell`, or `cached` when `--cache` replayed it, ``JobPath``) once it ran; `flaky: true`
/// when it passed after failed attempts; in a run over hosts (`-S`),
/// host; where admission acted, requeued (times), waited (seconds) with waited_for (`memory`,
/// `load`), suspended (seconds).
package enum JSONLinesFormat {
    package static func object(_ outcome: JobOutcome) -> String {
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
                ("name", JSONText.string(outcome.job.name)),
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
            ] + (outcome.path.map { [("path", JSONText.string($0.rawValue))] } ?? [])
            + (outcome.isFlaky ? [("flaky", "true")] : [])
            + (outcome.host.map { [("host", JSONText.string($0))] } ?? []) + skipReason(outcome.status)
            + (outcome.requeued > 0 ? [("requeued", "\(outcome.requeued)")] : [])
            + admission(outcome.admission)
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// `"waited": 1.020, "waited_for": "memory"` and `"suspended": 0.500`, where admission cost
    /// the job time.
    private static func admission(_ times: AdmissionTimes) -> [(String, String)] {
        (times.waited > .zero
            ? [("waited", String(format3: times.waited.seconds)), ("waited_for", JSONText.string(times.waitedFor))] : [])
            + (times.suspended > .zero ? [("suspended", String(format3: times.suspended.seconds))] : [])
    }

    /// `"skipped": "why"` for a job skipped because a job it waits for did not succeed.
    private static func skipReason(_ status: JobStatus) -> [(String, String)] {
        guard case .skipped(let reason) = status else { return [] }
        return [("skipped", JSONText.string(StatusText.describe(reason)))]
    }

    /// What `--shard-timings` reads of a line: a job's name, command and wall time.
    package struct Timing: Decodable, Equatable {
        package var name: String?
        package var command: String?
        package var wall: Double
    }

    /// The timings of `text`, one JSON object a line, written by futurerun or by any tool (any
    /// spacing and escapes: a real JSON decoder reads them), and how many non-blank lines were not
    /// such an object or held no finite, non-negative `wall` (``Durations``).
    package static func decode(_ text: String) -> (records: [Timing], skipped: Int) {
        let decoder = JSONDecoder()
        var records: [Timing] = []
        var skipped = 0
        for line in TextFile.lines(text) where line.contains(where: { !$0.isWhitespace }) {
            guard let timing = try? decoder.decode(Timing.self, from: Data(line.utf8)), Durations.seconds(timing.wall) != nil
            else {
                skipped += 1
                continue
            }
            records.append(timing)
        }
        return (records, skipped)
    }
}
