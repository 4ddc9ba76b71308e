/// Plain threads, named, for long-lived loops and blocking work (``Platform`` starts them).
package enum OSThread {
    /// Runs `body` on a new detached thread called `name` (at most 15 bytes show); returns at once.
    package static func detach(name: String, _ body: @escaping @Sendable () -> Void) {
        Platform.startThread(name: name, body)
    }

    /// Blocks the calling thread until `instant`.
    @available(*, noasync, message: "blocks the thread; use Task.sleep")
    package static func sleep(until instant: ContinuousClock.Instant) {
        Platform.sleep(until: instant)
    }

    /// Threads that must never block on a future: an event loop marks its own (``markNonBlocking()``).
    private static let nonBlocking = Platform.ThreadMark()

    /// Marks the calling thread as one that must not block: a blocking read of a future there is a
    /// precondition failure with a message (release builds included).
    package static func markNonBlocking() { nonBlocking.set() }

    /// Whether the calling thread is marked as one that must not block.
    static var mustNotBlock: Bool { nonBlocking.isSet }
}
