/// The writing side of a future: complete it from anywhere, exactly once.
///
///     let promise = Promise<Int, Never>()
///     promise.future.onSuccess { print($0) }            // soon, on the shared pool
///     promise.future.onSuccess(on: .inline) { print($0) } // here, on the completing thread
///     promise.succeed(42)
///
/// Completing a promise twice is a programming error: ``complete(_:)`` stops the program with a
/// message saying so. Where two parties may race to complete, use ``tryComplete(_:)``, which reports
/// the loser with `false` and leaves the first outcome in place.
public struct Promise<Value: Sendable, Failure: Error>: Sendable {
    /// The future this promise completes.
    public let future: Eventual<Value, Failure>

    public init() {
        future = Eventual()
    }

    /// Resolves the future and runs its inline callbacks on this thread. Never blocks.
    /// - Precondition: not completed before.
    public func complete(_ outcome: Result<Value, Failure>) {
        guard future.complete(outcome) else {
            fatalError("Promise<\(Value.self), \(Failure.self)> completed twice; use tryComplete(_:) where completions may race")
        }
    }

    /// Resolves the future unless already resolved. Never blocks.
    /// - Returns: whether this call resolved it (`false`: it was already resolved, nothing changed).
    @discardableResult
    public func tryComplete(_ outcome: Result<Value, Failure>) -> Bool {
        future.complete(outcome)
    }

    public func succeed(_ value: Value) { complete(.success(value)) }
    public func fail(_ error: Failure) { complete(.failure(error)) }

    /// Whether the future's consumer asked to cancel. Never blocks.
    public var isCancelled: Bool { future.cancellation.isCancelled }

    /// Runs `handler` when the consumer calls ``Eventual/cancel()`` (at once if it already did).
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        future.cancellation.onCancel(handler)
    }
}
