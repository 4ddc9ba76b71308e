/// What the run did, counted as jobs finish: for the summary and the exit status.
struct Tally: Sendable {
    private(set) var total = 0
    private(set) var succeeded = 0
    private(set) var failed = 0
    private(set) var stopped = 0
    private(set) var notStarted = 0
    /// Jobs skipped because a job they wait for did not succeed.
    private(set) var skipped = 0
    private(set) var jobTime: Duration = .zero
    /// The slowest jobs, slowest first (at most 3).
    private(set) var slowest: [(label: String, time: Duration)] = []

    init() {}

    mutating func add(_ outcome: JobOutcome) {
        total += 1
        switch outcome.status {
        case .succeeded: succeeded += 1
        case .failed, .unrunnable: failed += 1
        case .stopped: stopped += 1
        case .notStarted: notStarted += 1
        case .skipped: skipped += 1
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
    var exitStatus: Int32 {
        failed == 0 ? 0 : Int32(min(failed, 101))
    }

    /// The closing lines:
    ///
    ///     5 jobs in 3.52s: 4 ok, 1 failed · job time 7.10s, 2.02x parallel
    ///     slowest: make test 3.21s, make lint 2.10s, make docs 0.53s
    ///
    /// The speed-up is given only when it means something: two jobs or more ran and the run took
    /// 100 ms or more (below that, futurerun's own start-up is most of the wall time).
    func summary(wall: Duration, style: Style) -> [String] {
        var parts = ["\(succeeded) ok"]
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
            let list = slowest.map { "\(Style.sanitize($0.label)) \(DurationFormat.format($0.time))" }
            lines.append("slowest: " + list.joined(separator: ", "))
        }
        return lines
    }
}
