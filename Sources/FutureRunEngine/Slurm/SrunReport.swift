import FutureRunModel
import Glibc

/// What `srun` says of its task on the last line of its stderr, the only place that tells a task
/// killed by a signal from one that exited with 128 + N (its own exit status is 143 for both):
///
///     srun: error: node1: task 0: Terminated
///     srun: error: node1: task 0: Exited with exit code 143
///
/// A value read from bytes; tested on byte strings.
package enum SrunReport {
    /// How much of a step's stderr holds that line.
    static let tailLength = 512

    /// The signal that ended the task, if the last line of `tail` says one did.
    package static func signal(inTail tail: [UInt8]) -> Int32? {
        var text = String(decoding: tail, as: UTF8.self)
        while text.hasSuffix("\n") { text.removeLast() }
        guard let line = text.split(separator: "\n").last, line.hasPrefix("srun: error: "),
            let task = line.firstRange(of: ": task ")
        else { return nil }
        let said = line[task.upperBound...].drop { $0 != ":" }.dropFirst().drop { $0 == " " }
        guard !said.hasPrefix("Exited with exit code") else { return nil }
        return (1...64).first { String(cString: strsignal(Int32($0))) == said }.map(Int32.init)
    }

    /// Whether `srun` says the allocation can start no more steps: it was refused one because the
    /// allocation is ending or over (its time limit, a cancel), whatever `squeue` still lists:
    ///
    ///     srun: error: Unable to create step for job 23: Job/step already completing or completed
    static func allocationRefusesSteps(inTail tail: [UInt8]) -> Bool {
        let text = String(decoding: tail, as: UTF8.self)
        return text.split(separator: "\n").contains { line in
            line.hasPrefix("srun: error: Unable to create step for job ")
                && ["already completing or completed", "Job has expired", "Invalid job id"].contains { line.contains($0) }
        }
    }

    /// Whether `srun` says Slurm cut the step short — its node failed, or the step or job was
    /// cancelled — whatever its exit status (on a node failure it is 0).
    static func stepWasCut(inTail tail: [UInt8]) -> Bool {
        let text = String(decoding: tail, as: UTF8.self)
        return text.split(separator: "\n").contains { line in
            (line.hasPrefix("srun: error: Node failure on ")) || (line.contains("*** STEP ") && line.contains(" CANCELLED AT "))
                || (line.contains("*** JOB ") && line.contains(" CANCELLED AT "))
        }
    }
}
