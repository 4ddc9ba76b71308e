import CFutureShims
import Glibc

/// A descriptor that becomes readable when ``signal()`` is called from any thread (an eventfd):
/// the way to wake a thread waiting in `poll` or `epoll` on other descriptors too.
public final class WakeUpEvent: Sendable {
    /// Readable after ``signal()`` until ``drain()``. Close-on-exec, non-blocking; owned here.
    public let descriptor: Int32

    /// `nil` if the system gives no descriptor.
    public init?() {
        descriptor = fc_eventfd()
        guard descriptor >= 0 else { return nil }
    }

    deinit { close(descriptor) }

    /// Makes ``descriptor`` readable. Any thread; never blocks.
    public func signal() { fc_eventfd_signal(descriptor) }

    /// Takes every pending signal, so ``descriptor`` is no longer readable. Never blocks.
    public func drain() { fc_eventfd_drain(descriptor) }
}
