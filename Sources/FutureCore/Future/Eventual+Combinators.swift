/// Transformations of one or two futures. Each returns a new future at once (never blocks); the
/// transform runs on `executor` (default: ``JobPool/shared``, as callbacks do; `.inline` runs it on
/// the thread that resolves the source, for short work that never blocks).
/// Cancelling a derived future cancels its sources.
extension Eventual {
    /// The value transformed by `transform`; a failure passes through unchanged.
    public func map<NewValue: Sendable>(
        on executor: any Executor = .shared,
        _ transform: @escaping @Sendable (Value) -> NewValue
    ) -> Eventual<NewValue, Failure> {
        let next = Eventual<NewValue, Failure>.derived(cancelling: [self])
        onComplete(on: executor) { next.complete($0.map(transform)) }
        return next
    }

    /// The failure transformed by `transform`; a value passes through unchanged.
    public func mapError<NewFailure: Error>(
        on executor: any Executor = .shared,
        _ transform: @escaping @Sendable (Failure) -> NewFailure
    ) -> Eventual<Value, NewFailure> {
        let next = Eventual<Value, NewFailure>.derived(cancelling: [self])
        onComplete(on: executor) { next.complete($0.mapError(transform)) }
        return next
    }

    /// The future that `transform` returns for the value; a failure passes through unchanged.
    public func flatMap<NewValue: Sendable>(
        on executor: any Executor = .shared,
        _ transform: @escaping @Sendable (Value) -> Eventual<NewValue, Failure>
    ) -> Eventual<NewValue, Failure> {
        let next = Eventual<NewValue, Failure>.derived(cancelling: [self])
        onComplete(on: executor) { outcome in
            switch outcome {
            case .success(let value):
                let inner = transform(value)
                next.cancellation.onCancel { inner.cancel() }
                inner.whenComplete { next.complete($0) }
            case .failure(let error):
                next.complete(.failure(error))
            }
        }
        return next
    }

    /// A future that cannot fail: a failure is replaced by what `transform` makes of it.
    public func recover(
        on executor: any Executor = .shared,
        _ transform: @escaping @Sendable (Failure) -> Value
    ) -> Future<Value> {
        let next = Future<Value>.derived(cancelling: [self])
        onComplete(on: executor) { outcome in
            switch outcome {
            case .success(let value): next.complete(.success(value))
            case .failure(let error): next.complete(.success(transform(error)))
            }
        }
        return next
    }

    /// Both values, once both are ready; the first failure otherwise.
    public func zip<Other: Sendable>(_ other: Eventual<Other, Failure>) -> Eventual<(Value, Other), Failure> {
        let next = Eventual<(Value, Other), Failure>.derived(cancelling: [self, other])
        whenComplete { first in
            other.whenComplete { second in
                switch (first, second) {
                case (.success(let a), .success(let b)): next.complete(.success((a, b)))
                case (.failure(let error), _), (_, .failure(let error)): next.complete(.failure(error))
                }
            }
        }
        // A failure of `other` must not wait for `self`.
        other.whenComplete { if case .failure(let error) = $0 { next.complete(.failure(error)) } }
        return next
    }
}
