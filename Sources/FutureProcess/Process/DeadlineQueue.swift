import FutureCore

/// Timed actions of the engine, earliest first (a binary min-heap). Stale actions, for children
/// already finished, are skipped by the engine when they come due.
struct DeadlineQueue {
    enum Action: Equatable {
        /// The child ran past its timeout: TERM its group.
        case timeout(UInt64)
        /// The grace period after TERM is over: KILL its group.
        case kill(UInt64)
        /// The child exited but its pipes stayed open too long: finish it anyway.
        case drain(UInt64)
        /// No pidfd for this child: check with `wait4` whether it exited.
        case poll(UInt64)
        /// A stream of this child waits for spill space: try again, and read it again if it can go on.
        case spaceRetry(UInt64, stdout: Bool)
    }

    private var heap: [(instant: ContinuousClock.Instant, action: Action)] = []

    var earliest: ContinuousClock.Instant? { heap.first?.instant }
    var isEmpty: Bool { heap.isEmpty }

    mutating func insert(_ action: Action, at instant: ContinuousClock.Instant) {
        heap.append((instant, action))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].instant < heap[parent].instant else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest action if it is due at `now`.
    mutating func popDue(now: ContinuousClock.Instant) -> Action? {
        guard let first = heap.first, first.instant <= now else { return nil }
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].instant < heap[smallest].instant { smallest = left }
            if right < heap.count, heap[right].instant < heap[smallest].instant { smallest = right }
            if smallest == parent { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return first.action
    }
}
