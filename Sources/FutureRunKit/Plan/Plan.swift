import FutureCore
import FutureProcess
import Glibc

/// Everything decided before the first job starts: where jobs come from, how many run at once,
/// what is printed where, and which report files are open. Every problem found here is a usage
/// error (exit 255) and nothing has run yet.
struct Plan {
    let options: Options
    let source: JobSource
    let schedulerSettings: Scheduler.Settings
    /// Where the jobs run: this machine (with make's jobserver, if futurerun runs under `make -jN`),
    /// or several (`-S`).
    private(set) var launch: Launch

    enum Launch {
        case local(width: Int, jobserver: Jobserver?)
        case hosts(HostFleet.Settings)
    }

    /// The launcher of ``launch``, posting its notices to `notices`.
    func makeLauncher(notices: Notices) -> any Launcher {
        switch launch {
        case .local(let width, let jobserver): LocalLauncher(width: width, jobserver: jobserver, notices: notices)
        case .hosts(let settings): HostLauncher(settings, notices: notices)
        }
    }
    let reporterSettings: JobReporter.Settings
    let style: Style
    let showsProgress: Bool
    let streamsLive: Bool
    let reports: [Report]
    /// Said once at the start when `-j` had to be lowered.
    let widthNotice: String?
    /// Said once at the start: which shard this node runs, `--shard auto` outside CI.
    let startNotices: [String]

