/// Work that waits for other work: the piece a dependency graph of futures is built from.
extension Eventual {
    /// A future whose work starts only once every one of `prerequisites` has resolved: `start` is
    /// given their outcomes, in the order of `prerequisites`, and returns the future of the work it
    /// starts (or an already resolved one, when it decides not to start anything). The result
    /// resolves as that future does.
    ///
    /// Unlike ``all(_:)``, the result does not own its prerequisites: a prerequisite may have other
    /// dependents, so cancelling the result never cancels one. Cancelling the result passes down
    /// the graph instead: before `start` has run, `start` never runs and the result resolves at once
    /// with `cancelled()` (a dependent of the result then sees that outcome); after, the started
    /// work's future is cancelled.
    ///
    /// `start` runs inline on the thread that resolves the last prerequisite (at once, on this
    /// thread, if all are resolved). Never blocks.
    ///
    ///     let build = Future<Bool>.after([codegen]) { outcomes in
    ///         outcomes.allSatisfy { $0.get() } ? Future { runBuild() } : Future(false)
    ///     } ifCancelled: { .success(false) }
    public static func after<Prerequisite: Sendable, PrerequisiteFailure: Error>(
        _ prerequisites: [Eventual<Prerequisite, PrerequisiteFailure>],
        start: @escaping @Sendable ([Result<Prerequisite, PrerequisiteFailure>]) -> Eventual<Value, Failure>,
        ifCancelled cancelled: @escaping @Sendable () -> Outcome
    ) -> Eventual<Value, Failure> {
        let next = Eventual<Value, Failure>()
        /// Pending until `start` runs (or the result is cancelled first: then it never will).
        let stage = Locked(Stage.waiting)
        next.cancellation.onCancel {
            let action = stage.withLock { stage -> Eventual<Value, Failure>? in
                switch stage {
                case .waiting:
                    stage = .cancelled
                    return nil
                case .started(let work): return work
                case .cancelled: return nil
                }
            }
            if let action { action.cancel() } else { next.complete(cancelled()) }
        }
        let outcomes = Locked(
            (
                values: [Result<Prerequisite, PrerequisiteFailure>?](repeating: nil, count: prerequisites.count),
                missing: prerequisites.count
            ))
        let begin: @Sendable ([Result<Prerequisite, PrerequisiteFailure>]) -> Void = { results in
            guard stage.withLock({ $0 == .waiting }) else { return }
            let work = start(results)
            let cancelledMeanwhile = stage.withLock { stage -> Bool in
                guard case .waiting = stage else { return true }
                stage = .started(work)
                return false
            }
            if cancelledMeanwhile { work.cancel() }
            work.whenComplete { next.complete($0) }
        }
        if prerequisites.isEmpty { begin([]) }
        for (index, prerequisite) in prerequisites.enumerated() {
            prerequisite.whenComplete { outcome in
                let done = outcomes.withLock { state -> [Result<Prerequisite, PrerequisiteFailure>]? in
                    state.values[index] = outcome
                    state.missing -= 1
                    return state.missing == 0 ? state.values.map { $0! } : nil
                }
                if let done { begin(done) }
            }
        }
        return next
    }

    private enum Stage: Equatable {
        case waiting
        case started(Eventual<Value, Failure>)
        case cancelled

        static func == (lhs: Stage, rhs: Stage) -> Bool {
            switch (lhs, rhs) {
            case (.waiting, .waiting), (.cancelled, .cancelled): true
            case (.started(let a), .started(let b)): a === b
            default: false
            }
        }
    }
}
