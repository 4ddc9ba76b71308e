import FutureProcess
import FutureRunModel

/// Attempts as steps of the Slurm allocation futurerun runs in (`--slurm`, ``SlurmLauncher``).
package enum SlurmLaunch: LaunchKind {
    package static func isAsked(by options: Options) -> Bool { options.slurm }

    /// `--slurm-cpus`, `--slurm-rate` and `--slurm-slots` need `--slurm`; `--slurm` takes no
    /// hosts and no rule that watches this machine; a slot's worker reads its jobs on its stdin,
    /// so no job's own input (`--pipe`) can go there.
    package static func check(_ options: Options) throws(UsageError) {
        guard options.slurm else {
            if options.slurmCPUs != nil || options.slurmRate != nil || options.slurmSlots {
                throw .needsOption(
                    option: "--slurm-cpus/--slurm-rate/--slurm-slots", needs: "--slurm",
                    example: "futurerun --slurm --slurm-cpus 4 ...")
            }
            return
        }
        for (option, given) in [
            ("-S/--hosts-file", HostsLaunch.isAsked(by: options)), ("--memfree", options.memoryFree != nil),
            ("--memsuspend", options.memorySuspend != nil), ("--load", options.load != nil),
        ] where given {
            throw .conflictingOptions("--slurm", option + " (they watch this machine, not the allocation's nodes)")
        }
        if options.slurmSlots, options.pipe != nil { throw .conflictingOptions("--slurm-slots", "--pipe") }
    }

    /// Reads the allocation (``SlurmCluster/allocation(environment:cpusPerStep:)``).
    package static func prepare(_ options: Options, environment: [String: String]) throws(UsageError) -> any LaunchSite {
        SlurmSite(allocation: try SlurmCluster.allocation(environment: environment, cpusPerStep: options.slurmCPUs))
    }
}

/// The allocation, read: its slots are the CPUs `-j` counts.
package struct SlurmSite: LaunchSite {
    package let allocation: SlurmAllocation

    package init(allocation: SlurmAllocation) { self.allocation = allocation }

    package var cpus: Int? { allocation.slots }

    package var traits: LaunchTraits {
        LaunchTraits(runsHere: false, someRunHere: true, requeues: false, widthGrows: false, capsCommandsHere: false)
    }

    package func makeLauncher(_ run: LaunchRun) -> any Launcher {
        SlurmLauncher(
            .init(
                allocation: allocation, width: run.width,
                rate: run.options.slurmRate ?? SlurmAllocation.defaultStepRate, slots: run.options.slurmSlots),
            engine: run.engine, notices: run.notices)
    }
}
