import FutureRunModel

/// The input window's count, as a value: how many jobs may be between the scheduler and the
/// printer, and when a waiting scheduler is worth waking (half the window free). Tested without
/// threads; ``Window`` puts it behind a lock and a semaphore.
package struct WindowCount: Sendable, Equatable {
    package let size: Int
    package private(set) var free: Int
    /// The scheduler found no place and waits to be woken.
    package private(set) var waiting = false

    package init(size: Int) {
        self.size = size
        free = size
    }

    /// Takes a place; false when there is none (the taker then waits).
    package mutating func take() -> Bool {
        guard free > 0 else {
            waiting = true
            return false
        }
        free -= 1
        return true
    }

    /// Gives a place back; true when the waiting taker should be woken now.
    mutating func giveBack() -> Bool {
        free += 1
        guard waiting, free >= max(1, size / 2) else { return false }
        waiting = false
        return true
    }
}
