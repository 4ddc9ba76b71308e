/// Combinators over many futures. Each returns a new future at once (never blocks) and resolves on
/// the thread that resolves the deciding input. Cancelling the result cancels every input.
extension Eventual {
    /// All values, in the order of `futures` (not of completion); the first failure to arrive
    /// otherwise. An empty list gives `[]`.
    public static func all(_ futures: [Eventual]) -> Eventual<[Value], Failure> {
        let next = Eventual<[Value], Failure>.derived(cancelling: futures)
        gather(futures) { outcome in
            if case .failure(let error) = outcome { next.complete(.failure(error)) }
        } whenAll: { outcomes in
            // Every one succeeded, or a failure has resolved `next` already.
            let values = outcomes.compactMap { try? $0.get() }
            if values.count == outcomes.count { next.complete(.success(values)) }
        }
        return next
    }

    /// Every outcome, in the order of `futures` (not of completion), once all have resolved:
    /// failures are outcomes too, so it never stops early and never fails. An empty list gives `[]`.
    ///
    ///     let checks = hosts.map { host in Command.shell("ping -c1 \(host)").run() }
    ///     for (host, result) in zip(hosts, Future.allSettled(checks).value) { … }
    public static func allSettled(_ futures: [Eventual]) -> Future<[Outcome]> {
        let next = Future<[Outcome]>.derived(cancelling: futures)
        gather(futures) { _ in
        } whenAll: {
            next.complete(.success($0))
        }
        return next
    }

    /// Hands each outcome of `futures` to `each` as it comes, then all of them, in the order of
    /// `futures`, to `whenAll` once the last has come (at once for none).
    private static func gather(
        _ futures: [Eventual], each: @escaping @Sendable (Outcome) -> Void,
        whenAll: @escaping @Sendable ([Outcome]) -> Void
    ) {
        guard !futures.isEmpty else { return whenAll([]) }
        let collected = Locked((outcomes: [Outcome?](repeating: nil, count: futures.count), missing: futures.count))
        for (index, future) in futures.enumerated() {
            future.whenComplete { outcome in
                each(outcome)
                let done: [Outcome]? = collected.withLock { state in
                    state.outcomes[index] = outcome
                    state.missing -= 1
                    return state.missing == 0 ? state.outcomes.map { $0! } : nil
                }
                if let done { whenAll(done) }
            }
        }
    }

    /// What a combinator that waits for one of `futures` gives for none: ``FutureError/noFutures``
    /// where `Failure` can hold it. A future that cannot fail (`Future`) of no futures could never
    /// resolve: that stops the program with a message rather than hang.
    private static func ofNoFutures(_ combinator: String) -> Eventual {
        guard let failure = FutureError.noFutures as? Failure else {
            fatalError("FutureCore: \(combinator) of no futures can never resolve, and a \(Self.self) cannot fail")
        }
        return Eventual(resolved: .failure(failure))
    }

    /// The outcome of whichever future resolves first, success or failure. The others keep running
    /// (cancel them if they are no longer wanted). An empty list fails with
    /// ``FutureError/noFutures`` (where `Failure` can hold it; a `Future` of none stops the program).
    public static func any(_ futures: [Eventual]) -> Eventual {
        guard !futures.isEmpty else { return ofNoFutures("any") }
        let next = derived(cancelling: futures)
        for future in futures { future.whenComplete { next.complete($0) } }
        return next
    }

    /// The first value to arrive; if every future fails, the failure of the last one to fail. An
    /// empty list fails with ``FutureError/noFutures`` (where `Failure` can hold it).
    public static func firstSuccess(_ futures: [Eventual]) -> Eventual {
        guard !futures.isEmpty else { return ofNoFutures("firstSuccess") }
        let next = derived(cancelling: futures)
        let remaining = Locked(futures.count)
        for future in futures {
            future.whenComplete { outcome in
                switch outcome {
                case .success: next.complete(outcome)
                case .failure:
                    if remaining.withLock({
                        $0 -= 1
                        return $0 == 0
                    }) {
                        next.complete(outcome)
                    }
                }
            }
        }
        return next
    }

    /// Folds the values, in the order of `futures`, into one: `combine(combine(initial, v0), v1)`…
    /// The first failure to arrive wins.
    public static func reduce<Accumulated: Sendable>(
        _ initial: Accumulated,
        _ futures: [Eventual],
        _ combine: @escaping @Sendable (Accumulated, Value) -> Accumulated
    ) -> Eventual<Accumulated, Failure> {
        all(futures).map { $0.reduce(initial, combine) }
    }
}
