import FutureCore
import FutureProcess
import FutureRunEngine
import FutureRunModel
import Glibc

/// `--timeline FILE`: a standalone SVG of the run, written when it ends (also when interrupted):
/// one row per slot (per host and slot, in a run over hosts), each job attempt a bar from its start
/// to its end, colored by how it ended, with a tooltip; skipped jobs listed; with jobs that wait for
/// jobs, the critical path outlined. An attempt stopped and queued again (`--memfree`, a lost host)
/// is a grey bar; the tooltip of a job's last bar says how long admission held it and suspended it.
/// Collects as jobs finish; ``TimelineDrawing`` draws.
package final class Timeline: Report {
    private let path: String
    package private(set) var error: String?
    private let started = ContinuousClock.now
    private var bars: [TimelineDrawing.Bar] = []
    private var skipped: [(number: Int, label: String, reason: String)] = []
    private var headers: [Int: JobHeader] = [:]
    private var tally = Tally()

    /// Checks now that `path` can be written (creating a file empty if none exists); the picture
    /// replaces it at the end, whole (``ReportFile/replace(_:with:)``): an earlier picture stays
    /// until then. A FIFO or device is only checked, not opened: opening a FIFO would wait for a
    /// reader, and closing it would end that reader's input before the picture is written.
    package init(path: String) throws(UsageError) {
        switch ReportFile.Destination(path) {
        case .inPlace(create: false), .standardStream:
            guard access(path.systemPath, W_OK) == 0 else {
                throw .cannotWrite(path: path, reason: String(cString: strerror(errno)))
            }
        case .inPlace(create: true), .regularFile:
            let descriptor = Glibc.open(path.systemPath, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw .cannotWrite(path: path, reason: String(cString: strerror(errno))) }
            Glibc.close(descriptor)
        }
        self.path = path
    }

    package func finished(_ outcome: JobOutcome) {
        tally.add(outcome)
        let job = outcome.job
        if let header = job.header { headers[job.number] = header }
        switch outcome.status {
        case .skipped(let reason): skipped.append((job.number, job.label, StatusText.describe(reason)))
        // Never ran (its input could not be a job, no host was left): no bar, a line like a skip's.
        case .unrunnable(let reason): skipped.append((job.number, job.label, "could not run: " + reason))
        case .notStarted: break
        default:
            // Each bar keeps at most this much of its command, so the picture and the memory behind
            // it grow with the job count, not with the commands' length.
            let command = Self.shortened(outcome.commandLine, to: Self.commandBudget)
            let attempts = outcome.earlierAttempts + [AttemptRecord(slot: outcome.slot, host: outcome.host, outcome.result)]
            for (index, attempt) in attempts.enumerated() {
                let last = index == attempts.count - 1
                // Each attempt in the colour of its own end: a timed-out try is orange, not red.
                let status =
                    last
                    ? Self.drawn(outcome.status)
                    : attempt.requeued ? .stopped : attempt.status == .timedOut ? .timedOut : .failed
                let detail =
                    attempt.requeued
                    ? "stopped by futurerun and queued again (not an attempt)"
                    : Self.detail(attempt.status, last ? outcome.status : .failed(attempt.status))
                        + (last ? Self.admission(outcome.admission) : "")
                        + (last && outcome.isFlaky ? " (flaky: it passed after \(outcome.failedAttempts) failed)" : "")
                bars.append(
                    TimelineDrawing.Bar(
                        number: job.number, label: outcome.isCached ? job.label + " (cached)" : job.label,
                        command: command, outcome: status,
                        detail: outcome.isCached ? detail + " (replayed from the cache: no process ran)" : detail,
                        slot: max(1, attempt.slot), host: attempt.host,
                        start: attempt.start,
                        wall: attempt.wall.seconds, cpu: attempt.cpu.seconds, maxResidentBytes: attempt.maxResidentBytes,
                        attempt: index + 1, attempts: attempts.count))
            }
        }
    }

    /// The most of a command a tooltip shows, in bytes.
    static let commandBudget = 1000

    /// `bytes` as text, cut to `budget` bytes (at a character boundary) with `…` when longer.
    static func shortened(_ bytes: [UInt8], to budget: Int) -> String {
        guard bytes.count > budget else { return String(decoding: bytes, as: UTF8.self) }
        var end = budget
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: bytes[..<end], as: UTF8.self) + "…"
    }

    private static func drawn(_ status: JobStatus) -> TimelineDrawing.Outcome {
        switch status {
        case .succeeded: .ok
        case .failed(.timedOut): .timedOut
        case .stopped: .stopped
        default: .failed
        }
    }

    /// `, waited 1.02s for memory, suspended 0.50s`: what admission cost the attempt.
    private static func admission(_ times: AdmissionTimes) -> String {
        (times.waited == .zero ? "" : ", waited \(DurationFormat.format(times.waited)) for \(times.waitedFor)")
            + (times.suspended == .zero ? "" : ", suspended \(DurationFormat.format(times.suspended))")
    }

    /// How the attempt ended, in words said once: `ok`, `failed: exit 2`, `timed out`, `stopped by
    /// futurerun`.
    private static func detail(_ termination: TerminationStatus, _ status: JobStatus) -> String {
        switch (status, termination) {
        case (.stopped, _): "stopped by futurerun"
        case (_, .exited(0)): "ok"
        case (_, .timedOut): "timed out"
        default: "failed: " + StatusText.describe(termination)
        }
    }

    package func close() {
        var drawn = bars
        for index in TimelineDrawing.criticalPath(drawn, headers: headers) { drawn[index].critical = true }
        let caption = tally.summary(wall: .now - started, style: Style(colors: false)).first ?? ""
        error = ReportFile.replace(path, with: Array(TimelineDrawing.svg(bars: drawn, skipped: skipped, caption: caption).utf8))
    }
}
