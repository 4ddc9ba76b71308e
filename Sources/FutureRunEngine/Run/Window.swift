import Dispatch
import FutureCore
import FutureProcess
import FutureRunModel

/// The scheduler's window: how many jobs may be between it and the printer. The scheduler waits
/// when it is full and is woken only once half of it is free again (``WindowCount``), so refilling
/// costs one wake-up per half window rather than one per job.
package final class Window: Sendable {
    private let count: Locked<WindowCount>
    private let wakeUp = DispatchSemaphore(value: 0)

    package init(size: Int) { count = Locked(WindowCount(size: size)) }

    /// Takes one place, blocking while there is none.
    func acquire() {
        while !count.withLock({ $0.take() }) { wakeUp.wait() }
    }

    /// Gives one place back. Never blocks.
    package func release() {
        if count.withLock({ $0.giveBack() }) { wakeUp.signal() }
    }
}
