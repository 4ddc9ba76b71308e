import FutureCore
import FutureProcess
import FutureRunModel
import Glibc
import Synchronization

/// Receives futurerun's signals on a thread of its own (`sigwait`), so that no handler runs in an
/// arbitrary thread and the jobs never see futurerun's handling: children start with an empty
/// signal mask and the dispositions futurerun inherited.
///
/// - SIGINT, SIGTERM: the first calls the stop handler (the run stops, the jobs get their grace
///   period); a second of any of them calls the kill handler (the jobs are killed now), unless it
///   comes within 100 ms of the first: that is the same signal sent to the process and to its
///   group (`timeout -s INT`, a terminal's Ctrl-C seen twice), one press (``StopPresses``).
/// - SIGHUP, as GNU parallel answers it: the first calls the drain handler (nothing new starts,
///   running jobs finish, the exit status is the run's); after it, a HUP, INT or TERM stops as
///   above. A batch system's warning before the end of an allocation is this.
/// - SIGUSR1, as GNU parallel answers it: the report handler says which jobs run, and the run goes on.
/// - SIGTSTP (Ctrl-Z): every job's process group is stopped, then futurerun stops itself;
///   SIGCONT (`fg`, `bg`): the jobs' groups go on too. Jobs run in groups of their own, so the
///   terminal's signals reach only futurerun: it passes them on.
///
/// ``prepare()`` must run first thing in `main`, before any thread exists, so that every thread
/// inherits the blocked mask. ``start()`` starts the watching thread once the arguments are read,
/// before the plan, so that a signal is answered at once even while the plan waits (a FIFO named
/// by `-a` blocks `open` until a writer comes): before a run has set its handlers
/// (``handle(stop:kill:drain:report:)``), a stop signal ends futurerun with 128 + N, nothing having run.
package enum SignalWatcher {
    static let watched: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGTSTP, SIGCONT]
    private static let received = Atomic<Int32>(0)
    private static let draining = Atomic<Bool>(false)

    /// What a run does on each signal (``handle(stop:kill:drain:report:)``).
    private struct Handlers {
        let stop: @Sendable (Int32) -> Void
        let kill: @Sendable () -> Void
        let drain: @Sendable () -> Void
        let report: @Sendable () -> Void
    }

    private static let handlers = Locked<Handlers?>(nil)

    /// Blocks the watched signals in this (the only) thread, and ignores SIGPIPE, so that a reader
    /// going away shows up as EPIPE; children get SIGPIPE back at its default if it was.
    /// It creates no engine (whose thread `--help` and `--version` do without).
    package static func prepare() {
        ProcessSignals.block(watched)
        if ProcessSignals.isDefault(SIGPIPE) {
            ProcessSignals.ignore(SIGPIPE)
            ProcessEngine.resetInChildren([SIGPIPE])
        }
    }

    /// What a run does on a signal, each on the watching thread: `stop` for the first SIGINT or
    /// SIGTERM (or a HUP after a drain), `kill` for the next, `drain` for a first SIGHUP, `report`
    /// for each SIGUSR1.
    package static func handle(
        stop: @escaping @Sendable (Int32) -> Void, kill: @escaping @Sendable () -> Void,
        drain: @escaping @Sendable () -> Void, report: @escaping @Sendable () -> Void
    ) {
        handlers.withLock { $0 = Handlers(stop: stop, kill: kill, drain: drain, report: report) }
    }

    /// Starts the watching thread (once; `--help` and `--version` need none).
    package static func start() {
        OSThread.detach(name: "futurerun-signal") {
            var presses = StopPresses()
            while true {
                let signal = ProcessSignals.wait(for: watched)
                switch signal {
                case SIGTSTP:
                    // The jobs first, so none runs on while futurerun is stopped.
                    _ = ProcessEngine.shared.signalRunningGroups(SIGSTOP).value
                    Glibc.kill(getpid(), SIGSTOP)
                case SIGCONT:
                    ProcessEngine.shared.signalRunningGroups(SIGCONT)
                case SIGUSR1:
                    handlers.withLock { $0 }?.report()
                default:
                    // No run yet (the plan is still reading its inputs): nothing to stop or report.
                    guard let run = handlers.withLock({ $0 }) else { _exit(128 + signal) }
                    if signal == SIGHUP, receivedSignal == 0,
                        draining.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
                    {
                        run.drain()
                        continue
                    }
                    let first = received.compareExchange(expected: 0, desired: signal, ordering: .relaxed).exchanged
                    switch presses.action(first: first, at: .now) {
                    case .stop: run.stop(signal)
                    case .kill: run.kill()
                    case .sameAsBefore: continue
                    }
                }
            }
        }
    }

    /// The signal that stopped the run (SIGINT, SIGTERM, or a HUP after a drain), or 0.
    package static var receivedSignal: Int32 { received.load(ordering: .relaxed) }
}

/// Which stop signal is a new press: one that comes within ``echo`` of the first is that press
/// again (sent to the process and to its group), not a second Ctrl-C. A plain value, used by the
/// watching thread alone.
package struct StopPresses {
    package static let echo: Duration = .milliseconds(100)
    private var first: ContinuousClock.Instant?

    package enum Action: Equatable { case stop, kill, sameAsBefore }

    /// `first`: no stop signal came before this one.
    package mutating func action(first isFirst: Bool, at now: ContinuousClock.Instant) -> Action {
        if isFirst {
            first = now
            return .stop
        }
        if let first, now - first < Self.echo { return .sameAsBefore }
        return .kill
    }
}
