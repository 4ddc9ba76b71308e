/// Bridges between futures and Swift concurrency.
extension Eventual {
    /// Suspends (without blocking a thread) until the outcome is ready. Cancelling the awaiting task
    /// cancels this future.
    private func awaitOutcome() async -> Outcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                whenComplete { continuation.resume(returning: $0) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Suspends (without blocking a thread) until ready; returns the value or throws the failure.
    /// Cancelling the awaiting task cancels this future.
    public func get() async throws(Failure) -> Value {
        try await awaitOutcome().get()
    }

    /// Runs `operation` as a new unstructured `Task` and resolves with its outcome. Cancelling the
    /// future cancels the task.
    public convenience init(
        priority: TaskPriority? = nil,
        awaiting operation: sending @escaping @isolated(any) () async throws(Failure) -> Value
    ) {
        self.init()
        let task = Task(priority: priority) { [self] in
            do throws(Failure) {
                self.complete(.success(try await operation()))
            } catch {
                self.complete(.failure(error))
            }
        }
        cancellation.onCancel { task.cancel() }
    }
}
