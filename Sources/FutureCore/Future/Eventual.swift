import Dispatch
import Synchronization

/// A future that cannot fail: the seed's `Future<T>`.
///
///     let name: Future<String?> = Future { lookUpName() }   // runs at once, on its own thread
///     let size = Future(expensiveCall())                    // the same, as an autoclosure
///     name.resolved    // false while it runs; never blocks
///     name.value       // blocks until ready, then never again; no `try`
public typealias Future<Value: Sendable> = Eventual<Value, Never>

/// A future whose work may throw any error: `try future.value`.
public typealias ThrowingFuture<Value: Sendable> = Eventual<Value, any Error>

/// A value that becomes available later: the result of work running elsewhere, or of a ``Promise``.
///
/// `Eventual<Value, Failure>` is the one future type of FutureCore. `Failure` is the error its work can
/// throw, kept with its type (typed throws): ``Future`` fixes it to `Never`, so the seed's spelling
/// `future.value` needs no `try`; ``ThrowingFuture`` uses `any Error`; any concrete error type works
/// too (`Eventual<Data, ParseError>`).
///
/// ## Threading model
/// - An `Eventual` is resolved exactly once, by whichever thread finishes its work or completes its
///   ``Promise``. Its state sits behind a `Mutex`; callbacks are never run while that lock is held.
/// - Blocking reads (`value`, ``wait()``, ``wait(timeout:)``) park the calling thread and are woken
///   directly by the completing thread: no pool thread is needed to wake them. A future's closure
///   that no ``JobPool`` thread has begun yet is run by the reader itself instead (`value` and
///   ``wait()``; help-while-waiting). Called on a ``JobPool``
///   thread, they lend the thread's slot to the pool while parked, so futures on a bounded pool may wait
///   for each other without deadlock.
/// - A future's closure runs on ``JobPool/shared`` unless told otherwise: a thread a processor, more
///   only while its threads are parked reading futures. Work that blocks on anything else and must
///   overlap with more of its kind than there are processors asks for ``JobPool/blocking``.
/// - Callbacks (and ``map(on:_:)``, ``flatMap(on:_:)``, …) run on the executor given at
///   registration: by default ``JobPool/shared``, never the completing thread, so a callback may
///   read other futures. ``InlineExecutor`` (`.inline`) runs them on the completing thread (or at
///   once on the registering thread if already resolved), in registration order: for short work
///   that must not wait for a thread.
/// - ``cancel()`` is cooperative: it tells the work (through its ``CancellationToken``) to stop; the
///   work decides how it finishes.
public final class Eventual<Value: Sendable, Failure: Error>: Cancellable {
    public typealias Outcome = Result<Value, Failure>
    typealias Callback = @Sendable (Outcome) -> Void

    private enum State {
        case pending([Callback])
        case resolved(Outcome)
    }

    private let state: Locked<State>

    /// Tells this future's work that its result is no longer wanted. See ``cancel()``.
    public let cancellation: CancellationToken

    /// The work of a future made from a closure, which a blocking read runs itself if no thread
    /// has begun it yet.
    private let unstartedWork: UnstartedWork?

    /// A pending future, to be completed through ``Promise`` or by the initialisers below.
    init(cancellation: CancellationToken = CancellationToken(), unstartedWork: UnstartedWork? = nil) {
        self.state = Locked(.pending([]))
        self.cancellation = cancellation
        self.unstartedWork = unstartedWork
    }

    /// A future that is already resolved. Does not block.
    public init(resolved outcome: Outcome) {
        self.state = Locked(.resolved(outcome))
        self.cancellation = CancellationToken()
        self.unstartedWork = nil
    }

