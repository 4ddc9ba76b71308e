import Dispatch

extension Eventual {
    /// This future's outcome, or `FutureError.timedOut` if it is not ready within `limit`; on
    /// timeout this future is cancelled. Never blocks; the timer runs on Dispatch's timer machinery
    /// and blocks no thread.
    public func timeout(after limit: Duration) -> Eventual<Value, any Error> {
        let next = Eventual<Value, any Error>.derived(cancelling: [self])
        whenComplete { next.complete($0.mapError { $0 }) }
        armTimer(limit) { [self] in
            if next.complete(.failure(FutureError.timedOut(limit))) { cancel() }
        }
        return next
    }

    func armTimer(_ limit: Duration, _ fire: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + limit.dispatchInterval, execute: fire)
    }
}

extension Eventual where Value == Void, Failure == Never {
    /// A future that resolves after `delay`, on Dispatch's timer machinery (no thread waits for
    /// it); cancelling it resolves it at once. For work later: `Future.after(.seconds(1)).map { … }`.
    public static func after(_ delay: Duration) -> Future<Void> {
        let promise = Promise<Void, Never>()
        // Whichever comes first, the timer or a cancel, resolves it; the other finds it resolved.
        promise.future.armTimer(delay) { promise.tryComplete(.success(())) }
        promise.onCancel { promise.tryComplete(.success(())) }
        return promise.future
    }
}

extension Eventual where Failure == Never {
    /// This future's value, or `FutureError.timedOut` if it is not ready within `limit`; on timeout
    /// this future is cancelled. Never blocks.
    public func timeout(after limit: Duration) -> Eventual<Value, FutureError> {
        let next = Eventual<Value, FutureError>.derived(cancelling: [self])
        whenComplete { outcome in
            if case .success(let value) = outcome { next.complete(.success(value)) }
        }
        armTimer(limit) { [self] in
            if next.complete(.failure(.timedOut(limit))) { cancel() }
        }
        return next
    }
}
