import FutureProcess

/// What the scheduler needs of the engine its attempts run on: its turns (an attempt's end is
/// published after the engine's current turn, so that the slot it frees starts the next attempt
/// first) and how many processes of the run still run. ``ProcessEngine`` is one; a test that
/// runs no process brings its own.
package protocol AttemptEngine: Sendable {
    /// Runs `body` when the engine's current turn is over (at once on another thread).
    func afterThisTurn(_ body: @escaping @Sendable () -> Void)
    /// Processes still running.
    var runningCount: Int { get }
}

extension ProcessEngine: AttemptEngine {}
