import Dispatch
import FutureCore
import FutureProcess
import FutureRunModel

/// An unbounded first-in first-out hand-over between threads, with an end. Bounds come from the
/// producer (the scheduler's window), not from here. A received element is let go at once: a
/// job's ticket holds its output, spill files included, which must not outlive its printing.
package final class Channel<Element: Sendable>: Sendable {
    private struct State {
        var items = FIFO<Element>()
        var closed = false
    }

    private let state = Locked(State())
    private let available = DispatchSemaphore(value: 0)
    private let notify: (@Sendable () -> Void)?

    /// - Parameter notify: called (on the sending thread) after every send and at close.
    package init(notify: (@Sendable () -> Void)? = nil) {
        self.notify = notify
    }

    /// Hands `element` over; after ``close()`` it is dropped (a run that stopped takes no more).
    package func send(_ element: Element) {
        guard
            state.withLock({ state in
                if !state.closed { state.items.append(element) }
                return !state.closed
            })
        else { return }
        available.signal()
        notify?()
    }

    package func close() {
        state.withLock { $0.closed = true }
        available.signal()
        notify?()
    }

    /// The next element, blocking until there is one; `nil` once closed and empty.
    package func receive() -> Element? {
        while true {
            if let element = tryReceive() { return element }
            if state.withLock({ $0.closed && $0.items.isEmpty }) { return nil }
            available.wait()
        }
    }

    /// The next element if one is there. Never blocks.
    package func tryReceive() -> Element? {
        state.withLock { $0.items.popFirst() }
    }

    package var isFinished: Bool { state.withLock { $0.closed && $0.items.isEmpty } }

    var isClosed: Bool { state.withLock { $0.closed } }
}
