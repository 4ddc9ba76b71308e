// Every call the futures make to the operating system, behind one seam: threads, their names,
// sleeping, a per-thread mark, and (under the thread sanitizer) a lock it can see. POSIX only, so
// the futures build wherever Swift 6 does; the process engine (FutureProcess) is the Linux part.
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("FutureCore needs a POSIX platform: Darwin, Glibc or Musl")
#endif

enum Platform {
    /// The processors online, at least 1.
    static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Starts `body` on a new detached thread named `name`. A thread that cannot start is a
    /// programming error of the process's limits, reported with the system's reason.
    static func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
        final class Start {
            let name: String
            let body: @Sendable () -> Void
            init(_ name: String, _ body: @escaping @Sendable () -> Void) {
                self.name = name
                self.body = body
            }
        }
        let context = Unmanaged.passRetained(Start(name, body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let status = pthread_create(
            &thread, nil,
            { context in
                let start = Unmanaged<Start>.fromOpaque(context!).takeRetainedValue()
                Platform.nameCurrentThread(start.name)
                start.body()
                return nil
            }, context)
        guard status == 0 else {
            Unmanaged<Start>.fromOpaque(context).release()
            fatalError("FutureCore: cannot start a thread (pthread_create: \(String(cString: strerror(status))))")
        }
        #if canImport(Darwin)
        pthread_detach(thread!)
        #else
        pthread_detach(thread)
        #endif
    }

    /// Names the calling thread for `ps -L` and debuggers (at most 15 bytes show on Linux).
    private static func nameCurrentThread(_ name: String) {
        #if canImport(Darwin)
        _ = pthread_setname_np(name)
        #else
        // The portable spelling: the thread's own comm file (Linux 3.17 and later).
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        #endif
    }

    /// Blocks the calling thread until `instant`, resuming after signals.
    static func sleep(until instant: ContinuousClock.Instant) {
        var remaining = instant - .now
        while remaining > .zero {
            let (seconds, attoseconds) = remaining.components
            var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            _ = nanosleep(&request, nil)
            remaining = instant - .now
        }
    }

    /// A mark each thread holds for itself: set on a thread, seen only on that thread.
    final class ThreadMark: Sendable {
        private let key: pthread_key_t

        init() {
            var key = pthread_key_t()
            precondition(pthread_key_create(&key, nil) == 0, "FutureCore: no thread-specific key left")
            self.key = key
        }

        /// Marks the calling thread.
        func set() { _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1)) }

        /// Whether the calling thread is marked.
        var isSet: Bool { pthread_getspecific(key) != nil }
    }
}

#if FUTURECORE_THREAD_SANITIZER
/// A mutex the thread sanitizer sees (it intercepts pthread's): ``Locked`` under `make tsan`.
// @unchecked Sendable: the one stored property is a pointer fixed at init; the pthread mutex it
// points to is touched only by pthread_mutex_lock/unlock, which synchronize themselves.
final class VisibleMutex: @unchecked Sendable {  // safe: see the comment above
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
}
#endif
