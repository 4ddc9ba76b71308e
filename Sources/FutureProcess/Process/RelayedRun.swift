import FutureCore
import Glibc

/// A command's run that no process of this one's stands for: a job that a long-lived worker runs
/// on this process's behalf (a step of a cluster's allocation, say). Its owner appends the output
/// as the worker sends it and finishes it with the job's status; to the rest of the program it is
/// a ``CommandRun`` like any other. Cancelling its result calls `onCancel` (stop the job there).
package final class RelayedRun: Sendable {
    package let run: CommandRun
    private let promise = Promise<CommandResult, Never>()
    private let stdout = CapturedOutput(memoryLimit: 256 * 1024, spillDirectory: TemporaryDirectory.path)
    private let stderr = CapturedOutput(memoryLimit: 256 * 1024, spillDirectory: TemporaryDirectory.path)
    /// When the job began: as it was made, or, for one that waits, as ``begin()`` says.
    private let start: Start

    private final class Start: Sendable {
        let state: Locked<(instant: ContinuousClock.Instant, unixTime: Double, waiting: Bool)>

        init(waiting: Bool) {
            state = Locked((ContinuousClock.now, CommandResult.unixTimeNow(), waiting))
        }
    }

    /// - Parameter waiting: the job waits behind another in its worker's queue until ``begin()``
    ///   (``CommandRun/isWaiting``); else it begins now.
    package init(waiting: Bool = false, onCancel: @escaping @Sendable () -> Void) {
        let start = Start(waiting: waiting)
        self.start = start
        run = CommandRun(
            stdout: stdout, stderr: stderr, result: promise.future, spawned: true,
            waiting: { start.state.withLock { $0.waiting } })
        promise.onCancel(onCancel)
    }

    /// The job begins now: its turn has come in its worker's queue. Any thread.
    package func begin() {
        start.state.withLock { $0 = (ContinuousClock.now, CommandResult.unixTimeNow(), false) }
    }

    /// More of the job's stdout or stderr. Any thread, in order.
    package func append(stdout bytes: [UInt8]) { append(bytes, to: stdout) }
    package func append(stderr bytes: [UInt8]) { append(bytes, to: stderr) }

    private func append(_ bytes: [UInt8], to output: CapturedOutput) {
        guard !bytes.isEmpty else { return }
        output.append(bytes)
        output.wakeReader()
    }

    /// The job ended with `status` (its output all appended); the run's result resolves now. Any
    /// thread; only the first call counts.
    package func finish(_ status: TerminationStatus) {
        stdout.markFinished()
        stderr.markFinished()
        let (started, startTime, _) = start.state.withLock { $0 }
        promise.tryComplete(
            .success(
                CommandResult(
                    notSpawnedHere: status, startTime: startTime, wallTime: .now - started, stdout: stdout, stderr: stderr)))
        stdout.wakeReaderAtEnd()
        stderr.wakeReaderAtEnd()
    }
}
