import FutureCore
import FutureProcess
import FutureRunModel
import Glibc

/// What futurerun asks of Slurm's own commands: the allocation's nodes (`scontrol show
/// hostnames`), each job's step (`srun`), and cancelling steps a stop left behind (`squeue`,
/// `scancel`). Each call blocks until the command ends.
package enum SlurmCluster {
    /// The allocation this process runs in, with `--slurm-cpus`; why not as a usage error.
    package static func allocation(environment: [String: String], cpusPerStep: Int?) throws(UsageError) -> SlurmAllocation {
        let list = environment["SLURM_JOB_NODELIST"] ?? ""
        var names: [String] = []
        if environment["SLURM_JOB_ID"] != nil, !list.isEmpty {
            guard SlurmAllocation.isNodeList(list) else {
                throw .invalidValue(
                    option: "--slurm", value: "SLURM_JOB_NODELIST=\(list)", expected: "a Slurm node list, such as node[1-4,7]")
            }
            let result = Command(["scontrol", "show", "hostnames", list]).run().value
            guard result.status == .exited(0) else {
                throw .needsOption(
                    option: "--slurm", needs: "Slurm's scontrol, to read the allocation's nodes (\(list))",
                    example: "module load slurm; futurerun --slurm ...")
            }
            names = String(decoding: result.stdout.bytes(), as: UTF8.self).split(separator: "\n").map(String.init)
        }
        switch SlurmAllocation.make(environment: environment, nodeNames: names, cpusPerStep: cpusPerStep) {
        case .success(let allocation): return allocation
        case .failure(.outsideAllocation):
            throw .needsOption(
                option: "--slurm", needs: "a Slurm allocation to run in (SLURM_JOB_ID is not set)",
                example: "salloc -n 8 futurerun --slurm ...  or  sbatch -n 8 --wrap 'futurerun --slurm ...'")
        case .failure(.unreadable(let said)):
            throw .invalidValue(option: "--slurm", value: said, expected: "the variables of a Slurm allocation")
        }
    }

    /// The `srun` that runs `local`'s program as a step of one task with `cpus` CPUs on `node`,
    /// named `name`, whose leftover processes end with it (``LeftoverReaping``); the rest of
    /// `local` (environment, directory, input, timeout) as it is.
    package static func step(_ local: Command, node: String, cpus: Int, name: String) -> Command {
        var command = local
        command.argumentBytes =
            [
                "srun", "--exact", "--nodes=1", "--ntasks=1", "--cpus-per-task=\(cpus)", "--nodelist=\(node)",
                "--job-name=\(name)", "--quiet", "--kill-on-bad-exit=1",
                "/bin/sh", "-c", LeftoverReaping.stepScript(grace: local.gracePeriod), "sh",
            ].map { Array($0.utf8) } + local.argumentBytes
        return command
    }

    /// Why job `jobID` (the allocation) is over — its state, such as `CANCELLED`, `TIMEOUT` or
    /// `NODE_FAIL`, or `gone` once Slurm no longer lists it — or `nil` while it runs (or while
    /// `squeue` cannot reach the controller, when nothing is certain).
    package static func ending(ofJob jobID: String) -> String? {
        let listed = Command(["squeue", "--noheader", "--jobs=\(jobID)", "--format=%T"]).run().value
        guard listed.status == .exited(0) else {
            // Slurm forgets a job soon after it ends: an unknown id is an allocation that has.
            let said = String(decoding: listed.stderr.bytes(), as: UTF8.self)
            return said.contains("Invalid job id") ? "gone" : nil
        }
        let state = String(decoding: listed.stdout.bytes(), as: UTF8.self).filter { !$0.isWhitespace }
        return ["RUNNING", "SUSPENDED", "CONFIGURING"].contains(state) ? nil : state.isEmpty ? "gone" : state
    }

    /// Cancels the steps named `name` still running in job `jobID` (left by a stop whose `srun`
    /// was killed before it could cancel its step), and waits until Slurm no longer lists them
    /// (at most `patience`): when futurerun ends, no step of its is left.
    static func cancelSteps(jobID: String, name: String, patience: Duration = .seconds(5)) {
        let steps = listSteps(jobID: jobID, name: name)
        guard !steps.isEmpty else { return }
        _ = Command(["scancel", "--quiet"] + steps).run().value
        let deadline = ContinuousClock.now + patience
        while ContinuousClock.now < deadline, !listSteps(jobID: jobID, name: name).isEmpty { usleep(50_000) }
    }

    /// The ids of job `jobID`'s steps named `name`, as `squeue` lists them.
    private static func listSteps(jobID: String, name: String) -> [String] {
        let listed = Command(["squeue", "--steps", "--noheader", "--jobs=\(jobID)", "--format=%i %j"]).run().value
        return String(decoding: listed.stdout.bytes(), as: UTF8.self).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count == 2 && fields[1] == name ? String(fields[0]) : nil
        }
    }
}
