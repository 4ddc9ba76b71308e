import CFutureShims
import FutureCore
import Glibc
import Synchronization

/// Receives SIGINT, SIGTERM and SIGHUP on a thread of its own (`sigwait`), so that no handler runs
/// in an arbitrary thread and the jobs never see futurerun's handling: children start with an empty
/// signal mask and the dispositions futurerun inherited.
///
/// ``prepare()`` must run first thing in `main`, before any thread exists, so that every thread
/// inherits the blocked mask.
public enum SignalWatcher {
    static let watched: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    private static let received = Atomic<Int32>(0)

    /// Blocks the watched signals in this (the only) thread, and ignores SIGPIPE, so that a reader
    /// going away shows up as EPIPE; children get SIGPIPE back at its default if it was.
    public static func prepare() {
        _ = watched.withUnsafeBufferPointer { fr_block_signals($0.baseAddress, Int32($0.count)) }
        if fr_signal_disposition(SIGPIPE) == 0 {
            fr_ignore_signal(SIGPIPE)
            ProcessEngine.shared.resetInChildren([SIGPIPE])
        }
    }

    /// Starts the watching thread; `handler` runs on it for the first watched signal that arrives
    /// (later ones are counted, and ignored).
    public static func start(_ handler: @escaping @Sendable (Int32) -> Void) {
        Thread.detach {
            while true {
                let signal = watched.withUnsafeBufferPointer { fr_wait_signal($0.baseAddress, Int32($0.count)) }
                if received.compareExchange(expected: 0, desired: signal, ordering: .relaxed).exchanged {
                    handler(signal)
                }
            }
        }
    }

    /// The first watched signal received, or 0.
    public static var receivedSignal: Int32 { received.load(ordering: .relaxed) }
}
