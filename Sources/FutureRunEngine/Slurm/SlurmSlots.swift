import FutureCore
import FutureProcess
import FutureRunModel
import Glibc

/// `--slurm-slots`: one long-lived step per slot, started with the slot's first job, that runs the
/// slot's jobs one after another (``SlotWorker``): a job costs the worker a subshell, not a step.
/// Each job is a ``RelayedRun``: its output and end come from the worker's stdout (``SlotFrames``).
/// Stopping a job stops its slot's worker (its `srun` cancels the step); the next job of that slot
/// starts another. Steps are not accounted per job.
package final class SlurmSlots: Sendable {
    private struct Slot {
        var worker: CommandRun?
        var input: InputPipe?
        var frames: SlotFrames
        var job: RelayedRun?
        /// When the job started and its `--timeout`, if it has one.
        var timeout: (started: ContinuousClock.Instant, limit: Duration)?
    }

    private let allocation: SlurmAllocation
    private let stepName: String
    /// The engine the workers run on.
    private let engine: ProcessEngine
    /// Marks the end of each job in the workers' streams: random, so no job's output holds it.
    private let token = "futurerun-" + String(UInt64.random(in: 0 ... .max), radix: 16)
    private let slots = Locked<[Int: Slot]>([:])

    package init(allocation: SlurmAllocation, stepName: String, engine: ProcessEngine = .shared) {
        self.engine = engine
        self.allocation = allocation
        self.stepName = stepName
    }

    /// Runs `command` (a job's `shell -c line`) on the worker of its seat's slot, starting the
    /// worker if the slot has none. On the pool's starting thread.
    package func start(_ command: Command, in seat: CommandPool.Seat) -> CommandRun {
        let slot = seat.slot
        let job = RelayedRun { [self] in stop(slot: slot) }
        if slots.withLock({ $0[slot]?.worker == nil }) { launch(slot: slot, grace: command.gracePeriod) }
        let input = slots.withLock { slots -> InputPipe? in
            slots[slot]?.job = job
            slots[slot]?.timeout = command.timeout.map { (.now, $0) }
            return slots[slot]?.input
        }
        if input?.write(SlotWorker.payload(command)) != true {
            slots.withLock { $0[slot]?.job = nil }
            job.finish(.failedToStart(errno: EPIPE))
        }
        return job.run
    }

    /// Ends every worker: their input ends, so each finishes its loop and its step ends. Blocks
    /// until they have (a stop has cancelled them already).
    package func close() {
        let workers = slots.withLock { slots in slots.values.compactMap { slot in slot.input.map { ($0, slot.worker) } } }
        for (input, _) in workers { input.close() }
        for case (_, let worker?) in workers { _ = worker.result.value }
    }

    /// Starts a worker for `slot`: `srun` on the slot's node, fed through a pipe, its jobs'
    /// leftovers given `grace`. Its streams' wakers and its end are hooked up once it is recorded
    /// (they may run at once).
    private func launch(slot: Int, grace: Duration) {
        guard let input = InputPipe() else { return }
        var command = SlurmCluster.step(
            Command(["/bin/sh", "-c", SlotWorker.shell, "sh", SlotWorker.loop(token: token, grace: grace)]),
            node: allocation.node(ofSlot: slot),
            cpus: allocation.cpusPerStep, name: stepName)
        command.input = input
        let worker = engine.start(command)
        worker.stdout.discardConsumed()
        slots.withLock { $0[slot] = Slot(worker: worker, input: input, frames: SlotFrames(token: token)) }
        worker.stdout.setWaker { [self] in pump(slot: slot) }
        worker.result.onComplete(on: .inline) { [self] outcome in workerEnded(slot: slot, outcome.get()) }
    }

    /// What a worker's stdout has now, relayed to the slot's job; its end finishes the job. On the
    /// engine's thread (the stream's waker).
    private func pump(slot: Int) {
        let finished = slots.withLock { slots -> (RelayedRun, TerminationStatus)? in
            guard var state = slots[slot], let worker = state.worker else { return nil }
            defer { slots[slot] = state }
            var ended: (RelayedRun, TerminationStatus)?
            for piece in state.frames.feed(worker.stdout.consume()) {
                switch piece {
                case .stdout(let bytes): state.job?.append(stdout: bytes)
                case .stderr(let bytes): state.job?.append(stderr: bytes)
                case .end(let status):
                    if let job = state.job {
                        ended = (job, SlotWorker.timedOut(status: status, state.timeout) ? .timedOut : .exited(status))
                    }
                    state.job = nil
                }
            }
            return ended
        }
        if let (job, status) = finished { job.finish(status) }
    }

    /// The worker's step ended (its input closed at the end, a stop, or a failure): a job it was
    /// running ends with it, and the slot's next job starts another worker.
    private func workerEnded(slot: Int, _ result: CommandResult) {
        let job = slots.withLock { slots -> RelayedRun? in
            defer { slots[slot] = nil }
            return slots[slot]?.job
        }
        job?.finish(result.status == .exited(0) ? .exited(255) : result.status)
    }

    /// Stops the slot's worker, and with it its job (a stop, `--halt now`).
    private func stop(slot: Int) {
        slots.withLock { $0[slot]?.worker }?.cancel()
    }
}

