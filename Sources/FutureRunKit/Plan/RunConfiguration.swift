/// Every decision about a run that follows from its options and the machine's facts: how many
/// jobs at once and why fewer, the window, CI markup, colors, the progress line, live output, how
/// the joblog is opened. A value, made without touching the file system: ``Plan`` gathers the
/// facts first (``SystemFacts``) and opens what the configuration names after it.
struct RunConfiguration {
    /// Whether make's jobserver takes part: found in `MAKEFLAGS` and opened (``Jobserver``).
    enum JobserverReach: Equatable {
        /// None announced, or the jobs run on other machines (they take no slot of make's here).
        case none
        case reached
        /// Announced but not open to this recipe (GNU make before 4.4 opens it only to lines
        /// marked `+`): one job at a time, as make does for a sub-make it cannot share with.
        case unreachable
    }

    /// Jobs at once: `-j`, capped by the descriptor and process limits (over hosts: each host's).
    var width: Int
    /// Said once at the start when the width is lower than asked.
    var widthNotice: String?
    /// Over hosts: how many ssh commands may run here at once, within the same limits (`.max`
    /// without hosts: then the width is the limit, and the processes are not counted for it).
    var runningLimit: Int
    var scheduler: Scheduler.Settings
    var reporter: JobReporter.Settings
    var colors: Bool
    var showsProgress: Bool
    /// Whether the oldest job's output is printed as it comes (else when the job is over).
    var streamsLive: Bool
    /// `--joblog`, appended to under `--resume` (it is read, then added to, as GNU parallel does).
    var jobLog: Options.JobLogTarget?
    /// Which jobs may run in the slots' warm shells (`nil`: none).
    var warmShells: WarmShellFit?

    /// - Parameters:
    ///   - hostCount: the hosts of `-S` and `--hosts-file` (0: this machine alone).
    ///   - widthMayGrow: `-j FILE`: the width may be raised while the run goes on.
    init(options: Options, facts: SystemFacts, hostCount: Int, jobserver: JobserverReach, widthMayGrow: Bool = false) {
        var width = options.jobs.width(cpus: facts.cpus)
        (width, widthNotice) = Self.capByDescriptorLimit(width, requested: options.jobs, limit: facts.descriptorLimit)
        if let (fit, notice) = Self.capByProcessLimit(width, requested: options.jobs, facts: facts) {
            width = fit
            widthNotice = notice ?? widthNotice
        }
        if jobserver == .unreachable {
            width = 1
            widthNotice =
                "make's jobserver is not open to this recipe (GNU make before 4.4 opens it only to recipe lines "
                + "marked '+'): running one job at a time; write '+futurerun ...' in the Makefile to share make's -j slots"
        }
        self.width = width
        if hostCount > 0 {
            let (fit, _) = Self.capByDescriptorLimit(Int.max, requested: .count(0), limit: facts.descriptorLimit)
            runningLimit = Self.capByProcessLimit(fit, requested: .count(0), facts: facts)?.0 ?? fit
        } else {
            runningLimit = .max
        }
        scheduler = Scheduler.Settings(
            shell: options.shell, timeout: options.timeout, grace: options.grace, retries: options.retries,
            halt: options.halt, delay: options.delay, workingDirectory: options.workingDirectory,
            // Hosts add slots as they connect, and -j FILE as it is written: room for the most.
            // A block of --pipe is held while its job is in the window: one per slot, and the next.
            window: options.pipe != nil
                ? min(width, 4096) + 1 : (hostCount == 0 && !widthMayGrow ? min(width, 4096) : 4096) * 2 + 64,
            directExec: DirectExec.forRun(options, hostCount: hostCount, facts: facts))

        let environment = facts.environment
        warmShells = WarmShellFit.forRun(options, hostCount: hostCount, facts: facts)
        colors = Style.wantsColor(options.color, isTerminal: facts.stderrIsTerminal, environment: environment)
        let ci = CIFormat.detect(options.ci, environment: environment)
        let inCI = environment["CI"].map { $0 == "true" || $0 == "1" } ?? false
        switch options.progress {
        case .on: showsProgress = true
        case .off: showsProgress = false
        case .auto: showsProgress = facts.stderrIsTerminal && !inCI && !options.quiet && environment["TERM"] != "dumb"
        }
        reporter = JobReporter.Settings(
            quiet: options.quiet, verbose: options.verbose, verboseOnStdout: options.verboseOnStdout,
            quietSuccess: options.quietSuccess, ci: ci, heartbeat: inCI, tailLines: 20)
        // A job whose host drops runs again elsewhere: its output is shown once it is over.
        // A job --memfree stops runs again: its output too is shown once it is over.
        streamsLive =
            options.retries == 0 && hostCount == 0 && options.memoryFree == nil && !options.quietSuccess
            && !ci.holdsOutputUntilDone
        jobLog = options.jobLog
        if options.resume != nil { jobLog?.appends = true }
    }

    /// Each running job holds three descriptors (two pipes and a pidfd): the width within what
    /// `ulimit -n` allows, and why, if it was asked for more.
    static func capByDescriptorLimit(_ width: Int, requested: Options.Jobs, limit: Int?) -> (Int, String?) {
        guard let limit else { return (width, nil) }
        let fit = max(1, (limit - 64) / 4)
        guard width > fit else { return (width, nil) }
        // "No limit" asked for as many as possible: that is no surprise worth a line.
        guard case .count(let count) = requested, count > 0 else { return (fit, nil) }
        return (fit, "running at most \(fit) jobs at once instead of -j \(count): the descriptor limit (ulimit -n) is \(limit)")
    }

    /// A job is a shell and usually a command: about three processes. Under a low process limit,
    /// the width within what is left of it (the processes are counted only when the limit is near);
    /// `nil` when the limit does not lower it.
    static func capByProcessLimit(_ width: Int, requested: Options.Jobs, facts: SystemFacts) -> (Int, String?)? {
        guard let allowed = facts.processLimit, allowed < min(width, 1 << 20) * 3 + 256 else { return nil }
        let fit = max(1, (allowed - facts.processesOfUser() - 16) / 3)
        guard width > fit else { return nil }
        guard case .count(let count) = requested, count > 0 else { return (fit, nil) }
        return (fit, "running at most \(fit) jobs at once instead of -j \(count): the process limit (ulimit -u) is \(allowed)")
    }
}
