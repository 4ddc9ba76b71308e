import FutureProcess
import FutureRunEngine
import FutureRunModel
import FutureRunOptions
import FutureRunOutput

/// A run before its first job: the facts gathered (``RunFacts``), every decision made from them
/// and the options (``RunConfiguration``), and what those name opened (``RunResources``). Every
/// problem found on the way is a usage error (exit 255), and nothing has run yet.
package struct Plan {
    package let configuration: RunConfiguration
    package let resources: RunResources
    /// make's jobserver, opened when the facts were gathered (``RunFacts/jobserverReach``).
    private let jobserver: Jobserver?

    /// Gathers the facts, decides, opens: blocks on the file system (``RunFacts/gather(for:)``,
    /// ``RunResources/open(_:facts:)``), never runs a job.
    package init(options: Options) throws(UsageError) {
        let (facts, jobserver) = try RunFacts.gather(for: options)
        configuration = try RunConfiguration(options: options, facts: facts)
        resources = try RunResources.open(configuration, facts: facts)
        self.jobserver = jobserver
    }

    package var options: Options { configuration.options }
    package var source: JobPipeline { resources.source }
    package var reports: [Report] { resources.reports }
    package var cache: JobCache? { resources.cache }
    /// Said once at the start, in this order: the configuration's, then the selection's.
    package var startNotices: [String] { configuration.startNotices + resources.startNotices }

    /// The launcher the configuration chose, its attempts on `engine`, posting its notices to
    /// `notices`.
    package func makeLauncher(engine: ProcessEngine, notices: Notices) -> any Launcher {
        switch configuration.launch {
        case .local(let width, let usesJobserver, let admission, let jobsFile, let warmShells):
            LocalLauncher(
                width: width, jobserver: usesJobserver ? jobserver : nil, admission: admission, jobsFile: jobsFile,
                warmShells: warmShells.flatMap { WarmShells(fit: $0, shell: configuration.scheduler.shell, engine: engine) },
                engine: engine, notices: notices)
        case .hosts(let settings):
            // Made for every run over hosts but a dry run, which makes no launcher.
            HostLauncher(settings, controlDirectory: resources.controlDirectory ?? "", engine: engine, notices: notices)
        case .slurm(let settings): SlurmLauncher(settings, engine: engine, notices: notices)
        }
    }
}
