import FutureProcess
import FutureRunEngine
import FutureRunModel
import FutureRunOptions
import FutureRunOutput

/// A run before its first job: the facts gathered (``RunFacts``), every decision made from them
/// and the options (``RunConfiguration``), and what those name opened (``RunResources``). Every
/// problem found on the way is a usage error (exit 255), and nothing has run yet.
package struct Plan {
    let configuration: RunConfiguration
    let resources: RunResources

    /// Gathers the facts, decides, opens: blocks on the file system (``RunFacts/gather(for:)``,
    /// ``RunResources/open(_:facts:)``), never runs a job.
    package init(options: Options) throws(UsageError) {
        let facts = try RunFacts.gather(for: options)
        configuration = try RunConfiguration(options: options, facts: facts)
        resources = try RunResources.open(configuration, facts: facts)
    }

    package var options: Options { configuration.options }
    package var source: JobPipeline { resources.source }
    package var reports: [Report] { resources.reports }
    package var cache: JobCache? { resources.cache }
    /// Said once at the start, in this order: the configuration's, then the selection's.
    var startNotices: [String] { configuration.startNotices + resources.startNotices }

    /// The launcher of the way the jobs run, its attempts on `engine`, posting its notices to
    /// `notices`.
    package func makeLauncher(engine: ProcessEngine, notices: Notices) -> any Launcher {
        resources.site.makeLauncher(
            LaunchRun(
                options: configuration.options, width: configuration.width, runningLimit: configuration.runningLimit,
                cpus: configuration.cpus, jobsFile: configuration.jobsFile, warmShells: configuration.warmShells,
                engine: engine, notices: notices))
    }
}
