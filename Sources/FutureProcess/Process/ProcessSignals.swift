import FutureCore
import _CFutureShims

/// Signal handling for a program that runs commands: signals are taken on one thread with
/// `sigwait` instead of handlers, so no handler runs in an arbitrary thread and children (which
/// start with an empty mask) see none of it.
///
///     ProcessSignals.block([SIGINT, SIGTERM])        // first thing in main, before any thread
///     let signal = ProcessSignals.wait(for: [SIGINT, SIGTERM])   // on a thread of its own
package enum ProcessSignals {
    /// Blocks `signals` in the calling thread and so in every thread it starts later: call it
    /// first thing in `main`, while the process has one thread. Never blocks.
    package static func block(_ signals: [Int32]) {
        _ = signals.withUnsafeBufferPointer { fc_block_signals($0.baseAddress!, Int32($0.count)) }
    }

    /// Blocks the calling thread until one of `signals` (blocked with ``block(_:)``) arrives;
    /// returns it.
    package static func wait(for signals: [Int32]) -> Int32 {
        signals.withUnsafeBufferPointer { fc_wait_signal($0.baseAddress!, Int32($0.count)) }
    }

    /// Whether `signal` is at its default disposition in this process.
    package static func isDefault(_ signal: Int32) -> Bool { fc_signal_disposition(signal) == 0 }

    /// Ignores `signal` in this process. Children get it back at its default when it is listed in
    /// ``ProcessEngine/resetInChildren(_:)``.
    package static func ignore(_ signal: Int32) { fc_ignore_signal(signal) }
}
