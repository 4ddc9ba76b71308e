import FutureCore
import FutureProcess
import Glibc

/// Everything decided before the first job starts: where jobs come from, how many run at once,
/// what is printed where, and which report files are open. Every problem found here is a usage
/// error (exit 255) and nothing has run yet.
struct Plan {
    let options: Options
    let source: JobPipeline
    let schedulerSettings: Scheduler.Settings
    /// Where the jobs run: this machine (with make's jobserver, if futurerun runs under `make -jN`),
    /// or several (`-S`).
    private(set) var launch: Launch

    enum Launch {
        case local(
            width: Int, jobserver: Jobserver?, admission: AdmissionGuard.Rules?, jobsFile: JobsFile?, warmShells: WarmShellFit?)
        case hosts(HostFleet.Settings)
        case slurm(SlurmLauncher.Settings)
    }

    /// The launcher of ``launch``, posting its notices to `notices`.
    func makeLauncher(notices: Notices) -> any Launcher {
        switch launch {
        case .local(let width, let jobserver, let admission, let jobsFile, let warmShells):
            LocalLauncher(
                width: width, jobserver: jobserver, admission: admission, jobsFile: jobsFile,
                warmShells: warmShells.flatMap { WarmShells(fit: $0, shell: schedulerSettings.shell) }, notices: notices)
        case .hosts(let settings): HostLauncher(settings, notices: notices)
        case .slurm(let settings): SlurmLauncher(settings, notices: notices)
        }
    }
    let reporterSettings: JobReporter.Settings
    let style: Style
    let showsProgress: Bool
    let streamsLive: Bool
    let reports: [Report]
    /// `--cache`: the store, opened (made) before the first job.
    let cache: JobCache?
    /// Said once at the start when `-j` had to be lowered.
    let widthNotice: String?
    /// Said once at the start: which shard this node runs, `--shard auto` outside CI.
    let startNotices: [String]

