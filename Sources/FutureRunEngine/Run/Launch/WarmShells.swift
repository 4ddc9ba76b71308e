import FutureCore
import FutureProcess
import FutureRunModel
import Glibc

/// Warm shells: one long-lived shell per slot, started with the slot's first job that fits one
/// (``WarmShellFit``), reading the slot's jobs through a pipe (``WarmShellScript``). A job run
/// there costs no exec of the shell: a builtin costs no process, a program one fork. Each job
/// is a ``RelayedRun`` whose output and end come framed on the shell's stdout and stderr
/// (``SlotFrames``, as `--slurm-slots` frames a slot's jobs): its own stdout and stderr, its exit
/// status, its start and end. A job that does not fit one is spawned as before.
///
/// A job that ends its shell (a signal, a fatal error) ends with the shell's status; the slot's
/// next job starts another. Stopping a job stops its slot's shell. Jobs report no CPU times or
/// memory of their own (`--json`'s `user`, `sys`, `max_rss` are 0).
package final class WarmShells: Sendable {
    private struct Shell {
        let run: CommandRun
        let input: InputPipe
        var stdout: SlotFrames
        var stderr: SlotFrames
        var job: RelayedRun?
        /// The job's status, once its stdout's frame has ended.
        var status: Int32?
        var stderrEnded = false
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
                run: run, input: input, stdout: SlotFrames(token: script.token, newlineFirst: false),
                stderr: SlotFrames(token: script.token, newlineFirst: false))
        }
        run.stdout.setWaker { [self] in pump(slot: slot, ending: false) }
        run.stderr.setWaker { [self] in pump(slot: slot, ending: false) }
        run.result.onComplete(on: .inline) { [self] outcome in shellEnded(slot: slot, outcome.get()) }
    }

    /// What the shell's streams have now, relayed to the slot's job; both frames ended, the job
    /// ends. `ending`: the shell is gone, so what its frames held back is the job's too. On the
    /// engine's thread.
    private func pump(slot: Int, ending: Bool) {
        let finished = shells.withLock { shells -> (RelayedRun, Int32)? in
            guard var shell = shells[slot] else { return nil }
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
            guard let job = shell.job, let status = shell.status, shell.stderrEnded else { return nil }
            (shell.job, shell.status, shell.stderrEnded) = (nil, nil, false)
            return (job, status)
        }
        if let (job, status) = finished { job.finish(.exited(status)) }
    }

    /// Hands `piece` of the shell's stdout or `stderr` on to its job, or notes the frame's end.
    private func relay(_ piece: SlotFrames.Piece, of shell: inout Shell, stderr: Bool) {
        switch piece {
        case .stdout(let bytes), .stderr(let bytes):
            if stderr { shell.job?.append(stderr: bytes) } else { shell.job?.append(stdout: bytes) }
        case .end(let status):
            if stderr { shell.stderrEnded = true } else { shell.status = status }
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
