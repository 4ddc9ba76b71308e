import FutureRunEngine
import FutureRunModel
import FutureRunOptions
import FutureRunOutput

extension RunConfiguration {
    /// `-j` on `system`, within its descriptor and process limits (one job at a time when make's
    /// jobserver is announced but out of reach), and why it is lower than asked.
    package static func width(_ jobs: Options.Jobs, system: SystemFacts, jobserver: Jobserver.Reach) -> (Int, String?) {
        var (width, notice) = capByDescriptorLimit(jobs.width(cpus: system.cpus), requested: jobs, limit: system.descriptorLimit)
        if let (fit, lower) = capByProcessLimit(width, requested: jobs, facts: system) {
            width = fit
            notice = lower ?? notice
        }
        if jobserver == .unreachable {
            width = 1
            notice =
                "make's jobserver is not open to this recipe (GNU make before 4.4 opens it only to recipe lines "
                + "marked '+'): running one job at a time; write '+futurerun ...' in the Makefile to share make's -j slots"
        }
        return (width, notice)
    }

    /// Over hosts, how many ssh commands may run here at once: the descriptor and process limits.
    package static func runningLimit(_ system: SystemFacts) -> Int {
        let (fit, _) = capByDescriptorLimit(Int.max, requested: .count(0), limit: system.descriptorLimit)
        return capByProcessLimit(fit, requested: .count(0), facts: system)?.0 ?? fit
    }

    /// Each running job holds three descriptors (two pipes and a pidfd): the width within what
    /// `ulimit -n` allows, and why, if it was asked for more.
    static func capByDescriptorLimit(_ width: Int, requested: Options.Jobs, limit: Int?) -> (Int, String?) {
        guard let limit else { return (width, nil) }
        let fit = max(1, (limit - 64) / 4)
        guard width > fit else { return (width, nil) }
        // "No limit" asked for as many as possible: that is no surprise worth a line.
        guard case .count(let count) = requested, count > 0 else { return (fit, nil) }
        return (fit, "running at most \(fit) jobs at once instead of -j \(count): the descriptor limit (ulimit -n) is \(limit)")
    }

    /// A job is a shell and usually a command: about three processes. Under a low process limit,
    /// the width within what is left of it (the processes are counted only when the limit is near);
    /// `nil` when the limit does not lower it.
    static func capByProcessLimit(_ width: Int, requested: Options.Jobs, facts: SystemFacts) -> (Int, String?)? {
        guard let allowed = facts.processLimit, allowed < min(width, 1 << 20) * 3 + 256 else { return nil }
        let fit = max(1, (allowed - facts.processesOfUser() - 16) / 3)
        guard width > fit else { return nil }
        guard case .count(let count) = requested, count > 0 else { return (fit, nil) }
        return (fit, "running at most \(fit) jobs at once instead of -j \(count): the process limit (ulimit -u) is \(allowed)")
    }
}