    init(options given: Options) throws(UsageError) {
        // -j FILE: what the file says now; the launcher reads it again as jobs end.
        var options = given
        var widthFile: String?
        if case .file(let path) = given.jobs {
            options.jobs = try Self.readJobsFile(path)
            widthFile = path
        }
        // --nice: the jobs inherit futurerun's niceness.
        if let niceness = options.niceness { SystemFacts.lowerPriority(to: niceness) }
        // --gnu: the shell GNU parallel would run the jobs with, unless --shell says. In futurerun's
        // own grammar, functions bash exported (`export -f f`) need bash to be called.
        var shellNotice: String?
        if options.grammar == .gnu, !options.shellGiven { options.shell = GNUShell.current() }
        if options.grammar == .native, !options.shellGiven, GNUShell.bashFunctionsExported() {
            options.shell = "/bin/bash"
            shellNotice = "the environment holds exported bash functions: jobs run with /bin/bash (--shell chooses another)"
        }
        self.options = options
        var facts = SystemFacts.current()
        let environment = facts.environment
        // --slurm: the allocation's slots are the CPUs `-j` counts.
        let allocation =
            options.slurm ? try SlurmCluster.allocation(environment: environment, cpusPerStep: options.slurmCPUs) : nil
        if let allocation { facts.cpus = allocation.slots }
        if options.grammar == .native, let refusal = GNUForms.shapeRefusal(options.source, stdinHoldsData: facts.stdinHoldsData) {
            throw refusal
        }
        let inputDescriptor = try Self.openInput(options.source)
        let (selection, selectionNotices) = try Self.selection(options, environment: environment)
        let origin: any JobOrigin =
            if case .blocks(let command, let file) = options.source {
                try BlockJobs(command: command, file: file, input: inputDescriptor ?? 0, options: options)
            } else {
                try JobSource(options: options, input: inputDescriptor, spreadOver: options.jobs.width(cpus: facts.cpus))
            }
        source = JobPipeline(origin, selection: selection)
        let terminalNotice = inputDescriptor == 0 && facts.stdinIsTerminal ? Self.terminalNotice(options.source) : nil
        startNotices =
            [shellNotice, terminalNotice].compactMap { $0 } + selectionNotices + [source.shardNotice].compactMap { $0 }

        let hosts = try Self.hosts(options)
        let ssh = hosts.isEmpty ? [] : try Self.sshCommand(options)
        let runsHere = hosts.isEmpty || hosts.contains { $0.isLocal }
        if let directory = options.workingDirectory, runsHere {
            var info = stat()
            guard stat(directory.systemPath, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw .invalidValue(
                    option: "--workdir", value: directory,
                    expected: "an existing directory (-C is --workdir here; GNU parallel's -C is futurerun's --colsep)")
            }
        }
        if runsHere, case .failure(let error) = Command.locateExecutable(options.shell) {
            throw .unrunnableShell(path: options.shell, reason: String(cString: strerror(error.errno)))
        }

        if allocation != nil {
            for (option, given) in [
                ("-S/--hosts-file", !hosts.isEmpty), ("--memfree", options.memoryFree != nil),
                ("--memsuspend", options.memorySuspend != nil), ("--load", options.load != nil),
            ] where given {
                throw .conflictingOptions("--slurm", option + " (they watch this machine, not the allocation's nodes)")
            }
            // A slot's worker reads its jobs on its stdin: a job's own input cannot go there.
            if options.slurmSlots, options.pipe != nil { throw .conflictingOptions("--slurm-slots", "--pipe") }
        } else if options.slurmCPUs != nil || options.slurmRate != nil || options.slurmSlots {
            throw .needsOption(
                option: "--slurm-cpus/--slurm-rate/--slurm-slots", needs: "--slurm",
                example: "futurerun --slurm --slurm-cpus 4 ...")
        }
        // Jobs on other machines take no slot of make's here: the jobserver is for a run on this one.
        let jobserver = hosts.isEmpty && allocation == nil ? Jobserver(makeflags: environment["MAKEFLAGS"]) : nil
        let reach: RunConfiguration.JobserverReach =
            jobserver != nil
            ? .reached : hosts.isEmpty && Jobserver.isAnnounced(in: environment["MAKEFLAGS"]) ? .unreachable : .none
        let configuration = RunConfiguration(
            options: options, facts: facts, hostCount: hosts.count, jobserver: reach, widthMayGrow: widthFile != nil)
        let jobsFile = widthFile.map { path in
            JobsFile(path: path, cpus: facts.cpus) { [limit = facts.descriptorLimit] width in
                RunConfiguration.capByDescriptorLimit(width, requested: .count(0), limit: limit).0
            }
        }
        schedulerSettings = configuration.scheduler
        widthNotice = configuration.widthNotice
        reporterSettings = configuration.reporter
        style = Style(colors: configuration.colors)
        showsProgress = configuration.showsProgress
        streamsLive = configuration.streamsLive
        launch = .local(
            width: configuration.width, jobserver: jobserver, admission: Self.admission(options, cpus: facts.cpus),
            jobsFile: jobsFile, warmShells: configuration.warmShells)
        for (option, reserve) in [("--memfree", options.memoryFree), ("--memsuspend", options.memorySuspend)] {
            if let reserve { try Self.checkMemorySize(reserve, option: option, hosts: hosts.count) }
        }
        if options.load != nil, !hosts.isEmpty { throw .conflictingOptions("--load", "-S/--hosts-file") }
        // A remote job's stdin carries its command (``RemoteHost``): no room for a block there.
        if options.pipe != nil, !hosts.isEmpty { throw .conflictingOptions("--pipe", "-S/--hosts-file (not supported yet)") }

        var reportOptions = options
        reportOptions.jobLog = configuration.jobLog
        // The step summary is written wherever the runner names one, GitHub's or another.
        reports = try ReportSet.open(
            reportOptions, stepSummary: environment["GITHUB_STEP_SUMMARY"],
            suite: selection.shard.map { "futurerun shard \($0.index)/\($0.count)" } ?? "futurerun")
        // A dry run runs nothing, so it neither reads nor makes the store.
        cache = try (options.dryRun ? nil : options.cache).map { directory throws(UsageError) in
            var settings = JobCache.Settings(directory: directory)
            settings.variables = options.cacheVariables
            settings.inputs = try options.cacheInputs.map { pattern throws(UsageError) in
                try Template(pattern, plus: options.plus, perl: options.perlExpressions)
            }
            (settings.failures, settings.limit, settings.explains) = (options.cacheFailures, options.cacheLimit, options.explain)
            return try JobCache(
                settings, shell: options.shell, directory: Self.absolute(options.workingDirectory ?? "."),
                values: SystemFacts.values(of: options.cacheVariables))
        }
        if let allocation {
            launch = .slurm(
                .init(
                    allocation: allocation, width: configuration.width, rate: options.slurmRate ?? SlurmLauncher.defaultRate,
                    slots: options.slurmSlots))
        }
        if !hosts.isEmpty, !options.dryRun {
            // Last, and only for a real run (a dry run launches nothing): nothing after it can
            // fail, so the directory never outlives a refused run (the run's end removes it).
            guard let controlDirectory = HostFleet.makeControlDirectory() else {
                throw .cannotWrite(path: "$TMPDIR/futurerun-ssh.*", reason: String(cString: strerror(errno)))
            }
            launch = .hosts(
                HostFleet.Settings(
                    hosts: hosts, ssh: ssh, forwarded: SystemFacts.values(of: options.forwardedVariables), jobs: options.jobs,
                    localWidth: configuration.width, runningLimit: configuration.runningLimit,
                    controlDirectory: controlDirectory))
        }
    }

