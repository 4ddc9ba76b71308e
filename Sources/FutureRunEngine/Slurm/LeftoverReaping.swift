import FutureRunModel

/// What a job's leftover processes get on a Slurm node, as on this machine (``ProcessEngine``):
/// once the job's main process has ended, TERM to its process group, and KILL to whatever is left
/// of it after the grace period. Without this, a background child (`(sleep 600) & echo main`) holds
/// the step's output open, and `srun` (or a slot's worker) waits for it. Shell text run on the node.
package enum LeftoverReaping {
    /// Shell text that stops process group `group` (a shell word, such as `$p`): TERM, then KILL to
    /// what is left after `grace`, looked at every tenth of a second. Returns at once when the
    /// group is empty.
    package static func stop(group: String, grace: Duration) -> String {
        let tenths = max(1, Int((grace.seconds * 10).rounded(.up)))
        return "kill -TERM -\(group) 2>/dev/null; i=0; while kill -0 -\(group) 2>/dev/null && [ $i -lt \(tenths) ]; "
            + "do sleep 0.1; i=$((i+1)); done; kill -KILL -\(group) 2>/dev/null"
    }

    /// The `sh -c` script a step runs with the job's command as its arguments. It becomes that
    /// command (`exec`: the step's task is the job itself, so `srun` still reports a signal as a
    /// signal and an exit as an exit), after starting a watcher in a session of its own, output
    /// nowhere, that waits for the task to end (`tail --pid`) and then ``stop(group:grace:)``s
    /// the task's group (`slurmstepd` makes each task a group leader). A job that leaves nothing
    /// behind costs the watcher's start, never a wait.
    static func stepScript(grace: Duration) -> String {
        // Only once tail has seen the task end: a tail without --pid (busybox) stops nothing.
        let watcher = "tail --pid=$0 -s 0.1 -f /dev/null && { " + stop(group: "$0", grace: grace) + "; }"
        return "setsid /bin/sh -c '\(watcher)' $$ </dev/null >/dev/null 2>&1 & exec \"$@\""
    }
}
