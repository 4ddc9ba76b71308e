import CFutureShims
import Glibc
import Synchronization

/// Plain POSIX threads, named, for long-lived loops and blocking work: the one place FutureCore and
/// its users touch pthreads.
public enum OSThread {
    private final class Body {
        let name: String
        let run: @Sendable () -> Void
        init(_ name: String, _ run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// Runs `body` on a new detached thread called `name` (at most 15 bytes show); returns at once.
    public static func detach(name: String, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(name, body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { context in
                let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
                fc_set_thread_name(body.name)
                body.run()
                return nil
            }, context)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            fatalError("FutureCore: cannot start a thread (pthread_create: \(String(cString: strerror(status))))")
        }
        pthread_detach(thread)
    }

    /// Blocks the calling thread until `instant` (at once if it has passed).
    @available(*, noasync, message: "blocks the thread; use Task.sleep")
    public static func sleep(until instant: ContinuousClock.Instant) {
        let remaining = instant - .now
        guard remaining > .zero else { return }
        let (seconds, attoseconds) = remaining.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var left = timespec()
        while nanosleep(&request, &left) != 0, errno == EINTR { request = left }
    }

    /// The thread that must never block on a future: the process engine's, once it runs. A
    /// blocking read there would wait for the very thread that resolves it.
    static let nonBlockingThread = Atomic<UInt>(0)

    /// Whether the calling thread is the one that must never block.
    static var mustNotBlock: Bool {
        let thread = nonBlockingThread.load(ordering: .acquiring)
        return thread != 0 && thread == UInt(pthread_self())
    }
}
