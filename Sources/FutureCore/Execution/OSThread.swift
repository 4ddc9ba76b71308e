import Glibc

/// Starts detached POSIX threads. The one place FutureCore's executors touch pthreads.
enum OSThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Runs `body` on a new detached thread; returns at once.
    static func detach(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            fatalError("FutureCore: cannot start a thread (pthread_create: \(String(cString: strerror(status))))")
        }
        pthread_detach(thread)
    }
}
