import FutureProcess
import FutureRunModel
import Glibc

/// Where a job's attempts run, and how many at once. The ``Scheduler`` decides which job starts
/// when (window, input order, retries, halt, jobs that wait for jobs); a launcher owns the slots
/// and what widens or narrows them (`-j`, make's jobserver, the system's refusals, each machine's
/// connections), places each attempt's command, and judges whether an attempt's end stands.
///
/// ``place(_:seat:)`` runs on the thread that starts the attempt; ``judge(_:at:refusals:stopping:verdict:)``
/// on the engine's thread as the attempt ends, before its slot is given again.
package protocol Launcher: Sendable {
    /// The slots attempts wait for and run in, and the one writer of their width.
    var governor: WidthGovernor { get }
    /// Whether a short job list may be handed over on the scheduler's caller's thread: not when
    /// the width grows from a thread of the launcher's own.
    var handsOverInline: Bool { get }
    /// Before the first job. Never blocks.
    func open()
    /// At the end of the run, also after a signal. Blocks until done.
    func close()
    /// An attempt was queued: more room may be wanted.
    func queued()
    /// Why no attempt can run any more, if none can.
    var unavailable: String? { get }
    /// The command `attempt` runs as in `seat`, and where it runs.
    func place(_ attempt: AttemptSpec, seat: CommandPool.Seat) -> (Command, Placement)
    /// An attempt has started (a process was spawned), on the thread that started it.
    func started(_ run: CommandRun, at placement: Placement)
    /// Whether an attempt's end stands, given to `verdict` now or later (on any thread).
    /// `refusals`: how often its spawn was refused before; `stopping`: the run is stopping.
    func judge(
        _ result: CommandResult, at placement: Placement, refusals: Int, stopping: Bool,
        verdict: @escaping @Sendable (AttemptVerdict) -> Void)
    /// What admission cost the attempt that ended at `placement` (``AttemptVerdict/stands``
    /// given); asked once.
    func admissionTimes(at placement: Placement) -> AdmissionTimes
}

extension Launcher {
    /// The slots attempts wait for and run in.
    var pool: CommandPool { governor.pool }

    package func started(_ run: CommandRun, at placement: Placement) {}

    package func admissionTimes(at placement: Placement) -> AdmissionTimes { .none }

    /// The verdict on an attempt whose spawn the system refused for lack of processes or
    /// descriptors (``SpawnRefusal``): fewer at once, said once, and again; `nil` for any other end,
    /// or when it is time to give up.
    func spawnRefusal(_ result: CommandResult, refusals: Int, stopping: Bool, notices: Notices) -> AttemptVerdict? {
        guard case .failedToStart(let error) = result.status, [EAGAIN, EMFILE, ENFILE].contains(error), !stopping,
            case .retry(let width, let delay) = SpawnRefusal.decide(
                refusals: refusals, running: pool.running, width: governor.width)
        else { return nil }
        if governor.narrow(.spawnRefusal, to: width, reason: "the system refused to start more processes") {
            notices.postOnce("the system refused to start more processes; running at most \(width) jobs at once")
        }
        return .refused(retryAfter: delay)
    }
}
