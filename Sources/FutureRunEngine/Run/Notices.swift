import FutureCore
import FutureProcess
import FutureRunModel

/// Notices for the printer to show, each once. Any thread, never blocks.
package final class Notices: Sendable {
    private let state = Locked<(pending: [String], saidOnce: Bool)>(([], false))

    package init() {}

    func post(_ notice: String) { state.withLock { $0.pending.append(notice) } }

    /// Posts `notice` unless a notice was posted with this method before.
    func postOnce(_ notice: String) {
        state.withLock { state in
            guard !state.saidOnce else { return }
            state.saidOnce = true
            state.pending.append(notice)
        }
    }

    /// The notices posted since the last call, oldest first.
    package func take() -> [String] {
        state.withLock { state in
            defer { state.pending = [] }
            return state.pending
        }
    }
}