    /// Runs `body` on `executor` at once and resolves with what it returns or throws.
    ///
    /// - Parameters:
    ///   - executor: where `body` runs; by default ``JobPool/shared``: a thread a processor, and one
    ///     more for each of them parked reading a future, so 1,000 futures take a few threads and
    ///     futures that wait for futures never deadlock. Work that blocks on anything else (a
    ///     sleep, a pipe, a lock held elsewhere) and must overlap with more such work than there
    ///     are processors asks for ``JobPool/blocking``: `Future(on: .blocking) { … }`.
    ///   - body: the work; what it returns or throws resolves the future.
    ///
    /// On a ``JobPool`` (the default), a blocking read (`value`, ``wait()``) of the future before
    /// any of the pool's threads has begun `body` runs `body` on the reading thread instead, which
    /// then has nothing else to do: no thread is woken, and nobody waits to be woken
    /// (help-while-waiting). Other executors keep their work (a serial queue's, the main queue's).
    public convenience init(
        on executor: any Executor = .shared,
        _ body: @escaping @Sendable () throws(Failure) -> Value
    ) {
        let work = UnstartedWork()
        self.init(unstartedWork: executor is JobPool ? work : nil)
        work.set { [self] in
            self.complete(Result { () throws(Failure) -> Value in try body() })
        }
        executor.execute { work.runIfUnstarted() }
    }

    /// `Future(expensiveCall())`: evaluates the expression on `executor`, as the closure form does.
    public convenience init(
        _ body: @autoclosure @escaping @Sendable () -> Value,
        on executor: any Executor = .shared
    ) where Failure == Never {
        self.init(on: executor, body)
    }

    /// Runs `body` on `executor`, handing it this future's ``CancellationToken`` so that the work can
    /// notice ``cancel()`` (poll `token.isCancelled`, or register `token.onCancel`).
    public static func cancellable(
        on executor: any Executor = .shared,
        _ body: @escaping @Sendable (CancellationToken) throws(Failure) -> Value
    ) -> Eventual {
        let future = Eventual()
        executor.execute {
            future.complete(Result { () throws(Failure) -> Value in try body(future.cancellation) })
        }
        return future
    }

    // MARK: Reading

    // One word each: `value` blocks for the value, `resolved` tells without blocking, `outcome`
    // is the result-or-failure if it is ready, `wait` blocks for the outcome, `get()` awaits.

    /// Whether the outcome is ready. Never blocks.
    public var resolved: Bool { outcome != nil }

    /// The outcome if it is ready, `nil` otherwise. Never blocks.
    public var outcome: Outcome? {
        state.withLock { state in
            if case .resolved(let outcome) = state { return outcome }
            return nil
        }
    }

    /// The value, blocking the calling thread until it is ready; once ready, never blocks again.
    /// Throws the work's error (never, for a ``Future``). In `async` code use ``get()``.
    @available(*, noasync, message: "blocks the thread; use 'try await future.get()'")
    public var value: Value {
        get throws(Failure) { try wait().get() }
    }

    /// The outcome, blocking the calling thread until it is ready; once ready, never blocks again.
    @available(*, noasync, message: "blocks the thread; use 'try await future.get()'")
    public func wait() -> Outcome {
        if let outcome { return outcome }
        return park(until: nil)!
    }

    /// Waits at most `timeout` for the outcome; `nil` if it is still pending then. Blocks the
    /// calling thread for at most `timeout`.
    @available(*, noasync, message: "blocks the thread; use 'try await future.get()'")
    public func wait(timeout: Duration) -> Outcome? {
        if let outcome { return outcome }
        return park(until: .now() + timeout.dispatchInterval)
    }

    /// Parks the thread until resolution or `deadline`, woken by the completing thread. Parking the
    /// process engine's thread stops the program with a message, in release builds too: it would
    /// wait for the very thread that resolves command futures, for ever. (Only a read that would
    /// block is checked: one thread-local load.)
    private func park(until deadline: DispatchTime?) -> Outcome? {
        // fatalError, not precondition: an optimized build prints its message too.
        if OSThread.mustNotBlock {
            fatalError(
                "FutureCore: a blocking read of a future (value, wait) on the process engine's thread would deadlock; "
                    + "use onComplete, map or flatMap in callbacks that run there")
        }
        // Work nobody has begun runs here, rather than this thread waiting for another to run it
        // (not under a deadline, which the work could overrun).
        if deadline == nil, unstartedWork?.runIfUnstarted() == true, let outcome { return outcome }
        let wakeUp = DispatchSemaphore(value: 0)
        whenComplete { _ in wakeUp.signal() }
        JobPool.lendingSlot {
            if let deadline { _ = wakeUp.wait(timeout: deadline) } else { wakeUp.wait() }
        }
        return outcome
    }

