import FutureProcess
import FutureRunModel

/// Attempts as processes of this machine (``LocalLauncher``): asked when nothing else is.
package enum LocalLaunch: LaunchKind {
    package static func isAsked(by options: Options) -> Bool { true }

    package static func check(_ options: Options) throws(UsageError) {}

    /// Opens make's jobserver, if `MAKEFLAGS` names one this recipe can reach.
    package static func prepare(_ options: Options, environment: [String: String]) throws(UsageError) -> any LaunchSite {
        let makeflags = environment["MAKEFLAGS"]
        let jobserver = Jobserver(makeflags: makeflags)
        return LocalSite(jobserver: jobserver, reach: Jobserver.reach(opened: jobserver != nil, makeflags: makeflags))
    }
}

/// This machine, prepared: make's jobserver, if it takes part.
package struct LocalSite: LaunchSite {
    package let jobserver: Jobserver?
    package let jobserverReach: Jobserver.Reach

    package init(jobserver: Jobserver?, reach: Jobserver.Reach) {
        self.jobserver = jobserver
        jobserverReach = reach
    }

    package var traits: LaunchTraits {
        LaunchTraits(runsHere: true, someRunHere: true, requeues: false, widthGrows: false, capsCommandsHere: false)
    }

    package func makeLauncher(_ run: LaunchRun) -> any Launcher {
        let options = run.options
        let rules = AdmissionGuard.Rules(
            memoryFree: options.memoryFree.map(MemoryAdmission.init),
            suspension: options.memorySuspend.map(MemorySuspension.init),
            load: options.load.map { LoadAdmission(limit: $0.width(cpus: run.cpus)) })
        return LocalLauncher(
            width: run.width, jobserver: jobserver,
            admission: rules.memoryFree == nil && rules.suspension == nil && rules.load == nil ? nil : rules,
            jobsFile: run.jobsFile,
            warmShells: run.warmShells.flatMap { WarmShells(fit: $0, shell: options.shell, engine: run.engine) },
            engine: run.engine, notices: run.notices)
    }
}
