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
    /// `-S` and `--hosts-file`, as one list (empty: this machine alone).
    package var hosts: [HostSpec] = []
    /// `--slurm`: the allocation futurerun runs in.
    package var allocation: SlurmAllocation?
    /// Whether make's jobserver takes part (only for a run on this machine alone).
    package var jobserverReach = RunConfiguration.JobserverReach.none
    /// `--gnu` without `--shell`: the shell GNU parallel would run the jobs with.
    package var gnuShell: String?
    /// `--memfree`, `--memsuspend`: the memory there is (the machine's or its cgroup's limit),
    /// if it can be read.
    package var memoryTotal: Int?
    /// `--env NAME`: each variable's value here (`nil`: unset).
    package var forwarded: [(name: String, value: [UInt8]?)] = []

    package init(system: SystemFacts) { self.system = system }
}