    // MARK: Completing

    /// Resolves the future if still pending and runs its callbacks on this thread (outside the lock).
    /// - Returns: `false` if it was already resolved; the outcome is then dropped.
    @discardableResult
    func complete(_ outcome: Outcome) -> Bool {
        let callbacks: [Callback]? = state.withLock { state in
            guard case .pending(let callbacks) = state else { return nil }
            state = .resolved(outcome)
            return callbacks
        }
        guard let callbacks else { return false }
        cancellation.retire()
        for callback in callbacks { callback(outcome) }
        return true
    }

    // MARK: Callbacks

    /// Registers `callback` to run inline on the completing thread (or now, if already resolved).
    func whenComplete(_ callback: @escaping Callback) {
        let outcome: Outcome? = state.withLock { state in
            switch state {
            case .pending(var callbacks):
                callbacks.append(callback)
                state = .pending(callbacks)
                return nil
            case .resolved(let outcome):
                return outcome
            }
        }
        if let outcome { callback(outcome) }
    }

    /// Runs `callback` with the outcome, on `executor`, once the future resolves (or now, if it has).
    /// Never blocks.
    ///
    /// By default the callback runs on ``JobPool/shared``, never on the thread that resolves the
    /// future (a command's future resolves on the process engine's thread, where a blocking read
    /// would deadlock): it may read other futures' `value`. `.inline` runs it on the resolving
    /// thread at once, in registration order with the other inline callbacks: for short,
    /// non-blocking work that must not wait for a thread.
    public func onComplete(
        on executor: any Executor = .shared,
        _ callback: @escaping @Sendable (Outcome) -> Void
    ) {
        whenComplete { outcome in executor.execute { callback(outcome) } }
    }

    /// Runs `callback` with the value if the future succeeds, on `executor`. Never blocks.
    public func onSuccess(on executor: any Executor = .shared, _ callback: @escaping @Sendable (Value) -> Void) {
        onComplete(on: executor) { if case .success(let value) = $0 { callback(value) } }
    }

    /// Runs `callback` with the error if the future fails, on `executor`. Never blocks.
    public func onFailure(on executor: any Executor = .shared, _ callback: @escaping @Sendable (Failure) -> Void) {
        onComplete(on: executor) { if case .failure(let error) = $0 { callback(error) } }
    }

    // MARK: Cancelling

    /// A pending future whose cancellation reaches `sources`: the start of every combinator.
    static func derived(cancelling sources: [any Cancellable]) -> Eventual {
        let derived = Eventual()
        derived.cancellation.onCancel { for source in sources { source.cancel() } }
        return derived
    }

    /// Asks the work behind this future to stop. Cooperative: the work's ``CancellationToken`` fires
    /// its handlers (a command future kills its process group); the future still resolves with whatever
    /// the work then returns. No effect once resolved. Never blocks; handlers run on this thread.
    public func cancel() {
        cancellation.cancel()
    }
}

extension Duration {
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        return .nanoseconds(
            Int(min(seconds, Int64(Int.max / 1_000_000_000 - 1))) * 1_000_000_000
                + Int(attoseconds / 1_000_000_000))
    }
}

extension Eventual where Failure == Never {
    /// The value, blocking the calling thread until it is ready; once ready, never blocks again.
    /// A ``Future`` cannot fail, so no `try`. In `async` code use ``get()``.
    @available(*, noasync, message: "blocks the thread; use 'await future.get()'")
    public var value: Value {
        switch wait() {
        case .success(let value): value
        }
    }
}
