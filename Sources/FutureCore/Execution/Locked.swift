import Synchronization

#if FUTURECORE_THREAD_SANITIZER
import CFutureShims

/// A `Mutex` that tells the thread sanitizer it is one (`make tsan` builds with
/// `-DFUTURECORE_THREAD_SANITIZER`). The sanitizer cannot see `Mutex`'s lock on Linux, which it
/// takes in the uninstrumented Synchronization library, so without this it reports every value
/// a `Mutex` guards as raced. Every other build uses `Mutex` itself (below).
package struct Locked<Value: ~Copyable>: ~Copyable {
    private let mutex: Mutex<Value>
    /// What the sanitizer knows the lock by: an address of its own, touched by nothing else.
    private let identity = Identity()

    private final class Identity: Sendable {}

    package init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let address = Unmanaged.passUnretained(identity).toOpaque()
        return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            fc_tsan_acquire(address)
            defer { fc_tsan_release(address) }
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
