import FutureRunEngine
import FutureRunModel

/// What the run did, counted as jobs finish: for the summary and the exit status.
package struct Tally: Sendable {
    package private(set) var total = 0
    package private(set) var succeeded = 0
    package private(set) var failed = 0
    package private(set) var stopped = 0
    package private(set) var notStarted = 0
    /// Jobs skipped because a job they wait for did not succeed.
    package private(set) var skipped = 0
    /// Jobs replayed from the cache (`--cache`), and jobs that passed after failing (`--retries`).
    package private(set) var cached = 0
    package private(set) var flaky = 0
    private(set) var jobTime: Duration = .zero
    /// The slowest jobs, slowest first (at most 3).
    private(set) var slowest: [(label: String, time: Duration)] = []
    /// Admission at work (`--memfree`, `--memsuspend`, `--load`): time jobs waited to start, by
    /// what held them; stops and requeues; suspensions.
    package private(set) var waited: [String: Duration] = [:]
    package private(set) var requeued = 0
    private(set) var suspendedJobs = 0
    package private(set) var suspended: Duration = .zero

    package init() {}

    package mutating func add(_ outcome: JobOutcome) {
        total += 1
        switch outcome.status {
        case .succeeded: succeeded += 1
        case .failed, .unrunnable: failed += 1
        case .stopped: stopped += 1
        case .notStarted: notStarted += 1
        case .skipped: skipped += 1
        }
        if outcome.isCached { cached += 1 }
        if outcome.isFlaky { flaky += 1 }
        requeued += outcome.requeued
        if outcome.admission.waited > .zero { waited[outcome.admission.waitedFor, default: .zero] += outcome.admission.waited }
        if outcome.admission.suspended > .zero {
            suspendedJobs += 1
            suspended += outcome.admission.suspended
        }
        guard !outcome.status.neverRan else { return }
        let time = outcome.result.wallTime
        jobTime += time
        if slowest.count < 3 || time > slowest.last!.time {
            slowest.append((outcome.job.label, time))
            slowest.sort { $0.time > $1.time }
            if slowest.count > 3 { slowest.removeLast() }
        }
    }

    /// GNU parallel's convention: 0 if all succeeded, else the number of failed jobs, 101 past 100.
    /// GNU parallel's: the number of jobs that did not succeed, up to 101. A job futurerun
    /// stopped counts (a signal or a halt policy gives the run a status of its own first; what
    /// is left is a run whose Slurm allocation ended under it).
    package var exitStatus: Int32 {
        failed + stopped == 0 ? 0 : Int32(min(failed + stopped, 101))
    }

    /// The closing lines:
    ///
    ///     5 jobs in 3.52s: 4 ok (2 cached, 1 flaky), 1 failed · job time 7.10s, 2.02x parallel
    ///     slowest: make test 3.21s, make lint 2.10s, make docs 0.53s
    ///     admission: waited 4.02s for memory, 1 job requeued, 2 suspended for 1.50s
    ///
    /// The speed-up is given only when it means something: two jobs or more ran and the run took
    /// 100 ms or more (below that, futurerun's own start-up is most of the wall time).
    package func summary(wall: Duration, style: Style) -> [String] {
        let notes = [cached > 0 ? "\(cached) cached" : nil, flaky > 0 ? style.yellow("\(flaky) flaky") : nil].compactMap { $0 }
        var parts = ["\(succeeded) ok" + (notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ")")]
        if failed > 0 { parts.append(style.red("\(failed) failed")) }
        if stopped > 0 { parts.append(style.yellow("\(stopped) stopped")) }
        if skipped > 0 { parts.append(style.yellow("\(skipped) skipped")) }
        if notStarted > 0 { parts.append("\(notStarted) not started") }
        var speed = ""
        if total - notStarted - skipped >= 2, wall >= .milliseconds(100), jobTime > .zero {
            speed = ", \((jobTime.seconds / wall.seconds * 100).rounded() / 100)x parallel"
        }
        var lines = [
            "\(total) job\(total == 1 ? "" : "s") in \(DurationFormat.format(wall)): \(parts.joined(separator: ", "))"
                + " · job time \(DurationFormat.format(jobTime))\(speed)"
        ]
        // Only worth a line when some job took a noticeable time.
        if slowest.count > 1, let top = slowest.first, top.time >= .milliseconds(100) {
            let list = slowest.map { "\(SafeText.sanitize($0.label)) \(DurationFormat.format($0.time))" }
            lines.append("slowest: " + list.joined(separator: ", "))
        }
        if let admission = admissionSummary { lines.append(admission) }
        return lines
    }

    /// What admission did, if anything: `admission: waited 4.02s for memory, 1 job requeued, 2
    /// suspended for 1.50s`.
    private var admissionSummary: String? {
        var parts = waited.sorted { $0.key < $1.key }.map { "waited \(DurationFormat.format($0.value)) for \($0.key)" }
        if requeued > 0 { parts.append("\(requeued) job\(requeued == 1 ? "" : "s") requeued") }
        if suspendedJobs > 0 { parts.append("\(suspendedJobs) suspended for \(DurationFormat.format(suspended))") }
        return parts.isEmpty ? nil : "admission: " + parts.joined(separator: ", ")
    }
}
