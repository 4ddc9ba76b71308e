import FutureProcess
import FutureRunModel

/// A way to run attempts, described once: which options ask for it, what it cannot run with, what
/// it reads before the run, and (as a ``LaunchSite``) what the run's decisions must know of it and
/// how its launcher is made. The run's way is the first of ``LaunchKinds/all`` its options ask
/// for; a new way is a folder with its launcher and its kind, and a line in that list.
package protocol LaunchKind {
    /// Whether `options` ask for it.
    static func isAsked(by options: Options) -> Bool
    /// Its own options given without it, or options given with it that it cannot serve: checked
    /// for every kind, before anything is read.
    static func check(_ options: Options) throws(UsageError)
    /// Reads what it needs before the run's decisions (the allocation, a hosts file). Blocks.
    static func prepare(_ options: Options, environment: [String: String]) throws(UsageError) -> any LaunchSite
}

/// A way of running attempts, prepared (``LaunchKind/prepare(_:environment:)``): what the run's
/// decisions must know of it, and how its launcher is made once they are made. A value; tests
/// make one up.
package protocol LaunchSite: Sendable {
    var traits: LaunchTraits { get }
    /// The CPUs `-j` counts when they are not this machine's (an allocation's slots).
    var cpus: Int? { get }
    /// Whether make's jobserver takes part.
    var jobserverReach: Jobserver.Reach { get }
    /// Opens what it holds while a real run goes on (a dry run launches nothing), after every
    /// check: nothing after it fails. Blocks.
    func open(dryRun: Bool) throws(UsageError) -> any LaunchSite
    /// Its launcher for `run`.
    func makeLauncher(_ run: LaunchRun) -> any Launcher
}

extension LaunchSite {
    package var cpus: Int? { nil }
    package var jobserverReach: Jobserver.Reach { .none }
    package func open(dryRun: Bool) throws(UsageError) -> any LaunchSite { self }
}

/// What a way of running attempts means for the run's decisions.
package struct LaunchTraits: Sendable, Equatable {
    /// Attempts run as this machine's own processes: a line that needs no shell is exec'd
    /// directly, and warm shells run what fits them.
    package var runsHere: Bool
    /// Some attempts run here (`--workdir` and the shell are checked here).
    package var someRunHere: Bool
    /// An attempt may run again elsewhere (a lost host): a job's output shows once it is over.
    package var requeues: Bool
    /// The width may grow while the run goes on (hosts connect): the window is made for the most.
    package var widthGrows: Bool
    /// Attempts are this machine's commands (ssh) that its descriptor and process limits cap,
    /// over all the places they run.
    package var capsCommandsHere: Bool

    package init(runsHere: Bool, someRunHere: Bool, requeues: Bool, widthGrows: Bool, capsCommandsHere: Bool) {
        (self.runsHere, self.someRunHere, self.requeues) = (runsHere, someRunHere, requeues)
        (self.widthGrows, self.capsCommandsHere) = (widthGrows, capsCommandsHere)
    }
}

/// The run's decisions a launcher is made with (``LaunchSite/makeLauncher(_:)``).
package struct LaunchRun {
    /// The options as the run reads them (`-j FILE` as what the file says now, the shell chosen).
    package var options: Options
    /// Jobs at once, within the limits.
    package var width: Int
    /// Over places that cap commands here: how many may run at once.
    package var runningLimit: Int
    /// The CPUs `-j` counts.
    package var cpus: Int
    /// `-j FILE`, read again as jobs end.
    package var jobsFile: JobsFile?
    /// Which jobs fit a warm shell (`nil`: none).
    package var warmShells: WarmShellFit?
    package var engine: ProcessEngine
    package var notices: Notices

    package init(
        options: Options, width: Int, runningLimit: Int, cpus: Int, jobsFile: JobsFile?, warmShells: WarmShellFit?,
        engine: ProcessEngine, notices: Notices
    ) {
        (self.options, self.width, self.runningLimit, self.cpus) = (options, width, runningLimit, cpus)
        (self.jobsFile, self.warmShells, self.engine, self.notices) = (jobsFile, warmShells, engine, notices)
    }
}

/// Every way to run attempts, in the order they are asked: the first whose options ask wins;
/// this machine, last, is asked always.
package enum LaunchKinds {
    package static var all: [any LaunchKind.Type] { [SlurmLaunch.self, HostsLaunch.self, LocalLaunch.self] }

    /// Every kind's check of the options (``LaunchKind/check(_:)``).
    package static func check(_ options: Options) throws(UsageError) {
        for kind in all { try kind.check(options) }
    }

    /// The way `options` ask for, prepared.
    package static func prepare(_ options: Options, environment: [String: String]) throws(UsageError) -> any LaunchSite {
        let kind = all.first { $0.isAsked(by: options) } ?? LocalLaunch.self
        return try kind.prepare(options, environment: environment)
    }
}
