import FutureCore
import FutureProcess
import FutureRunModel

/// The one writer of a pool's width: each width provider (``WidthProvider``) sets its own limit
/// here, and the pool runs at the least of them (``WidthLimits``). So a narrowing after a refused
/// spawn survives the memory's next reading, and `-j FILE` widening the run does not lift a hold
/// for memory. Each lane's width (a host's connections) is set here too.
///
/// Any thread. Raising the width starts queued commands at once, on the calling thread.
package final class WidthGovernor: Sendable {
    let pool: CommandPool
    /// The limits, and how many times they were changed: a width read before another thread's
    /// change is applied again.
    private let state: Locked<(limits: WidthLimits, version: Int)>

    package init(pool: CommandPool, limits: WidthLimits = WidthLimits()) {
        self.pool = pool
        state = Locked((limits, 0))
        apply()
    }

    /// The limits now.
    package var limits: WidthLimits { state.withLock { $0.limits } }

    /// How many jobs may run at once now.
    package var width: Int { limits.width }

    /// The limit that holds jobs back now, if one does: it is below `-j`'s, every place within it
    /// is taken, and jobs wait.
    var holdingBack: (provider: WidthProvider, limit: WidthLimits.Limit)? {
        guard let holder = limits.holder, pool.queued > 0, pool.running >= holder.limit.width else { return nil }
        return holder
    }

    /// Sets `provider`'s limit (`nil` lifts it) and the pool's width to the least limit.
    package func set(_ provider: WidthProvider, _ width: Int?, reason: String = "") {
        update { $0.set(provider, width, reason: reason) }
    }

    /// Changes several limits at once (a provider that gives two, as memory and load): the pool
    /// never runs at a width between them.
    package func update(_ change: (inout WidthLimits) -> Void) {
        let changed = state.withLock { state in
            let before = state.limits
            change(&state.limits)
            guard state.limits != before else { return false }
            state.version += 1
            return true
        }
        if changed { apply() }
    }

    /// Lowers `provider`'s limit to `width` if the pool is wider: whether it was (a refused spawn
    /// narrows the run once, and it stays narrow).
    func narrow(_ provider: WidthProvider, to width: Int, reason: String = "") -> Bool {
        let narrowed = state.withLock { state in
            guard state.limits.width > width else { return false }
            state.limits.set(provider, width, reason: reason)
            state.version += 1
            return true
        }
        if narrowed { apply() }
        return narrowed
    }

    /// How many may run at once in `lane` (a host: its connections' sessions, 0 while it has none).
    func limitLane(_ lane: Int, to width: Int) { pool.setWidth(width, ofLane: lane) }

    /// Gives the pool the least limit. The pool starts commands outside the lock, so two threads
    /// may apply in either order: one that applied a width read before a later change applies again.
    private func apply() {
        while true {
            let (width, version) = state.withLock { ($0.limits.width, $0.version) }
            pool.setWidth(width, allowingNone: true)
            if state.withLock({ $0.version }) == version { return }
        }
    }
}
