import Dispatch
import FutureCore
import FutureProcess
import FutureRunModel
import Glibc
import Synchronization

/// A client of GNU make's jobserver, so that `make -jN` counts futurerun's jobs among its N.
///
/// futurerun runs as one of make's jobs, so it holds one slot implicitly; each further job at once
/// needs a token (one byte) read from the jobserver and written back when the job ends. Both forms
/// of `MAKEFLAGS` are understood: `--jobserver-auth=fifo:PATH` (make 4.4) and `--jobserver-auth=R,W`
/// (inherited descriptors; make passes them only to recipes it considers sub-makes, for example
/// lines starting with `+`; when they are not open, the jobserver is ignored).
///
/// Tokens are taken on a thread of its own (waiting in `poll`, woken through an eventfd), only
/// while jobs are waiting for a slot, and given back as soon as fewer jobs want to run; all that
/// are still held are given back when the run ends, on signals too. (A SIGKILL of futurerun loses
/// them, as it would for any make client.)
package final class Jobserver: Sendable {
    private let reader: Int32
    private let writer: Int32
    private let wake: WakeUpEvent
    private let held = Locked<[UInt8]>([])
    private let stopped = Atomic<Bool>(false)
    /// Whether the token thread runs; ``finish()`` waits for its end (`ended`).
    private let running = Atomic<Bool>(false)
    private let ended = DispatchSemaphore(value: 0)

    /// The jobserver named in `MAKEFLAGS`, or `nil` if there is none (or it cannot be opened).
    package init?(makeflags: String?) {
        guard let flags = makeflags,
            let auth = flags.split(separator: " ").last(where: {
                $0.hasPrefix("--jobserver-auth=") || $0.hasPrefix("--jobserver-fds=")
            })
        else { return nil }
        let value = String(auth.split(separator: "=", maxSplits: 1)[1])
        var reader: Int32 = -1
        var writer: Int32 = -1
        if value.hasPrefix("fifo:") {
            let path = String(value.dropFirst(5))
            reader = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            writer = open(path, O_WRONLY | O_CLOEXEC)
        } else {
            let fds = value.split(separator: ",").compactMap { Int32($0) }
            guard fds.count == 2, fcntl(fds[0], F_GETFD) >= 0, fcntl(fds[1], F_GETFD) >= 0 else { return nil }
            // A description of our own, so that non-blocking reads never change make's.
            reader = open("/proc/self/fd/\(fds[0])", O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            writer = fcntl(fds[1], F_DUPFD_CLOEXEC, 3)
        }
        guard reader >= 0, writer >= 0, let wake = WakeUpEvent() else {
            for fd in [reader, writer] where fd >= 0 { close(fd) }
            return nil
        }
        self.reader = reader
        self.writer = writer
        self.wake = wake
    }

    /// Whether make's jobserver takes part in a run on this machine.
    package enum Reach: Equatable, Sendable {
        /// None announced (or the jobs run on other machines: they take no slot of make's here).
        case none
        /// Announced and opened.
        case reached
        /// Announced but not open to this recipe (GNU make before 4.4 opens it only to lines
        /// marked `+`): one job at a time, as make does for a sub-make it cannot share with.
        case unreachable
    }

    /// How far make's jobserver reaches: `opened` (``init(makeflags:)`` opened it), or announced
    /// in `makeflags` without being open.
    package static func reach(opened: Bool, makeflags: String?) -> Reach {
        opened ? .reached : isAnnounced(in: makeflags) ? .unreachable : .none
    }

    /// Whether `MAKEFLAGS` names a jobserver at all: when it does but ``init(makeflags:)`` cannot
    /// reach it, make (before 4.4) has kept it from this recipe, which is not marked `+`.
    static func isAnnounced(in makeflags: String?) -> Bool {
        makeflags?.split(separator: " ").contains { $0.hasPrefix("--jobserver-auth=") || $0.hasPrefix("--jobserver-fds=") }
            ?? false
    }

    /// Tokens held now (jobs running beyond the implicit one).
    var tokens: Int { held.withLock { $0.count } }

    /// Starts the thread that takes tokens while `wanted()` says more jobs could run; each token
    /// taken is announced with `gained` (to raise the width).
    package func start(wanted: @escaping @Sendable () -> Bool, gained: @escaping @Sendable (Int) -> Void) {
        running.store(true, ordering: .relaxed)
        OSThread.detach(name: "futurerun-make") { [self] in
            defer { ended.signal() }
            var ready = [
                pollfd(fd: reader, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0),
            ]
            while !stopped.load(ordering: .relaxed) {
                let wants = wanted()
                ready[0].events = wants ? Int16(POLLIN) : 0
                ready[0].revents = 0
                ready[1].revents = 0
                guard poll(&ready, 2, -1) >= 0 || errno == EINTR else { return }
                if ready[1].revents != 0 { wake.drain() }
                guard wants, ready[0].revents != 0, !stopped.load(ordering: .relaxed) else { continue }
                var token: UInt8 = 0
                if read(reader, &token, 1) == 1 {
                    // Wanted when the wait began; the jobs may have started since, on slots freed by
                    // others: then the token goes straight back, for make's other jobs.
                    guard wanted() else {
                        _ = write(writer, &token, 1)
                        continue
                    }
                    let count = held.withLock {
                        $0.append(token)
                        return $0.count
                    }
                    gained(count)
                }
            }
        }
    }

    /// Something changed (jobs queued or finished): the token thread looks again.
    func nudge() { wake.signal() }

    /// Gives one token back, if one is held. Returns whether it did.
    @discardableResult
    func giveBack() -> Bool {
        guard var token = held.withLock({ $0.popLast() }) else { return false }
        _ = write(writer, &token, 1)
        return true
    }

    /// Stops taking tokens and gives every held one back. Blocks until the token thread has ended
    /// (it wakes at once): a token it was reading as the run finished is given back too, not kept.
    package func finish() {
        stopped.store(true, ordering: .relaxed)
        nudge()
        if running.exchange(false, ordering: .relaxed) { ended.wait() }
        while giveBack() {}
    }

    deinit {
        close(reader)
        close(writer)
    }
}
