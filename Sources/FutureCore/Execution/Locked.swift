import Synchronization

#if FUTURECORE_THREAD_SANITIZER

/// A `Mutex` that tells the thread sanitizer it is one (`make tsan` builds with
/// `-DFUTURECORE_THREAD_SANITIZER`). The sanitizer cannot see `Mutex`'s lock on Linux, which it
/// takes in the uninstrumented Synchronization library, so without this it reports every value
/// a `Mutex` guards as raced. Every other build uses `Mutex` itself (below).
package struct Locked<Value: ~Copyable>: ~Copyable {
    private let mutex: Mutex<Value>
    /// The lock the sanitizer sees, held inside the `Mutex` (``VisibleMutex``).
    private let visible = VisibleMutex()

    package init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            visible.lock()
            defer { visible.unlock() }
            return try body(&value)
        }
    }
}

extension Locked: Sendable where Value: ~Copyable {}

/// Whether this is the thread-sanitized build of `make tsan`, for the few tests of what the
/// sanitizer itself changes: it makes `vfork` a `fork`, so a program that cannot start exits 127
/// instead of handing its errno back, and its shadow memory multiplies resident size.
package let isThreadSanitized = true
#else
/// The lock of every value shared between threads: `Mutex` (see the build of `make tsan` above).
package typealias Locked = Mutex

package let isThreadSanitized = false
#endif
