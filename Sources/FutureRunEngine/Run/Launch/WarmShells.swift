import FutureCore
import FutureProcess
import FutureRunModel
import Glibc

/// Warm shells: one long-lived shell per slot, started with the slot's first job that fits one
/// (``WarmShellFit``), reading the slot's jobs through a pipe (``WarmShellScript``). A job run
/// there costs no exec of the shell: a builtin costs no process, a program one fork. Each job
/// is a ``RelayedRun`` whose output and end come on the shell's streams: its stdout framed
/// (``SlotFrames``, as `--slurm-slots` frames a slot's jobs) up to its exit status, its stderr
/// up to the mark of the job sent behind it, or to its end, its start and end. A job that does not
/// fit one is spawned as before.
///
/// While a shell runs jobs of builtins alone, which end at once, the pool sends it the slot's next
/// jobs behind them (``behind``, up to ``depth``): the shell goes from one to the next without
/// waiting for this process, which reads their frames in batches.
///
/// A job that ends its shell (a signal, a fatal error) ends with the shell's status, and those
/// sent behind it as never begun; the slot's next job starts another. Stopping a job stops its
/// slot's shell. Jobs report no CPU times or memory of their own (`--json`'s `user`, `sys`,
/// `max_rss` are 0).
package final class WarmShells: Sendable {
    private struct Shell {
        let run: CommandRun
        let input: InputPipe
        var stdout: SlotFrames
        var stderr: SlotFrames
        /// Its jobs, the running one first, those sent behind it after.
        var jobs: [ShellJob] = []
        /// How many of `jobs` have ended their stderr: the next one's beginning was marked.
        var stderrEnded = 0
    }

    private struct ShellJob {
        let run: RelayedRun
        let way: WarmShellFit.Way
        /// Its status, once its stdout's frame has ended.
        var status: Int32?
    }

    /// At most this many jobs wait in a shell's pipe behind the running one, only behind
    /// ``WarmShellFit/Way/builtins`` jobs (which end at once), each with a script of at most
    /// ``maxScriptBehind`` bytes: the engine's thread writes them, and must never wait for a shell
    /// that waits for it to read its output, so all of them (16 KiB) fit in its pipe at once.
    package static let depth = 8
    static let maxScriptBehind = 2048

    package let fit: WarmShellFit
    /// The engine the shells, and the jobs that fit none, run on.
    private let engine: ProcessEngine
    private let script: WarmShellScript
    private let shells = Locked<[Int: Shell]>([:])
    /// What ``place(_:slot:)`` found fits the slot's warm shell, for the command each slot starts
    /// next: the attempt, and the way it runs there.
    private let placed = Locked<[Int: (attempt: AttemptSpec, way: WarmShellFit.Way)]>([:])
    /// The slots that have started a job. A slot's first job runs in a fresh shell, and its warm
    /// shell starts with the next: a warm shell saves from its second job on, and costs a run of
    /// one job per slot a round trip of its framing.
    private let slotsStarted = Locked<Set<Int>>([])

    /// Warm shells of `shell` if it is dash or bash itself (after links): a script or wrapper
    /// named `sh` may be meant to run at each job, so it does.
    package init?(fit: WarmShellFit, shell: String, engine: ProcessEngine = .shared) {
        self.engine = engine
        guard let resolved = realpath(shell, nil) else { return nil }
        let name = String(cString: resolved).split(separator: "/").last
        free(resolved)
        guard name == "dash" || name == "bash" else { return nil }
        self.fit = fit
        script = WarmShellScript(
            dialect: name == "dash" ? .dash : .bash, shell: shell,
            token: "futurerun-" + String(UInt64.random(in: 0 ... .max), radix: 16))
    }

    /// Jobs sent behind the running one in a slot's shell (``CommandPool/Behind``), if the run
    /// allows it (``WarmShellFit/queuesBehind``).
    package var behind: CommandPool.Behind? {
        guard fit.queuesBehind else { return nil }
        return CommandPool.Behind(
            depth: Self.depth, takes: { [self] seat in takesBehind(slot: seat.slot) },
            start: { [self] command, seat in startBehind(command, in: seat) })
    }

    /// Whether `attempt`, about to start in `slot`, runs in the slot's warm shell: it is then
    /// started there by ``start(_:in:)``. On the pool's starting thread.
    package func place(_ attempt: AttemptSpec, slot: Int) -> Bool {
        let firstOfSlot = !fit.everyIsolatable && slotsStarted.withLock { $0.insert(slot).inserted }
        let placement = firstOfSlot ? nil : way(for: attempt).map { (attempt, $0) }
        placed.withLock { $0[slot] = placement }
        return placement != nil
    }

    /// How `attempt` would run in a warm shell: `nil` if it runs in a process of its own (it is
    /// exec'd directly, runs in another shell than this run's, reads input, or has a timeout).
    private func way(for attempt: AttemptSpec) -> WarmShellFit.Way? {
        guard attempt.words == nil, attempt.shell == script.shell, attempt.input == nil, attempt.timeout == nil
        else { return nil }
        return fit.way(for: attempt.line)
    }

    /// Starts `command` in the warm shell of `seat`'s slot if ``place(_:slot:)`` found it fits
    /// one, else as a process. On the pool's starting thread.
    package func start(_ command: Command, in seat: CommandPool.Seat) -> CommandRun {
        let slot = seat.slot
        guard let (attempt, way) = placed.withLock({ $0.removeValue(forKey: slot) }) else {
            return engine.start(command)
        }
        if shells.withLock({ $0[slot] == nil }) { launch(slot: slot, like: command) }
        return send(script.job(attempt.line, environment: attempt.environment, way: way), way: way, slot: slot, behind: false)
    }

    /// Whether the slot's shell takes a job behind its running one now: only on the engine's
    /// thread (which alone starts the jobs of a taken slot, so that ``place(_:slot:)`` and the
    /// start of one job never interleave with another's), behind jobs that end at once.
    private func takesBehind(slot: Int) -> Bool {
        guard engine.isLoopThread else { return false }
        return shells.withLock { shells in
            guard let shell = shells[slot], !shell.jobs.isEmpty else { return false }
            return shell.jobs.allSatisfy { $0.way == .builtins }
        }
    }

    /// Sends `command` behind the running job of `seat`'s slot, if ``place(_:slot:)`` found it
    /// fits the warm shell and its script is small; `nil` otherwise (it waits for the slot).
    private func startBehind(_ command: Command, in seat: CommandPool.Seat) -> CommandRun? {
        let slot = seat.slot
        guard let (attempt, way) = placed.withLock({ $0.removeValue(forKey: slot) }) else { return nil }
        let bytes = script.job(attempt.line, environment: attempt.environment, way: way, behind: true)
        guard bytes.count <= Self.maxScriptBehind else { return nil }
        return send(bytes, way: way, slot: slot, behind: true)
    }

    /// Writes a job's script to the slot's shell, and records it as the shell's newest job.
    private func send(_ bytes: [UInt8], way: WarmShellFit.Way, slot: Int, behind: Bool) -> CommandRun {
        let job = RelayedRun(waiting: behind) { [self] in stop(slot: slot) }
        let input = shells.withLock { shells -> InputPipe? in
            shells[slot]?.jobs.append(ShellJob(run: job, way: way))
            return shells[slot]?.input
        }
        if input?.write(bytes) != true {
            shells.withLock { shells in
                guard let index = shells[slot]?.jobs.firstIndex(where: { $0.run === job }) else { return }
                shells[slot]?.jobs.remove(at: index)
            }
            job.finish(.failedToStart(errno: EPIPE))
        }
        return job.run
    }

    /// Ends every shell: their input ends, so each exits. Blocks until they have.
    package func close() {
        let all = shells.withLock { $0.values.map { ($0.input, $0.run) } }
        for (input, _) in all { input.close() }
        for (_, run) in all { _ = run.result.value }
    }

    /// Starts the shell of `slot` in `command`'s working directory, with futurerun's environment
    /// (each job exports its own variables). Its streams' wakers and its end are hooked up once it
    /// is recorded (they may run at once).
    private func launch(slot: Int, like command: Command) {
        guard let input = InputPipe(), input.write(script.prologue) else { return }
        var shellCommand = Command(script.arguments)
        shellCommand.workingDirectoryBytes = command.workingDirectoryBytes
        shellCommand.gracePeriod = command.gracePeriod
        shellCommand.input = input
        let run = engine.start(shellCommand)
        run.stdout.discardConsumed()
        run.stderr.discardConsumed()
        shells.withLock {
            $0[slot] = Shell(
                run: run, input: input, stdout: SlotFrames(token: script.token, newlineFirst: false),
                stderr: SlotFrames(token: script.token, newlineFirst: false))
        }
        run.stdout.setWaker { [self] in pump(slot: slot, ending: false) }
        run.stderr.setWaker { [self] in pump(slot: slot, ending: false) }
        run.result.onComplete(on: .inline) { [self] outcome in shellEnded(slot: slot, outcome.get()) }
    }

    /// What the shell's streams have now, relayed to the slot's jobs; a job whose stdout's frame
    /// has ended ends once its stderr has: at the mark of the job sent behind it, or, if none was,
    /// once the shell's stderr pipe is read up to now (the job wrote all it will). `ending`: the
    /// shell is gone, so what its frames held back is its jobs' too. On the engine's thread.
    private func pump(slot: Int, ending: Bool) {
        var stderrReadUp = false
        while true {
            let step = shells.withLock { shells -> PumpStep in
                guard var shell = shells[slot] else { return PumpStep() }
                defer { shells[slot] = shell }
                // A read's worth at a time: a job's big output is never copied whole on its way.
                while case let bytes = shell.run.stdout.consume(maxCount: 1 << 16), !bytes.isEmpty {
                    for piece in shell.stdout.feed(bytes) { relay(piece, of: &shell, stderr: false) }
                }
                while case let bytes = shell.run.stderr.consume(maxCount: 1 << 16), !bytes.isEmpty {
                    for piece in shell.stderr.feed(bytes) { relay(piece, of: &shell, stderr: true) }
                }
                if ending {
                    for piece in shell.stdout.rest() { relay(piece, of: &shell, stderr: false) }
                    for piece in shell.stderr.rest() { relay(piece, of: &shell, stderr: true) }
                }
                var step = PumpStep()
                while let first = shell.jobs.first, let status = first.status {
                    if shell.stderrEnded == 0, !ending {
                        // The mark of the job behind it is on its way.
                        guard shell.jobs.count == 1 else { break }
                        guard stderrReadUp else {
                            step.readStderr = shell.run
                            break
                        }
                        stderrReadUp = false
                    }
                    shell.jobs.removeFirst()
                    shell.stderrEnded = max(0, shell.stderrEnded - 1)
                    step.changes.append(.finished(first.run, status))
                    // The next one runs now.
                    if let next = shell.jobs.first { step.changes.append(.began(next.run)) }
                }
                return step
            }
            for change in step.changes {
                switch change {
                case .finished(let job, let status): job.finish(.exited(status))
                case .began(let job): job.begin()
                }
            }
            // Off the engine's thread, the engine reads and wakes this again.
            guard let run = step.readStderr, run.readPendingStderr() else { return }
            stderrReadUp = true
        }
    }

    private struct PumpStep {
        enum Change {
            case finished(RelayedRun, Int32)
            /// The job behind it runs now, once the one before it has ended.
            case began(RelayedRun)
        }

        /// In order: each job ends before the next begins.
        var changes: [Change] = []
        /// The only job's frame has ended: read the rest of its stderr first.
        var readStderr: CommandRun?
    }

    /// Hands `piece` of the shell's stdout or `stderr` on to the job it belongs to, or notes a
    /// frame's end: on stdout, the oldest job without a status; on stderr, the oldest whose
    /// stderr has not ended.
    private func relay(_ piece: SlotFrames.Piece, of shell: inout Shell, stderr: Bool) {
        switch piece {
        case .stdout(let bytes) where stderr:
            if shell.stderrEnded < shell.jobs.count { shell.jobs[shell.stderrEnded].run.append(stderr: bytes) }
        case .stdout(let bytes):
            shell.jobs.first { $0.status == nil }?.run.append(stdout: bytes)
        case .stderr:
            break  // never sent: no `e` frames
        case .end where stderr:
            shell.stderrEnded = min(shell.stderrEnded + 1, shell.jobs.count)
        case .end(let status):
            if let index = shell.jobs.firstIndex(where: { $0.status == nil }) { shell.jobs[index].status = status }
        }
    }

    /// The slot's shell ended (its input closed at the end, a stop, or a job that ended it): the
    /// job it was running ends with it, with what it wrote; those sent behind it never began
    /// (``TerminationStatus/cancelled``). The slot's next job starts another.
    private func shellEnded(slot: Int, _ result: CommandResult) {
        pump(slot: slot, ending: true)
        let jobs = shells.withLock { shells -> [ShellJob] in
            defer { shells[slot] = nil }
            return shells[slot]?.jobs ?? []
        }
        for (index, job) in jobs.enumerated() { job.run.finish(index == 0 ? result.status : .cancelled) }
    }

    /// Stops the slot's shell, and with it its job (a stop, `--halt now`).
    private func stop(slot: Int) {
        shells.withLock { $0[slot]?.run }?.cancel()
    }
}
