import FutureCore
import Glibc
import _CFutureShims

/// The Linux half of the engine's event loop: an epoll set with an eventfd to wake it, and
/// `pidfd_open` to watch a child's exit. A Darwin sibling would use kqueue (`EVFILT_PROC`,
/// `EVFILT_READ`) behind the same interface.
struct EventPoller: ~Copyable {
    /// Token of the wake-up descriptor; process tokens are `id << 2 | kind`, with `id >= 1`.
    static let wakeToken: UInt64 = 0
    /// Token of the portable exit watcher's self-pipe (``ExitWatcher``).
    static let childSignalToken: UInt64 = 1

    let epoll: Int32
    private let wakeUp: WakeUpEvent

    init() {
        epoll = fc_epoll_create()
        guard epoll >= 0, let wakeUp = WakeUpEvent() else {
            preconditionFailure("FutureCore: cannot create the engine's epoll set or eventfd")
        }
        self.wakeUp = wakeUp
        watch(wakeUp.descriptor, token: Self.wakeToken)
    }

    deinit { close(epoll) }

    /// Watches `fd` for readability (and hang-up), always. Any thread.
    func watch(_ fd: Int32, token: UInt64) {
        _ = fc_epoll_add(epoll, fd, FC_EPOLLIN, token)
    }

    /// Watches `fd` for its next readiness only (`EPOLLONESHOT`): once reported, `fd` is disarmed
    /// until ``rearm(_:token:)``. A disarmed descriptor may be closed without ``unwatch(_:)``: it
    /// reports nothing even while a copy of it lives on in a child being spawned. Any thread.
    /// `forWriting`: for room to write (a pipe's write end), not for something to read.
    func watchOnce(_ fd: Int32, token: UInt64, forWriting: Bool = false) {
        _ = fc_epoll_add(epoll, fd, (forWriting ? FC_EPOLLOUT : FC_EPOLLIN) | FC_EPOLLONESHOT, token)
    }

    /// Arms a ``watchOnce(_:token:forWriting:)`` descriptor again, for its next readiness. Any thread.
    func rearm(_ fd: Int32, token: UInt64, forWriting: Bool = false) {
        _ = fc_epoll_modify(epoll, fd, (forWriting ? FC_EPOLLOUT : FC_EPOLLIN) | FC_EPOLLONESHOT, token)
    }

    /// Stops watching `fd`; call before closing it unless it is a disarmed one-shot descriptor.
    /// Any thread.
    func unwatch(_ fd: Int32) {
        _ = fc_epoll_remove(epoll, fd)
    }

    /// Whether `events` (of one ready descriptor) say a pipe's write ends are all closed and nothing
    /// is left to read: its end, known without a `read`.
    static func isEndOfPipe(_ events: UInt32) -> Bool {
        events & FC_EPOLLHUP != 0 && events & FC_EPOLLIN == 0
    }

    /// Wakes `wait` from any thread.
    func wake() { wakeUp.signal() }

    func drainWakeUps() { wakeUp.drain() }

    /// Blocks the loop thread until something is ready or `timeout` (nil: forever) passes.
    func wait(
        timeout: Duration?, tokens: UnsafeMutablePointer<UInt64>, events: UnsafeMutablePointer<UInt32>, capacity: Int
    ) -> Int {
        let milliseconds: Int32
        if let timeout {
            let (seconds, attoseconds) = timeout.components
            let total = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
            milliseconds = Int32(clamping: max(0, total))
        } else {
            milliseconds = -1
        }
        let count = fc_epoll_wait(epoll, tokens, events, Int32(capacity), milliseconds)
        return max(0, Int(count))
    }
}
