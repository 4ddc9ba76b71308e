import FutureCore
import FutureProcess
import FutureRunEngine
import FutureRunModel
import Glibc

/// What happens as each job's block is printed, in both output modes: its bytes pass through the
/// reports, then the status line, the reports' record and the tally. Also the periodic things: the
/// progress line and, in CI, the line saying what is still running.
///
/// Used by the printer thread only.
package final class JobReporter {
    package struct Settings {
        package var quiet = false
        package var verbose = false
        /// `-v` prints on stdout (GNU's grammar), not stderr.
        package var verboseOnStdout = false
        package var quietSuccess = false
        package var ci: CIFormat = .none
        package var heartbeat = false
        package var tailLines = 20

        package init(
            quiet: Bool = false, verbose: Bool = false, verboseOnStdout: Bool = false, quietSuccess: Bool = false,
            ci: CIFormat = .none, heartbeat: Bool = false, tailLines: Int = 20
        ) {
            (self.quiet, self.verbose, self.verboseOnStdout, self.quietSuccess) = (quiet, verbose, verboseOnStdout, quietSuccess)
            (self.ci, self.heartbeat, self.tailLines) = (ci, heartbeat, tailLines)
        }
    }

    package let console: Console
    package let settings: Settings
    private let reports: [Report]
    /// `--cache`: stores the end of each job that ran.
    private let cache: CacheRecorder?
    /// Whether a report takes the jobs' stdout, and their stderr, instead of the console.
    private let reportsTake: (stdout: Bool, stderr: Bool)
    private let source: JobPipeline
    private let start = ContinuousClock.now
    package private(set) var tally = Tally()
    private var failedTails: [(label: String, lines: [String])] = []
    private var lastHeartbeat = ContinuousClock.now
    private var running: () -> [(label: String, since: Duration)]
    /// Why jobs wait that `-j` would start, if they do.
    private let heldBack: () -> String?

    private let notices: () -> [String]
    /// A CI group is open: its end is owed before the next marker.
    private var groupOpen = false
    /// GitHub's workflow commands are stopped (job bytes have been written since the last marker).
    private var commandsStopped = false
    private let commandToken = CIFormat.randomToken()

    package init(
        console: Console, settings: Settings, reports: [Report], source: JobPipeline, cache: CacheRecorder? = nil,
        running: @escaping () -> [(label: String, since: Duration)], heldBack: @escaping () -> String? = { nil },
        notices: @escaping () -> [String] = { [] }
    ) {
        self.heldBack = heldBack
        self.notices = notices
        self.cache = cache
        self.console = console
        self.settings = settings
        self.reports = reports
        reportsTake = (reports.contains { $0.takes(stderr: false) }, reports.contains { $0.takes(stderr: true) })
        self.source = source
        self.running = running
    }

    package var style: Style { console.style }

    /// Before a job's bytes: `-v` shows its command; CI formats open a group for a `finished` job
    /// (a job streamed live gets none: the group's title tells how it ended).
    func beginBlock(_ job: Job, commandLine: String, finished outcome: JobOutcome?) throws(OutputError) {
        if let outcome, let group = settings.ci.groupStart(outcome) {
            try marker(group)
            groupOpen = true
        }
        if settings.verbose {
            // GNU's grammar prints it on stdout, as GNU parallel does.
            if settings.verboseOnStdout {
                try console.jobOutput(Array((commandLine + "\n").utf8))
            } else {
                try console.say(style.dim(SafeText.sanitize(commandLine)))
            }
        }
    }

    /// A chunk of the job's output: to the terminal if `show`, to the reports always. `raw`: the
    /// job's own bytes, when `bytes` carry a prefix (`--tag`), for the cache.
    package func output(_ job: Job, _ bytes: [UInt8], raw: [UInt8]? = nil, isError: Bool, show: Bool) throws(OutputError) {
        if show, !(isError ? reportsTake.stderr : reportsTake.stdout) {
            try stopCommands()
            if isError { try console.jobError(bytes) } else { try console.jobOutput(bytes) }
        }
        for report in reports { report.output(job, bytes, isError: isError) }
        cache?.output(job, raw ?? bytes, isError: isError)
    }

    /// A line of futurerun's CI markup: workflow commands are obeyed again first.
    private func marker(_ line: String) throws(OutputError) {
        if commandsStopped, let pair = settings.ci.stopCommands(token: commandToken) {
            try console.say(pair.resume)
            commandsStopped = false
        }
        try console.say(line)
    }

    /// Before bytes futurerun does not control: GitHub obeys no workflow command in them.
    private func stopCommands() throws(OutputError) {
        guard !commandsStopped, let pair = settings.ci.stopCommands(token: commandToken) else { return }
        try console.say(pair.stop)
        commandsStopped = true
    }

    /// After the job's block: status line, group end, annotations, reports, tally.
    package func finish(_ outcome: JobOutcome, tail: [String]) throws(OutputError) {
        try sayNotices()
        noteLostOutput(of: outcome, outcome.result.stdout, "stdout")
        noteLostOutput(of: outcome, outcome.result.stderr, "stderr")
        tally.add(outcome)
        for report in reports { report.finished(outcome) }
        cache?.finished(outcome)
        for line in reports.compactMap({ $0.takeLine(for: outcome.job) }) {
            try stopCommands()
            try console.jobOutput(Array((line + "\n").utf8))
        }
        if groupOpen, let end = settings.ci.groupEnd(outcome) {
            try marker(end)
            groupOpen = false
        }
        guard outcome.status != .notStarted else { return }
        // --quiet-success: failures and the summary only.
        if !settings.quiet, !(settings.quietSuccess && !outcome.status.isFailure) {
            try console.say(StatusLine.format(outcome, total: source.knownTotal, style: style, width: console.width))
        } else if case .unrunnable(let reason) = outcome.status {
            // Quiet hides the jobs' lines, never why one could not run: no job output says it.
            try console.say("futurerun: job \(outcome.job.number) (\(outcome.job.label)) could not run: \(reason)")
        }
        if outcome.status.isFailure {
            if let annotation = settings.ci.failureAnnotation(outcome) { try marker(annotation) }
            if settings.quietSuccess { failedTails.append((outcome.job.label, tail)) }
        }
        try drawProgress()
    }

    /// Said once, when held output first found the spill directory full.
    private var saidSpaceShortage = false

    private func sayNotices() throws(OutputError) {
        for notice in notices() { try console.say("futurerun: " + notice) }
        if !saidSpaceShortage, let shortage = CapturedOutput.spaceShortage {
            saidSpaceShortage = true
            try console.say(
                "futurerun: jobs wait for spill space in \(SpillSpace.directory) (\(String(cString: strerror(shortage.errno)))): "
                    + "their output waits in memory and they go on as space frees")
        }
    }

    /// Called about once a second while waiting: redraws progress; in CI, after 30 s of silence,
    /// says what is still running.
    func tick() throws(OutputError) {
        try sayNotices()
        try drawProgress()
        guard settings.heartbeat else { return }
        let now = ContinuousClock.now
        guard now - console.lastWrite >= .seconds(30), now - lastHeartbeat >= .seconds(30) else { return }
        lastHeartbeat = now
        let list = running().prefix(5).map { "\(SafeText.sanitize($0.label)) (\(DurationFormat.format($0.since)))" }
        guard !list.isEmpty else { return }
        try console.say("futurerun: still running after \(DurationFormat.format(now - start)): " + list.joined(separator: ", "))
    }

    private func drawProgress() throws(OutputError) {
        guard console.showsProgress else { return }
        let total = source.knownTotal.map(String.init) ?? "?"
        var text = "[\(tally.total)/\(total)] \(running().count) running"
        if tally.failed > 0 { text += ", " + style.red("\(tally.failed) failed") }
        if let reason = heldBack() { text += ", held back by " + SafeText.sanitize(reason) }
        if let known = source.knownTotal, tally.total > 0, known > tally.total {
            let elapsed = (ContinuousClock.now - start).seconds
            let eta = Duration.seconds(elapsed / Double(tally.total) * Double(known - tally.total))
            text += ", ETA \(DurationFormat.format(eta))"
        }
        try console.progress(text)
    }

    /// The closing lines: summary, then (with `--quiet-success`) the failed jobs' last lines.
    package func close() throws(OutputError) {
        try console.clearProgress()
        try sayNotices()
        for report in reports { report.close() }
        cache?.close()
        if let notice = cache?.notice { try console.say("futurerun: " + notice) }
        if !settings.quiet {
            for line in tally.summary(wall: .now - start, style: style) { try console.say(console.fitted(line)) }
        }
        for failed in failedTails {
            try console.say(style.red("── \(SafeText.sanitize(failed.label)) failed; its last lines:"))
            // The replayed lines are job output: no workflow command in them either.
            if !failed.lines.isEmpty { try stopCommands() }
            for line in failed.lines { try console.say("  " + SafeText.sanitize(line)) }
        }
        if commandsStopped, let pair = settings.ci.stopCommands(token: commandToken) { try console.say(pair.resume) }
    }

    /// Output that could not be held (the spill directory was full).
    private var lostOutput: [String] = []

    private func noteLostOutput(of outcome: JobOutcome, _ stream: CapturedOutput, _ name: String) {
        guard let failure = stream.failure else { return }
        lostOutput.append(
            "job \(outcome.job.number) (\(SafeText.sanitize(outcome.job.label))): \(failure.lostBytes) bytes of its \(name) were lost: \(failure.error)"
        )
    }

    /// Problems met on the way (a report file that could not be written, output that could not be
    /// held): each is reported at the end and makes the run fail.
    package var errors: [String] { reports.compactMap(\.error) + [cache?.error].compactMap { $0 } + lostOutput }
}