    init(options: Options) throws(UsageError) {
        self.options = options
        let environment = Self.environment()
        let inputDescriptor = try Self.openInput(options.source)
        let (selection, selectionNotices) = try Self.selection(options, environment: environment)
        let cpus = CPUCount.usable()
        source = try JobSource(
            options: options, input: inputDescriptor, selection: selection, spreadOver: options.jobs.width(cpus: cpus))
        startNotices = selectionNotices + [source.shardNotice].compactMap { $0 }

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

        var width = options.jobs.width(cpus: cpus)
        var (cappedWidth, notice) = Self.capByDescriptorLimit(width, requested: options.jobs)
        if let (fit, processNotice) = Self.capByProcessLimit(cappedWidth, requested: options.jobs) {
            cappedWidth = fit
            notice = processNotice ?? notice
        }
        width = cappedWidth
        // Jobs on other machines take no slot of make's here: the jobserver is for a run on this one.
        let jobserver = hosts.isEmpty ? Jobserver(makeflags: environment["MAKEFLAGS"]) : nil
        if hosts.isEmpty, jobserver == nil, Jobserver.isAnnounced(in: environment["MAKEFLAGS"]) {
            // As make itself does for a sub-make it cannot share its jobserver with.
            width = 1
            notice =
                "make's jobserver is not open to this recipe (GNU make before 4.4 opens it only to recipe lines "
                + "marked '+'): running one job at a time; write '+futurerun ...' in the Makefile to share make's -j slots"
        }
        widthNotice = notice

        schedulerSettings = Scheduler.Settings(
            width: width, shell: options.shell, timeout: options.timeout, grace: options.grace,
            retries: options.retries, halt: options.halt, delay: options.delay,
            workingDirectory: options.workingDirectory, window: (hosts.isEmpty ? min(width, 4096) : 4096) * 2 + 64)
        launch = .local(width: width, jobserver: jobserver)

        let stderrIsTerminal = isatty(2) == 1
        style = Style(colors: Style.wantsColor(options.color, isTerminal: stderrIsTerminal, environment: environment))
        let ci = CIFormat.detect(options.ci, environment: environment)
        let inCI = environment["CI"].map { $0 == "true" || $0 == "1" } ?? false
        switch options.progress {
        case .on: showsProgress = true
        case .off: showsProgress = false
        case .auto: showsProgress = stderrIsTerminal && !inCI && !options.quiet && environment["TERM"] != "dumb"
        }
        reporterSettings = JobReporter.Settings(
            quiet: options.quiet, verbose: options.verbose, quietSuccess: options.quietSuccess, ci: ci,
            heartbeat: inCI, tailLines: 20)
        // A job whose host drops runs again elsewhere: its output is shown once it is over.
        streamsLive = options.retries == 0 && hosts.isEmpty && !options.quietSuccess && !ci.holdsOutputUntilDone
        // --resume appends to the joblog it reads, as GNU parallel does.
        var reportOptions = options
        if options.resume != nil, let log = options.jobLog, !log.hasPrefix("+") { reportOptions.jobLog = "+" + log }
        reports = try ReportSet.open(reportOptions, stepSummary: ci == .github ? environment["GITHUB_STEP_SUMMARY"] : nil)
        if !hosts.isEmpty {
            // Last, and only for a real run: nothing after it can fail, so the directory never
            // outlives a refused run (the run's end removes it).
            let controlDirectory = options.dryRun ? "" : HostFleet.makeControlDirectory()
            guard let controlDirectory else {
                throw .cannotWrite(path: "$TMPDIR/futurerun-ssh.*", reason: String(cString: strerror(errno)))
            }
            launch = .hosts(
                HostFleet.Settings(
                    hosts: hosts, ssh: ssh, forwarded: Self.forwarded(options.forwardedVariables), jobs: options.jobs,
                    localWidth: width, runningLimit: Self.runningLimit(), controlDirectory: controlDirectory))
        }
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

    /// `--env NAME`: each variable's value here, or `nil` where it is unset.
    /// `--env` variables with their values here, as bytes (a value need not be UTF-8).
    private static func forwarded(_ names: [String]) -> [(name: String, value: [UInt8]?)] {
        names.map { name in
            (name, getenv(name).map { Array(UnsafeBufferPointer(start: $0, count: strlen($0))).map(UInt8.init(bitPattern:)) })
        }
    }

    /// The descriptor to read job lines or arguments from, opened now so that a missing file is
    /// an error before anything runs.
    private static func openInput(_ source: Options.Source) throws(UsageError) -> Int32? {
        let file: String?
        switch source {
        case .commandLines(let path), .templateLines(_, let path): file = path
        case .commands, .template: return nil
        }
        guard let path = file, path != "-" else { return 0 }
        let descriptor = open(path.systemPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadableFile(path: path, reason: String(cString: strerror(errno))) }
        return descriptor
    }

    /// Each running job holds three descriptors (two pipes and a pidfd): keep the width within
    /// what `ulimit -n` allows, and say so once.
    private static func capByDescriptorLimit(_ width: Int, requested: Options.Jobs) -> (Int, String?) {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < (1 << 40) else {
            return (width, nil)
        }
        let fit = max(1, (Int(limit.rlim_cur) - 64) / 4)
        guard width > fit else { return (width, nil) }
        // "No limit" asked for as many as possible: that is no surprise worth a line.
        guard case .count(let count) = requested, count > 0 else { return (fit, nil) }
        let asked = "-j \(count)"
        return (
            fit, "running at most \(fit) jobs at once instead of \(asked): the descriptor limit (ulimit -n) is \(limit.rlim_cur)"
        )
    }

    /// How many jobs may run at once over all hosts: each is an `ssh` here with its pipes, so the
    /// descriptor and process limits that cap `-j` cap the hosts' slots together too.
    private static func runningLimit() -> Int {
        let (fit, _) = capByDescriptorLimit(Int.max, requested: .count(0))
        return capByProcessLimit(fit, requested: .count(0))?.0 ?? fit
    }

    /// A job is a shell and usually a command: about three processes. Under a low process limit
    /// (`ulimit -u`, not for root), keep the width within what is left of it. The scan of /proc
    /// is done only when the limit is near.
    private static func capByProcessLimit(_ width: Int, requested: Options.Jobs) -> (Int, String?)? {
        guard getuid() != 0 else { return nil }
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(__RLIMIT_NPROC.rawValue), &limit) == 0, limit.rlim_cur < (1 << 40) else { return nil }
        let allowed = Int(limit.rlim_cur)
        guard allowed < min(width, 1 << 20) * 3 + 256 else { return nil }
        let fit = max(1, (allowed - processesOfThisUser() - 16) / 3)
        guard width > fit else { return nil }
        guard case .count(let count) = requested, count > 0 else { return (fit, nil) }
        return (fit, "running at most \(fit) jobs at once instead of -j \(count): the process limit (ulimit -u) is \(allowed)")
    }

    /// Processes and threads of this user now (each counts against RLIMIT_NPROC).
    private static func processesOfThisUser() -> Int {
        guard let directory = opendir("/proc") else { return 0 }
        defer { closedir(directory) }
        let me = getuid()
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.first?.isNumber == true else { continue }
            var info = stat()
            guard stat("/proc/\(name)/task", &info) == 0, info.st_uid == me else { continue }
            count += max(1, Int(info.st_nlink) - 2)
        }
        return count
    }

    /// The environment variables futurerun itself reads (not the whole environment, which the jobs
    /// get as it is): `getenv` for each, no copy of the rest.
    static func environment() -> [String: String] {
        var values: [String: String] = [:]
        let names =
            ["MAKEFLAGS", "CI", "TERM", "NO_COLOR", "GITHUB_ACTIONS", "GITLAB_CI", "GITHUB_STEP_SUMMARY"]
            + Shard.ciVariables.flatMap { [$0.index, $0.total] }
        for name in names {
            if let value = getenv(name) { values[name] = String(cString: value) }
        }
        return values
    }
}
