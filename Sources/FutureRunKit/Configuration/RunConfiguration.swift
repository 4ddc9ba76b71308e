import FutureRunEngine
import FutureRunModel
import FutureRunOptions
import FutureRunOutput

/// Every decision about a run that follows from its options and the facts (``RunFacts``): the
/// shell, how many jobs at once and why fewer, the window, CI markup,
/// colors, the progress line, live output, how the joblog is opened, the cache's settings. A
/// value, made without touching the system: the facts are gathered before it, and
/// ``RunResources`` opens what it names after it.
package struct RunConfiguration {
    /// The options as the run reads them: `-j FILE` as what the file says now, the shell chosen.
    package var options: Options
    /// Where the jobs run (``LaunchKinds``), as the facts prepared it.
    package var site: any LaunchSite
    /// The CPUs `-j` counts: this machine's, or the allocation's slots.
    package var cpus: Int
    /// Jobs at once: `-j`, capped by the descriptor and process limits (over hosts: each host's).
    package var width: Int
    /// Said once at the start when the width is lower than asked.
    var widthNotice: String?
    /// Over hosts: how many ssh commands may run here at once, within the same limits (`.max`
    /// without hosts: then the width is the limit, and the processes are not counted for it).
    package var runningLimit: Int
    package var scheduler: Scheduler.Settings
    package var reporter: JobReporter.Settings
    package var colors: Bool
    package var showsProgress: Bool
    /// Whether the oldest job's output is printed as it comes (else when the job is over).
    package var streamsLive: Bool
    /// `--joblog`, appended to under `--resume` (it is read, then added to, as GNU parallel does).
    package var jobLog: Options.JobLogTarget?
    /// `-j FILE`, read again as jobs end (`nil`: `-j` is a number).
    package var jobsFile: JobsFile?
    /// Which jobs may run in the slots' warm shells (`nil`: none).
    package var warmShells: WarmShellFit?
    /// `--cache`: the store's settings (`nil`: no cache, or a dry run, which neither reads nor
    /// makes the store).
    package var cache: JobCache.Settings?
    /// Said once at the start: the shell chosen for exported functions, input read from a terminal.
    var startNotices: [String] = []

    /// - Throws: what the options ask of the facts that they do not give (a shape GNU's grammar
    ///   means, more memory than there is), or a `--cache-input` template that does not parse.
    package init(options given: Options, facts: RunFacts) throws(UsageError) {
        var system = facts.system
        site = facts.site
        // --slurm: the allocation's slots are the CPUs `-j` counts.
        if let cpus = site.cpus { system.cpus = cpus }
        cpus = system.cpus
        (options, startNotices) = Self.settle(given, facts: facts)
        try Self.check(options, facts: facts)
        if Self.readsStandardInput(options.source), system.stdinIsTerminal {
            startNotices.append(Self.terminalNotice(options.source))
        }
        let traits = site.traits
        (width, widthNotice) = Self.width(options.jobs, system: system, jobserver: site.jobserverReach)
        runningLimit = traits.capsCommandsHere ? Self.runningLimit(system) : .max
        scheduler = Scheduler.Settings(
            shell: options.shell, timeout: options.timeout, grace: options.grace, retries: options.retries,
            halt: options.halt, delay: options.delay, workingDirectory: options.workingDirectory,
            // Hosts add slots as they connect, and -j FILE as it is written: room for the most.
            // A block of --pipe is held while its job is in the window: one per slot, and the next.
            window: options.pipe != nil
                ? min(width, 4096) + 1 : (!traits.widthGrows && facts.jobsFile == nil ? min(width, 4096) : 4096) * 2 + 64,
            directExec: DirectExec.forRun(options, runsHere: traits.runsHere, facts: system))
        warmShells = WarmShellFit.forRun(options, runsHere: traits.runsHere, facts: system)
        jobsFile = facts.jobsFile.map { file in
            JobsFile(path: file.path, cpus: system.cpus) { [limit = system.descriptorLimit] width in
                Self.capByDescriptorLimit(width, requested: .count(0), limit: limit).0
            }
        }

        let environment = system.environment
        colors = Style.wantsColor(options.color, isTerminal: system.stderrIsTerminal, environment: environment)
        let ci = CIFormat.detect(options.ci, environment: environment)
        let inCI = environment["CI"].map { $0 == "true" || $0 == "1" } ?? false
        switch options.progress {
        case .on: showsProgress = true
        case .off: showsProgress = false
        case .auto: showsProgress = system.stderrIsTerminal && !inCI && !options.quiet && environment["TERM"] != "dumb"
        }
        reporter = JobReporter.Settings(
            quiet: options.quiet, verbose: options.verbose, verboseOnStdout: options.verboseOnStdout,
            quietSuccess: options.quietSuccess, ci: ci, heartbeat: inCI, tailLines: 20)
        // A job whose host drops runs again elsewhere: its output is shown once it is over.
        // A job --memfree stops runs again: its output too is shown once it is over.
        streamsLive =
            options.retries == 0 && !traits.requeues && options.memoryFree == nil && !options.quietSuccess
            && !ci.holdsOutputUntilDone
        jobLog = options.jobLog
        if options.resume != nil { jobLog?.appends = true }
        cache = options.dryRun ? nil : try Self.cacheSettings(options)
    }

    /// The options as the run reads them, and what to say about them: `-j FILE` as what it says
    /// now; under `--gnu`, the shell GNU parallel would run the jobs with, unless `--shell` says;
    /// in futurerun's own grammar, bash when bash exported functions (`export -f f`): they need
    /// it to be called.
    private static func settle(_ given: Options, facts: RunFacts) -> (Options, [String]) {
        var options = given
        var notices: [String] = []
        if let file = facts.jobsFile { options.jobs = file.jobs }
        if let shell = facts.gnuShell, options.grammar == .gnu, !options.shellGiven { options.shell = shell }
        if options.grammar == .native, !options.shellGiven, !facts.system.bashFunctions.isEmpty {
            options.shell = "/bin/bash"
            notices.append("the environment holds exported bash functions: jobs run with /bin/bash (--shell chooses another)")
        }
        return (options, notices)
    }

    /// What the options ask of the facts: in futurerun's grammar no shape that means something
    /// else in GNU's; no more memory held back than there is.
    private static func check(_ options: Options, facts: RunFacts) throws(UsageError) {
        if options.grammar == .native,
            let refusal = GNUForms.shapeRefusal(options.source, stdinHoldsData: facts.system.stdinHoldsData)
        {
            throw refusal
        }
        for (option, reserve) in [("--memfree", options.memoryFree), ("--memsuspend", options.memorySuspend)] {
            if let reserve, let total = facts.memoryTotal { try checkMemorySize(reserve, option: option, total: total) }
        }
    }

    /// `--cache`'s settings, its `--cache-input` templates parsed.
    private static func cacheSettings(_ options: Options) throws(UsageError) -> JobCache.Settings? {
        guard let directory = options.cache else { return nil }
        var settings = JobCache.Settings(directory: directory)
        settings.variables = options.cacheVariables
        settings.inputs = try options.cacheInputs.map { pattern throws(UsageError) in
            try Template(pattern, plus: options.plus, perl: options.perlExpressions)
        }
        (settings.failures, settings.limit, settings.explains) = (options.cacheFailures, options.cacheLimit, options.explain)
        return settings
    }
}
