/// The cancellation flag of one future's work, with handlers to run when it is raised.
///
/// Cooperative: raising it runs the handlers (on the cancelling thread, outside any lock) and sets
/// ``isCancelled``; the work itself decides how to finish. Once the future resolves, the token is
/// retired: handlers are dropped and later cancellation does nothing.
public final class CancellationToken: Sendable {
    private struct State {
        var isCancelled = false
        var isRetired = false
        var handlers: [@Sendable () -> Void] = []
    }

    private let state = Locked(State())

    public init() {}

    /// Whether cancellation was requested. Never blocks.
    public var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Runs `handler` when cancellation is requested, or at once (on this thread) if it already was.
    /// Dropped unrun if the future resolves first.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.isRetired { return false }
            if state.isCancelled { return true }
            state.handlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    /// Requests cancellation: runs the registered handlers once, in registration order.
    func cancel() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.isCancelled, !state.isRetired else { return [] }
            state.isCancelled = true
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler() }
    }

    /// The future resolved: nothing is left to cancel.
    func retire() {
        state.withLock { state in
            state.isRetired = true
            state.handlers = []
        }
    }
}

/// Something whose work can be asked to stop.
public protocol Cancellable: Sendable {
    /// Asks the work to stop. Cooperative; never blocks.
    func cancel()
}
