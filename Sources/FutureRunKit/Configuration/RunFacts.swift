import FutureRunEngine
import FutureRunModel
import FutureRunOptions
import FutureRunOutput

/// What a run's decisions rest on besides its options: the machine (``SystemFacts``) and what
/// the files and variables the options name say now. A value: ``RunConfiguration`` decides from
/// it without touching the system, and tests make one up. Gathered by
/// ``gather(for:)`` (`Resources/`), before anything is decided.
package struct RunFacts {
    package var system: SystemFacts
    /// `-j FILE`: the file, and what it says now.
    package var jobsFile: (path: String, jobs: Options.Jobs)?
    /// Where the jobs run, prepared (``LaunchKinds``): this machine, the hosts, the allocation.
    package var site: any LaunchSite = LocalSite(jobserver: nil, reach: .none)
    /// `--gnu` without `--shell`: the shell GNU parallel would run the jobs with.
    var gnuShell: String?
    /// `--memfree`, `--memsuspend`: the memory there is (the machine's or its cgroup's limit),
    /// if it can be read.
    var memoryTotal: Int?

    package init(system: SystemFacts) { self.system = system }
}
