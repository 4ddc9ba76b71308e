import FutureCore
import Glibc
import _CFutureShims

/// A descriptor that becomes readable when ``signal()`` is called from any thread (an eventfd):
/// the way to wake a thread waiting in `poll` or `epoll` on other descriptors too.
package final class WakeUpEvent: Sendable {
    /// Readable after ``signal()`` until ``drain()``. Close-on-exec, non-blocking; owned here.
    package let descriptor: Int32

    /// `nil` if the system gives no descriptor.
    package init?() {
        descriptor = fc_eventfd()
        guard descriptor >= 0 else { return nil }
    }

    deinit { close(descriptor) }

    /// Makes ``descriptor`` readable. Any thread; never blocks.
    package func signal() { fc_eventfd_signal(descriptor) }

    /// Takes every pending signal, so ``descriptor`` is no longer readable. Never blocks.
    package func drain() { fc_eventfd_drain(descriptor) }
}
