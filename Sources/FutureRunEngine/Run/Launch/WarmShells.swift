import FutureCore
import FutureProcess
import FutureRunModel
import Glibc

/// Warm shells: one long-lived shell per slot, started with the slot's first job that fits one
/// (``WarmShellFit``), reading the slot's jobs through a pipe (``WarmShellScript``). A job run
/// there costs no exec of the shell: a builtin costs no process, a program one fork. Each job
/// is a ``RelayedRun`` whose output and end come on the shell's streams: its stdout framed
/// (``SlotFrames``, as `--slurm-slots` frames a slot's jobs) up to its exit status, its stderr
/// as it is (all the shell writes there while a job runs is the job's), its start and end. A job
/// that does not fit one is spawned as before.
///
/// A job that ends its shell (a signal, a fatal error) ends with the shell's status; the slot's
/// next job starts another. Stopping a job stops its slot's shell. Jobs report no CPU times or
/// memory of their own (`--json`'s `user`, `sys`, `max_rss` are 0).
package final class WarmShells: Sendable {
    private struct Shell {
        let run: CommandRun
        let input: InputPipe
        var stdout: SlotFrames
        var job: RelayedRun?
        /// The job's status, once its stdout's frame has ended.
        var status: Int32?
    }

    package let fit: WarmShellFit
    /// The engine the shells, and the jobs that fit none, run on.
    private let engine: ProcessEngine
    private let script: WarmShellScript
    private let shells = Locked<[Int: Shell]>([:])
    /// What ``place(_:slot:)`` found fits the slot's warm shell, for the command each slot starts
    /// next: the attempt, and the way it runs there.
    private let placed = Locked<[Int: (attempt: AttemptSpec, way: WarmShellFit.Way)]>([:])

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

    /// Whether `attempt`, about to start in `slot`, runs in the slot's warm shell: it is then
    /// started there by ``start(_:in:)``. On the pool's starting thread.
    package func place(_ attempt: AttemptSpec, slot: Int) -> Bool {
        let placement = way(for: attempt).map { (attempt, $0) }
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
        let job = RelayedRun { [self] in stop(slot: slot) }
        if shells.withLock({ $0[slot] == nil }) { launch(slot: slot, like: command) }
        let input = shells.withLock { shells -> InputPipe? in
            shells[slot]?.job = job
            return shells[slot]?.input
        }
        if input?.write(script.job(attempt.line, environment: attempt.environment, way: way)) != true {
            shells.withLock { $0[slot]?.job = nil }
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
                run: run, input: input, stdout: SlotFrames(token: script.token, newlineFirst: false))
        }
        run.stdout.setWaker { [self] in pump(slot: slot, ending: false) }
        run.stderr.setWaker { [self] in pump(slot: slot, ending: false) }
        run.result.onComplete(on: .inline) { [self] outcome in shellEnded(slot: slot, outcome.get()) }
    }

    /// What the shell's streams have now, relayed to the slot's job; its stdout's frame ended, the
    /// job ends, once the shell's stderr pipe is read up to then (the job wrote all it will).
    /// `ending`: the shell is gone, so what its frame held back is the job's too. On the engine's
    /// thread.
    private func pump(slot: Int, ending: Bool) {
        var stderrReadUp = ending
        while true {
            let step = shells.withLock { shells -> PumpStep in
                guard var shell = shells[slot] else { return .wait }
                defer { shells[slot] = shell }
                // A read's worth at a time: a job's big output is never copied whole on its way.
                while case let bytes = shell.run.stdout.consume(maxCount: 1 << 16), !bytes.isEmpty {
                    for piece in shell.stdout.feed(bytes) { relay(piece, of: &shell) }
                }
                while case let bytes = shell.run.stderr.consume(maxCount: 1 << 16), !bytes.isEmpty {
                    shell.job?.append(stderr: bytes)
                }
                if ending { for piece in shell.stdout.rest() { relay(piece, of: &shell) } }
                guard let job = shell.job, let status = shell.status else { return .wait }
                guard stderrReadUp else { return .readStderr(shell.run) }
                (shell.job, shell.status) = (nil, nil)
                return .finish(job, status)
            }
            switch step {
            case .wait:
                return
            case .readStderr(let run):
                // Off the engine's thread, the engine reads and wakes this again.
                guard run.readPendingStderr() else { return }
                stderrReadUp = true
            case .finish(let job, let status):
                return job.finish(.exited(status))
            }
        }
    }

    private enum PumpStep {
        case wait
        /// The job's frame has ended: read the rest of its stderr first.
        case readStderr(CommandRun)
        case finish(RelayedRun, Int32)
    }

    /// Hands `piece` of the shell's stdout on to its job, or notes the frame's end.
    private func relay(_ piece: SlotFrames.Piece, of shell: inout Shell) {
        switch piece {
        case .stdout(let bytes): shell.job?.append(stdout: bytes)
        case .stderr(let bytes): shell.job?.append(stderr: bytes)  // never sent: no `e` frames
        case .end(let status): shell.status = status
        }
    }

    /// The slot's shell ended (its input closed at the end, a stop, or a job that ended it): a
    /// job it was running ends with it, with what it wrote; the slot's next job starts another.
    private func shellEnded(slot: Int, _ result: CommandResult) {
        pump(slot: slot, ending: true)
        let job = shells.withLock { shells -> RelayedRun? in
            defer { shells[slot] = nil }
            return shells[slot]?.job
        }
        job?.finish(result.status)
    }

    /// Stops the slot's shell, and with it its job (a stop, `--halt now`).
    private func stop(slot: Int) {
        shells.withLock { $0[slot]?.run }?.cancel()
    }
}