/// The shell side of a slot's worker: a loop on the node that reads each job as a counted script
/// (``JobScript``) from its stdin, runs it in a session of its own with stdin from `/dev/null`,
/// stops what it leaves behind (``LeftoverReaping``, so nothing of it writes into the next job's
/// frame), and sends its stdout, stderr and status framed on its own stdout (``SlotFrames``).
package enum SlotWorker {
    /// Whether a job with `timeout` that ended with `status` was stopped by `timeout -k`: 124 when
    /// TERM ended it, 137 when it ignored TERM until KILL (after its limit: else its own KILL).
    package static func timedOut(
        status: Int32, _ timeout: (started: ContinuousClock.Instant, limit: Duration)?, now: ContinuousClock.Instant = .now
    ) -> Bool {
        guard let timeout else { return false }
        return status == 124 || (status == 128 + SIGKILL && now - timeout.started >= timeout.limit)
    }

    /// Runs the loop (its first argument) with bash where the node has it, else with `sh`: bash
    /// with job control (`set -m`, which needs no terminal in bash) gives each job a process group
    /// for the cost of a fork; `sh` needs `setsid` and a shell of its own for each.
    package static let shell = "command -v bash >/dev/null 2>&1 && exec bash -c \"$1\"; eval \"$1\""

    /// Its job's stderr (and, without job control, its script) go to files in a directory of its
    /// own on the node; the stderr is sent after the job's end. Its own stderr goes nowhere: bash
    /// reports each job's end there, and each write to a step's stderr costs a delay in Slurm's
    /// I/O forwarding.
    package static func loop(token: String, grace: Duration) -> String {
        """
        d=$(mktemp -d) || exit 1; trap 'rm -rf "$d"' EXIT; trap 'rm -rf "$d"; exit 143' TERM
        n=$(echo;echo .);n=${n%.}; exec 2>/dev/null; set -m; case $- in *m*) m=1;; *) m=;; esac
        while IFS= read -r c; do s=;i=0
        while [ "$i" -lt "$c" ]; do IFS= read -r l || exit 0; s=$s$l$n; i=$((i+1)); done
        if [ "$m" ]; then (eval "$s") </dev/null 2>"$d/e" & p=$!
        else printf %s "$s" >"$d/s"; setsid /bin/sh "$d/s" </dev/null 2>"$d/e" & p=$!; fi; wait $p; r=$?
        \(LeftoverReaping.stop(group: "$p", grace: grace))
        if [ -s "$d/e" ]; then printf '\\n\\036%s e %s\\n' '\(token)' $(($(wc -c <"$d/e"))); cat "$d/e"; fi
        printf '\\n\\036%s s %s\\n' '\(token)' "$r"
        done
        """
    }

    /// The job `command` (`shell -c line`, its environment and directory, its `--timeout` as
    /// `timeout -k GRACE T`) as the loop reads it.
    static func payload(_ command: Command) -> [UInt8] {
        var script = JobScript.prelude(
            environment: command.environment.map { ($0.name, Array($0.value.utf8)) },
            workingDirectory: command.workingDirectoryBytes)
        if let timeout = command.timeout {
            script += Array(
                "exec timeout -k \(String(format3: command.gracePeriod.seconds)) \(String(format3: timeout.seconds)) ".utf8)
        }
        script += command.argumentBytes.map(ShellQuoting.word).joined(separator: [0x20]) + [0x0A]
        return JobScript.counted(script)
    }
}
