import FutureProcess
import FutureRunEngine
import FutureRunModel
import FutureRunOptions
import FutureRunOutput
import Glibc

extension RunFacts {
    /// Reads what the run's decisions rest on: the machine, `-j FILE`, where the jobs run (the
    /// options of the way asked for checked first: ``LaunchKinds``), the memory. Blocks on the
    /// file system and, under `--slurm`, on `scontrol`. A file that cannot be read is a usage error.
    static func gather(for options: Options) throws(UsageError) -> RunFacts {
        try LaunchKinds.check(options)
        var facts = RunFacts(system: .current())
        if case .file(let path) = options.jobs { facts.jobsFile = (path, try readJobsFile(path)) }
        facts.site = try LaunchKinds.prepare(options, environment: facts.system.environment)
        if options.grammar == .gnu, !options.shellGiven { facts.gnuShell = GNUShell.current() }
        if options.memoryFree != nil || options.memorySuspend != nil {
            facts.memoryTotal = MemoryReadings.Source.current().read()?.total
        }
        return facts
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
