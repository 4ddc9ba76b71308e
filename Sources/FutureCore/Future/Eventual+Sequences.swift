/// Many futures as an `AsyncSequence`, for `for await` loops.
extension Eventual {
    /// The outcomes of `futures` as they resolve, in completion order; the sequence ends once all
    /// have. Never blocks a thread; each outcome is handed over on the thread that resolved it.
    ///
    ///     for await outcome in Future.completions(of: downloads) { progress += 1 }
    public static func completions(of futures: [Eventual]) -> AsyncStream<Outcome> {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            guard !futures.isEmpty else { return continuation.finish() }
            let left = Locked(futures.count)
            for future in futures {
                future.whenComplete { outcome in
                    continuation.yield(outcome)
                    if left.withLock({
                        $0 -= 1
                        return $0 == 0
                    }) {
                        continuation.finish()
                    }
                }
            }
        }
    }

    /// The outcomes of `futures` in their order (not of completion), each as soon as it and every
    /// one before it have resolved; the sequence ends after the last. Never blocks a thread.
    ///
    ///     for await outcome in Future.results(of: pages) { print(outcome) }   // page 1, 2, 3…
    public static func results(of futures: [Eventual]) -> AsyncStream<Outcome> {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            guard !futures.isEmpty else { return continuation.finish() }
            let state = Locked((next: 0, held: [Int: Outcome]()))
            for (index, future) in futures.enumerated() {
                future.whenComplete { outcome in
                    // Yielded under the lock, so that outcomes leave in order whichever thread
                    // hands them over.
                    state.withLock { state in
                        state.held[index] = outcome
                        while let ready = state.held.removeValue(forKey: state.next) {
                            continuation.yield(ready)
                            state.next += 1
                        }
                        if state.next == futures.count { continuation.finish() }
                    }
                }
            }
        }
    }
}
