import FutureCore
import Glibc
import _CFutureShims

/// How the engine learns that one of its children has exited: the seam between the Linux way and
/// the portable one.
///
/// - ``Kind-swift.enum/pidfd``: a pidfd per child in the engine's epoll set, readable when that
///   child exits (Linux 5.3 and later). One wake-up per exit, for exactly that child.
/// - ``Kind-swift.enum/childSignal``: SIGCHLD, whose handler writes a byte to a self-pipe in the
///   epoll set; the loop then asks each of *its own* running children, with `waitid(WNOHANG |
///   WNOWAIT)`, whether it has exited. Never `waitpid(-1)`, which would reap other code's children.
///   What a kernel without pidfd (RHEL 8's 4.18), and a BSD or Darwin build, uses.
///
/// `FUTURECORE_EXIT_WATCHER=childSignal` (or `pidfd`) forces one; by default pidfd where the kernel
/// has it.
package struct ExitWatcher: ~Copyable {
    package enum Kind: String, Sendable {
        case pidfd
        case childSignal
    }

    let kind: Kind
    /// The self-pipe of ``Kind-swift.enum/childSignal``: read end watched by the loop, write end
    /// written by the SIGCHLD handler. -1 for pidfd.
    let readEnd: Int32
    private let writeEnd: Int32

    /// `kind`, else the one `FUTURECORE_EXIT_WATCHER` names, else pidfd where the kernel has it. A
    /// pidfd watcher asked for where there is none is the portable one.
    init(_ kind: Kind? = nil) {
        let named = getenv("FUTURECORE_EXIT_WATCHER").flatMap { Kind(rawValue: String(cString: $0)) }
        var kind = kind ?? named ?? .pidfd
        if kind == .pidfd, !Self.kernelHasPidfd { kind = .childSignal }
        var ends: [Int32] = [-1, -1]
        if kind == .childSignal, fc_self_pipe(&ends) != 0 || fc_notify_child_exits(ends[1]) != 0 {
            preconditionFailure("FutureCore: cannot watch children's exits (SIGCHLD pipe: \(String(cString: strerror(errno))))")
        }
        self.kind = kind
        (readEnd, writeEnd) = (ends[0], ends[1])
    }

    /// Whether `pidfd_open` works here (it fails with ENOSYS before Linux 5.3, or under a seccomp
    /// filter that refuses it).
    private static let kernelHasPidfd: Bool = {
        let fd = fc_pidfd_open(getpid())
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }()

    /// The descriptor to watch for `pid`'s exit (pidfd), `nil` when the self-pipe tells instead, or
    /// when no pidfd could be had (the loop then asks `wait4` every 10 ms for that child alone).
    func exitDescriptor(for pid: pid_t) -> Int32? {
        guard kind == .pidfd else { return nil }
        let fd = fc_pidfd_open(pid)
        return fd >= 0 ? fd : nil
    }

    /// After a child is published to the loop: a SIGCHLD that came before the loop could find it
    /// must not be lost, so the self-pipe is written once more. Any thread.
    func childPublished() {
        guard kind == .childSignal else { return }
        var byte: UInt8 = 0
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the self-pipe; the loop then asks every running child. Loop thread.
    func drain() {
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &buffer, { read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }
}
