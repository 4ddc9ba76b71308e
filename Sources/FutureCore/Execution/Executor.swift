import Dispatch

/// Somewhere work runs. `execute` never blocks the caller for longer than it takes to hand the work
/// over (``InlineExecutor`` runs it right away, on the caller's thread).
public protocol Executor: Sendable {
    func execute(_ work: @escaping @Sendable () -> Void)
}

/// Runs work at once, on the calling thread.
public struct InlineExecutor: Executor {
    public init() {}
    public func execute(_ work: @escaping @Sendable () -> Void) { work() }
}

/// Runs work asynchronously on a Dispatch queue. Do not block in work sent to a global queue:
/// on Linux Dispatch grows its pool by about one thread a second when its threads block.
public struct QueueExecutor: Executor {
    public let queue: DispatchQueue
    public init(_ queue: DispatchQueue) { self.queue = queue }
    public func execute(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }
}

extension Executor where Self == InlineExecutor {
    /// On the calling thread, at once.
    public static var inline: InlineExecutor { InlineExecutor() }
}

extension Executor where Self == QueueExecutor {
    /// On the main queue: for programs that run a main loop (`dispatchMain()`, a UI run loop). This
    /// is the seed's `PerformOnMain`.
    public static var main: QueueExecutor { QueueExecutor(.main) }

    /// On `queue`.
    public static func queue(_ queue: DispatchQueue) -> QueueExecutor { QueueExecutor(queue) }
}

extension Executor where Self == JobPool {
    /// A thread a processor, more only while they wait on futures (``JobPool/shared``): the default
    /// of futures and callbacks.
    public static var shared: JobPool { JobPool.shared }

    /// Threads for blocking work: every item gets a thread at once (idle threads are reused), so
    /// protracted, blocking futures overlap instead of queueing behind a CPU-sized pool.
    public static var blocking: JobPool { JobPool.blocking }
}
