import FutureProcess
import FutureRunEngine
import FutureRunModel
import FutureRunOptions
import FutureRunOutput
import Glibc

extension RunFacts {
    /// Reads what the run's decisions rest on: the machine, `-j FILE`, `--hosts-file`, the Slurm
    /// allocation, make's jobserver (opened here: ``Jobserver``), the memory. Blocks on the file
    /// system and, under `--slurm`, on `scontrol`. A file that cannot be read is a usage error.
    package static func gather(for options: Options) throws(UsageError) -> (RunFacts, Jobserver?) {
        var facts = RunFacts(system: .current())
        let environment = facts.system.environment
        if case .file(let path) = options.jobs { facts.jobsFile = (path, try readJobsFile(path)) }
        facts.hosts = try hosts(options)
        if options.slurm {
            facts.allocation = try SlurmCluster.allocation(environment: environment, cpusPerStep: options.slurmCPUs)
        }
        // Jobs on other machines take no slot of make's here: the jobserver is for a run on this one.
        let jobserver =
            facts.hosts.isEmpty && facts.allocation == nil ? Jobserver(makeflags: environment["MAKEFLAGS"]) : nil
        facts.jobserverReach =
            jobserver != nil
            ? .reached : facts.hosts.isEmpty && Jobserver.isAnnounced(in: environment["MAKEFLAGS"]) ? .unreachable : .none
        if options.grammar == .gnu, !options.shellGiven { facts.gnuShell = GNUShell.current() }
        if options.memoryFree != nil || options.memorySuspend != nil {
            facts.memoryTotal = MemoryReadings.Source.current().read()?.total
        }
        facts.forwarded = SystemFacts.values(of: options.forwardedVariables)
        return (facts, jobserver)
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
}