    /// `path` made absolute, links resolved (as it is if it cannot be).
    private static func absolute(_ path: String) -> String {
        guard let resolved = realpath(path.systemPath, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `-S` and `--hosts-file`, as one list.
    private static func hosts(_ options: Options) throws(UsageError) -> [HostSpec] {
        var lines: [String] = []
        if let file = options.hostsFile {
            guard let text = TextFile.read(file) else {
                throw .unreadableFile(path: file, reason: String(cString: strerror(errno)))
            }
            lines = text.split(whereSeparator: \.isNewline).map(String.init)
        }
        let hosts = try HostSpec.list(options.hosts, fileLines: lines)
        if let file = options.hostsFile, hosts.isEmpty {
            throw .invalidValue(option: "--hosts-file", value: file, expected: "a file with a host on a line, as in 4/build1")
        }
        return hosts
    }

    /// `-j FILE`'s value now.
    private static func readJobsFile(_ path: String) throws(UsageError) -> Options.Jobs {
        guard let text = TextFile.readRegular(path) else {
            throw .invalidValue(
                option: "--jobs", value: path,
                expected:
                    "a number of jobs (4), 0, a share of the CPUs (50%), or a file holding one ("
                    + (errno == EINVAL ? "not a regular file" : String(cString: strerror(errno))) + ")"
            )
        }
        guard let jobs = JobsFile.jobs(text) else {
            throw .invalidValue(
                option: "--jobs", value: path, expected: "a file holding a number of jobs (4), 0 or a share (50%)")
        }
        return jobs
    }

    /// `--memfree`'s, `--memsuspend`'s and `--load`'s rules, if any is given.
    private static func admission(_ options: Options, cpus: Int) -> AdmissionGuard.Rules? {
        let rules = AdmissionGuard.Rules(
            memoryFree: options.memoryFree.map(MemoryAdmission.init),
            suspension: options.memorySuspend.map(MemorySuspension.init),
            load: options.load.map { LoadAdmission(limit: $0.width(cpus: cpus)) })
        return rules.memoryFree == nil && rules.suspension == nil && rules.load == nil ? nil : rules
    }

    /// `--memfree SIZE` and `--memsuspend SIZE`: on this machine, and no more than there could ever be.
    private static func checkMemorySize(_ reserve: Int, option: String, hosts: Int) throws(UsageError) {
        if hosts > 0 { throw .conflictingOptions(option, "-S/--hosts-file") }
        guard let readings = MemoryReadings.Source.current().read() else { return }
        // --memsuspend starts a job only while twice SIZE is free.
        let needed = option == "--memsuspend" ? 2 * reserve : reserve
        guard needed <= readings.total else {
            let total = ByteCountFormat.format(readings.total)
            throw .invalidValue(
                option: option, value: ByteCountFormat.format(reserve),
                expected: needed > reserve
                    ? "at most half the memory there is (\(total), the machine's or its cgroup's limit): --memsuspend starts a job only while twice SIZE is free"
                    : "at most the memory there is (\(total), the machine's or its cgroup's limit)")
        }
    }

    /// `--ssh` (default `ssh`), its program checked now.
    private static func sshCommand(_ options: Options) throws(UsageError) -> [String] {
        let words = options.ssh ?? ["ssh"]
        if case .failure(let error) = Command.locateExecutable(words[0]) {
            let reason = String(cString: strerror(error.errno))
            throw .invalidValue(
                option: "--ssh", value: words.joined(separator: " "),
                expected: "a command that can be run (\(words[0]): \(reason))")
        }
        return words
    }

    /// What to say when the jobs, arguments or `--pipe` input would be typed on the terminal (as
    /// GNU parallel warns): what futurerun waits for, how to end it, and what was maybe forgotten.
    static func terminalNotice(_ source: Options.Source) -> String {
        switch source {
        case .templateLines:
            "reading the template's arguments from the terminal, one per line; end with Ctrl-D "
                + "(or give them after the template, with ::: or with -a FILE)"
        case .blocks:
            "reading --pipe's input from the terminal; end with Ctrl-D (or pipe a file into futurerun)"
        case .commandLines, .commands, .template:
            "reading jobs from the terminal, one per line; end with Ctrl-D "
                + "(or give the commands, ::: between them, or -a FILE)"
        }
    }

    /// The descriptor to read job lines or arguments from, opened now so that a missing file is
    /// an error before anything runs.
    private static func openInput(_ source: Options.Source) throws(UsageError) -> Int32? {
        let file: String?
        switch source {
        case .commandLines(let path), .templateLines(_, let path), .blocks(_, let path): file = path
        case .commands, .template: return nil
        }
        guard let path = file, path != "-" else { return 0 }
        let descriptor = open(path.systemPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadableFile(path: path, reason: String(cString: strerror(errno))) }
        return descriptor
    }
}
